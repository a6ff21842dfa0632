// Module charts pins Go modules that carry published Helm charts, which the
// tests run through proxykit inject and check as charts nobody here wrote:
// metrics-server's charts/metrics-server, external-secrets'
// deploy/charts/external-secrets and ingress-nginx's charts/ingress-nginx.
// Nothing here is built.
module github.com/proxykit/proxykit/tools/charts

go 1.26.0

require (
	github.com/external-secrets/external-secrets v0.16.2
	k8s.io/ingress-nginx v0.0.0-20240708192948-52c50467d67d
	sigs.k8s.io/metrics-server v0.8.0
)
