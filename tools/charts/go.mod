// Module charts pins Go modules that carry published Helm charts, which the
// tests run through proxykit inject and check as charts nobody here wrote:
// metrics-server's charts/metrics-server and external-secrets'
// deploy/charts/external-secrets. Nothing here is built.
module github.com/proxykit/proxykit/tools/charts

go 1.26.0

require (
	github.com/external-secrets/external-secrets v0.16.2
	sigs.k8s.io/metrics-server v0.8.0
)
