//go:build integration

package inject

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestCallReaderOnPublishedCharts measures the call reader (proxytest's Calls,
// which check and inject read calls through) on charts nobody here wrote and on
// the fixture that reproduces Jenkins', Temporal's and Harbor's patterns: each
// chart's true calls, read by hand from its templates, against what the reader
// finds, every container of the default render. A call it invents would be a
// false alarm in check and a needless NO_PROXY entry in inject; one it misses,
// a false green. The figures are in the log and in the CHANGELOG.
func TestCallReaderOnPublishedCharts(t *testing.T) {
	harness.Parallel(t)
	charts := []struct {
		name, dir, namespace string
		set                  []string
		calls                []string // "Kind/name/container target", read by hand
	}{
		{"kyverno", itest.UnownedChart(t, "github.com/kyverno/kyverno", "kyverno", "charts/kyverno"), "kyverno", []string{"--set", "crds.install=false"},
			[]string{
				// the chart's tests: a readiness checker's --service-name, --namespace, --port and --https
				"Pod/kyverno-admission-controller-metrics/test http://kyverno-svc-metrics.kyverno:8000",
				"Pod/kyverno-cleanup-controller-liveness/test https://kyverno-cleanup-controller.kyverno:443",
				"Pod/kyverno-cleanup-controller-metrics/test http://kyverno-cleanup-controller-metrics.kyverno:8000",
				"Pod/kyverno-cleanup-controller-readiness/test https://kyverno-cleanup-controller.kyverno:443",
				"Pod/kyverno-reports-controller-metrics/test http://kyverno-reports-controller-metrics.kyverno:8000",
			}},
		// listen addresses (--webhook-host=0.0.0.0), certificate names (--dns-name) and
		// Service names without a port are no calls
		{"trust-manager", itest.UnownedChart(t, "github.com/cert-manager/trust-manager", "trust-manager", "deploy/charts/trust-manager"), "cert-manager", nil, nil},
		{"metrics-server", itest.UnownedChart(t, "sigs.k8s.io/metrics-server", "charts", "charts/metrics-server"), "kube-system", nil, nil},
		{"external-secrets", itest.UnownedChart(t, "github.com/external-secrets/external-secrets", "charts", "deploy/charts/external-secrets"), "external-secrets", []string{"--set", "installCRDs=false"}, nil},
		// the certificate Jobs' --host names the admission Service's certificate, and the
		// controller's --publish-service and --configmap name objects: no calls
		{"ingress-nginx", itest.UnownedChart(t, "k8s.io/ingress-nginx", "charts", "charts/ingress-nginx"), "ingress-nginx", nil, nil},
		{"callers", fixture.Path("tests", "testdata", "callers"), "ci", nil,
			[]string{
				"Deployment/callers-core/core http://callers-core:80",                             // envFrom ConfigMap, a URL
				"Deployment/callers-history/history http://callers-frontend:7233",                 // mounted config, host:port
				"Deployment/callers-history/history http://elasticsearch-master:9200",             // mounted config, scheme and host on neighbouring keys
				"Deployment/callers-history/history http://postgres-postgresql:5432",              // mounted config, not HTTP: judged by nobody, in NO_PROXY all the same
				"Job/callers-register/register http://schema-registry:8081",                       // a hook's command
				"StatefulSet/callers-controller/controller http://callers-controller-agent:50000", // JCasC: the tunnel its agents call
				"StatefulSet/callers-controller/controller http://callers-controller:8080",        // JCasC: the URL its agents call
				"StatefulSet/callers-controller/controller https://kubernetes.default",            // JCasC: the API server
			}},
	}
	env := itest.NewHelmHome(t).Env
	found, truth, invented := 0, 0, 0
	for _, c := range charts {
		out := itest.RunHelm(t, env, "helm", append([]string{"template", c.name, c.dir, "-n", c.namespace}, c.set...)...)
		m, err := proxytest.Parse(out)
		require.NoError(t, err)
		m.Namespace = c.namespace
		var got []string
		for _, ctr := range m.Containers() {
			for _, call := range m.Calls(ctr) {
				got = append(got, fmt.Sprintf("%s/%s %s", ctr.Object, ctr.Name, call.Target()))
			}
		}
		sort.Strings(got)
		t.Logf("%s: %d containers, calls found: %q", c.name, len(m.Containers()), got)
		for _, call := range got {
			if slices.Contains(c.calls, call) {
				found++
			} else {
				invented++
			}
		}
		truth += len(c.calls)
		assert.ElementsMatch(t, c.calls, got, c.name)
	}
	t.Logf("calls found %d of %d true calls, %d invented", found, truth, invented)
}
