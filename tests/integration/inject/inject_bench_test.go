//go:build integration

package inject

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// manyDeployments writes a chart that renders n Deployments, the first ten behind
// a Service each (a release's Services are few; every container's NO_PROXY names
// them all), and returns its directory and `helm template`'s output of it.
func manyDeployments(b *testing.B, n int) (string, string) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "many")
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		b.Fatal(err)
	}
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: many\nversion: 0.1.0\n",
		"templates/many.yaml": `{{- range $i := until (int .Values.n) }}
{{- if lt $i 10 }}
---
apiVersion: v1
kind: Service
metadata: {name: app-{{ $i }}}
spec: {ports: [{port: 8080}], selector: {app: app-{{ $i }}}}
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-{{ $i }}}
spec:
  selector: {matchLabels: {app: app-{{ $i }}}}
  template:
    metadata: {labels: {app: app-{{ $i }}}}
    spec:
      containers:
        - name: app
          image: registry.example/app:1
          env: [{name: TZ, value: UTC}]
{{- end }}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	out, err := exec.Command(fixture.Path("bin", "helm"), "template", "many", dir, "-n", "apps", "--set", fmt.Sprintf("n=%d", n)).Output()
	if err != nil {
		b.Fatal(err)
	}
	return dir, string(out)
}

// BenchmarkInject runs `proxykit inject` as Helm runs a post-renderer (a process
// reading the stream) on 100 and 1,000 Deployments with a Service each;
// BenchmarkInjectHelmTemplate is `helm template` of the same chart, what every
// install pays anyway. `make bench` prints the growth and the ratio.
func BenchmarkInject(b *testing.B) {
	bin := itest.ProxykitCLI(b)
	values := filepath.Join(b.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(itest.InjectValuesPlain), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1000} {
		_, stream := manyDeployments(b, n)
		b.Run(fmt.Sprintf("deployments=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(bin, "inject", "-q", "-f", values, "-n", "apps")
				cmd.Stdin = strings.NewReader(stream)
				out, err := cmd.Output()
				if err != nil || strings.Count(string(out), "app-9.apps.svc") != 2*n {
					b.Fatalf("inject: %v", err)
				}
			}
		})
	}
}

func BenchmarkInjectHelmTemplate(b *testing.B) {
	for _, n := range []int{100, 1000} {
		dir, _ := manyDeployments(b, n)
		b.Run(fmt.Sprintf("deployments=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if out, err := exec.Command(fixture.Path("bin", "helm"), "template", "many", dir, "-n", "apps", "--set", fmt.Sprintf("n=%d", n)).CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
