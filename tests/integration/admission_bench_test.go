//go:build integration

package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/tests/fixture"
)

// BenchmarkAdmissionLatency measures Pod CREATE through the loopback API server,
// as a client sees it: with no policy, with the native policy, and with Kyverno's
// MutatingPolicy and ClusterPolicy (its controllers running out-of-cluster). The
// engines take turns in rounds, so that drift on this machine reaches them all
// alike; each gets podsPerEngine Pods, of one container, one init container and a
// few env entries. It reports each engine's p50 and p99 in milliseconds;
// hack/bench-ratio.sh prints them as ratios to no policy. `make bench` runs it
// once (-benchtime 1x): every iteration is a full measurement.
func BenchmarkAdmissionLatency(b *testing.B) {
	const rounds, podsPerEngine = 4, 200
	cp := startControlPlane(b)
	objects := newObjectClient(b, cp)
	startKyverno(b, cp, objects)
	for _, ns := range []string{fixture.Namespace, "apps"} {
		cp.ensureNamespace(b, ns)
	}
	engines := append([]admissionEngine{{name: "none"}}, admissionEngines...)
	for i := 0; i < b.N; i++ {
		latencies := map[string][]time.Duration{}
		for round := 0; round < rounds; round++ {
			for _, engine := range engines {
				latencies[engine.name] = append(latencies[engine.name],
					measureAdmission(b, cp, engine, fmt.Sprintf("%d-%d", i, round), podsPerEngine/rounds)...)
			}
		}
		for _, engine := range engines {
			d := latencies[engine.name]
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2])/1e6, engine.name+"-p50-ms")
			b.ReportMetric(float64(d[len(d)*99/100])/1e6, engine.name+"-p99-ms")
		}
	}
}

// measureAdmission installs the engine (none: nothing), waits until it injects,
// creates n Pods one after another and returns each CREATE's latency, then
// uninstalls and waits until nothing injects.
func measureAdmission(b *testing.B, cp *controlPlane, engine admissionEngine, id string, n int) []time.Duration {
	ctx := context.Background()
	cell := admissionCell{engine: engine, config: configPlain, failurePolicy: "Ignore", id: "bench-" + id}
	rel := e2eRelease{cell.release(), fixture.ProxyPolicies, fixture.Namespace, cell.values("")}
	if engine.values != "" {
		require.NoError(b, helm.InstallE(b, helmOptions(cp, rel), rel.chart, rel.name))
		waitForCell(b, cp, cell)
	}
	var out []time.Duration
	var names []string
	for i := 0; i < n; i++ {
		p := fixture.Pod(fmt.Sprintf("bench-%s-%s-%d", engine.name, id, i), "apps", nil, fixture.Ctr("app", fixture.Val("TZ", "UTC"), fixture.Val("LOG_LEVEL", "info")))
		p.Name = strings.ToLower(p.Name)
		p.Spec.InitContainers = []corev1.Container{fixture.Ctr("init")}
		began := time.Now()
		created, err := cp.Client.CoreV1().Pods("apps").Create(ctx, &p, metav1.CreateOptions{})
		out = append(out, time.Since(began))
		require.NoError(b, err)
		require.Equal(b, engine.values != "", len(created.Spec.Containers[0].Env) > 2, "%s must inject", engine.name)
		names = append(names, created.Name)
	}
	for _, name := range names {
		require.NoError(b, cp.Client.CoreV1().Pods("apps").Delete(ctx, name, metav1.DeleteOptions{}))
	}
	if engine.values != "" {
		require.NoError(b, helm.DeleteE(b, helmOptions(cp, rel), rel.name, true))
		waitForNoInjection(b, cp)
	}
	return out
}
