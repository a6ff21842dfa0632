//go:build integration

package distribution

import (
	"os/exec"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// BenchmarkProxytestRender renders examples/consumer-app in-process with
// proxytest; BenchmarkHelmTemplateProcess renders the same chart and values
// with `helm template` as a process. `make bench` prints their ratio.
func BenchmarkProxytestRender(b *testing.B) {
	values := fixture.Path("examples", "providers", "eks.yaml")
	for i := 0; i < b.N; i++ {
		if _, err := proxytest.RenderE(fixture.ConsumerApp, proxytest.ValuesFile(values)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHelmTemplateProcess(b *testing.B) {
	values := fixture.Path("examples", "providers", "eks.yaml")
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command(fixture.Path("bin", "helm"), "template", "release-name", fixture.ConsumerApp, "-f", values).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
