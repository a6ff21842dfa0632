package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// deployments renders n Deployments whose container reads the proxy from one
// Secret, as `helm template` prints a chart built on proxykit with credentials.
func deployments(n int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata: {name: proxy}\nstringData:\n  HTTP_PROXY: http://u:p@proxy:3128\n  NO_PROXY: localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.244.0.0/16,10.96.0.0/12,10.96.0.1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,[::1],[fd00:ec2::254],[fd00:ec2::23]\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app-%d}\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: x\n          env:\n", i)
		for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
			fmt.Fprintf(&b, "            - {name: %s, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}\n", name)
		}
		for _, name := range []string{"NO_PROXY", "no_proxy"} {
			fmt.Fprintf(&b, "            - {name: %s, valueFrom: {secretKeyRef: {name: proxy, key: NO_PROXY}}}\n", name)
		}
	}
	return b.String()
}

// BenchmarkCheck runs `proxykit check` on 100 and 1,000 Deployments; `make bench`
// prints how the time grows (linear: about 10x).
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{100, 1000} {
		manifests := deployments(n)
		b.Run(fmt.Sprintf("deployments=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var out bytes.Buffer
				code := run([]string{"check", "--set", "cluster.podCIDRs={10.244.0.0/16}", "--set", "cluster.serviceCIDRs={10.96.0.0/12}", "--set", "cluster.apiServer=10.96.0.1", "-"},
					strings.NewReader(manifests), &out, io.Discard)
				if code != 0 {
					b.Fatalf("exit %d: %s", code, out.String())
				}
			}
		})
	}
}
