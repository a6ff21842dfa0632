package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

const benchContainers = 20

// benchTiers builds three tiers of n entries for the fixture's bench Deployment:
// defaults.env VAR_0..VAR_n-1, bench.first VAR_n/2.. (half override defaults),
// bench.second VAR_n.. as valueFrom (new names).
func benchTiers(n int) (defaults, first, second []any) {
	for i := 0; i < n; i++ {
		defaults = append(defaults, map[string]any{"name": fmt.Sprintf("VAR_%d", i), "value": "default"})
		first = append(first, map[string]any{"name": fmt.Sprintf("VAR_%d", i+n/2), "value": fmt.Sprint(i)})
		second = append(second, map[string]any{"name": fmt.Sprintf("VAR_%d", i+n),
			"valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}})
	}
	return defaults, first, second
}

// benchValues: helper is "proxykit" (generateEnv) or "plain" (the baseline merge).
func benchValues(t testing.TB, helper string, containers, n int) string {
	defaults, first, second := benchTiers(n)
	return fixture.ValuesYAML(t, map[string]any{
		"proxy":    map[string]any{"http": "http://proxy.corp:3128", "https": "http://proxy.corp:3128"},
		"cluster":  map[string]any{"podCIDRs": "10.244.0.0/16", "serviceCIDRs": "10.96.0.0/12", "apiServer": "10.96.0.1"},
		"defaults": map[string]any{"env": defaults},
		"bench":    map[string]any{"helper": helper, "containers": containers, "first": first, "second": second},
	})
}

// TestBenchTemplate asserts the merge the benchmark measures, on a size small enough to spell out.
func TestBenchTemplate(t *testing.T) {
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(benchValues(t, "proxykit", 3, 4)))
	spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-bench").Spec.Template.Spec
	require.Len(t, spec.Containers, 3)
	proxyTier := 6
	for _, c := range spec.Containers {
		require.Len(t, c.Env, proxyTier+8, "VAR_0..VAR_7 after the proxy tier")
		got := c.Env[proxyTier:]
		want := []corev1.EnvVar{
			fixture.Val("VAR_0", "default"), fixture.Val("VAR_1", "default"), fixture.Val("VAR_2", "0"), fixture.Val("VAR_3", "1"),
			fixture.FieldRef("VAR_4", "metadata.name"), fixture.FieldRef("VAR_5", "metadata.name"),
			fixture.FieldRef("VAR_6", "metadata.name"), fixture.FieldRef("VAR_7", "metadata.name"),
		}
		assert.Equal(t, want, got, "container %s", c.Name)
	}
	// the baseline does the same merge, so the ratio compares like with like
	for _, n := range []int{4, 100} {
		ours := proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(benchValues(t, "proxykit", 3, n))), fixture.Release+"-bench")
		plain := proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(benchValues(t, "plain", 3, n))), fixture.Release+"-bench")
		assert.Equal(t, plain.Spec.Template.Spec.Containers, ours.Spec.Template.Spec.Containers, "%d entries per tier", n)
	}
}

// BenchmarkGenerateEnv renders 20 containers, each merging three tiers of n
// entries, with generateEnv and with the plain merge baseline in the same run.
// `make bench` prints generateEnv's time as a ratio to the baseline's and checks
// that 1000 entries cost at most 11x what 100 do.
func BenchmarkGenerateEnv(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		for _, helper := range []string{"proxykit", "plain"} {
			b.Run(fmt.Sprintf("entries=%d/helper=%s", n, helper), func(b *testing.B) {
				benchmarkRender(b, benchValues(b, helper, benchContainers, n))
			})
		}
	}
}

// BenchmarkRenderFixture renders the whole fixture chart with a proxy, credentials and defaults.
func BenchmarkRenderFixture(b *testing.B) {
	benchmarkRender(b, fixture.CredentialValues(b, nil))
}

func benchmarkRender(b *testing.B, values string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fixture.RenderE(fixture.Fixture, proxytest.Values(values), proxytest.Release(fixture.Release, fixture.Namespace)); err != nil {
			b.Fatal(err)
		}
	}
}

// manyNoProxyEntries are values with n installation-wide NO_PROXY entries.
func manyNoProxyEntries(n int) string {
	return "proxy: {http: 'http://proxy.corp:3128', noProxy: '" + fixture.NoProxyEntries(n) + "'}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n"
}

// BenchmarkNoProxyEntries renders the fixture with 1,000 and 10,000 noProxy
// entries; `make bench` checks that 10x the entries cost at most 11x the time.
func BenchmarkNoProxyEntries(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		values := manyNoProxyEntries(n)
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				fixture.Render(b, fixture.Fixture, proxytest.Values(values))
			}
		})
	}
}

// BenchmarkUnknownKey renders with an unknown key of 20,000 and 200,000 characters,
// which fails naming it; `make bench` checks that the suggestion stays linear.
func BenchmarkUnknownKey(b *testing.B) {
	for _, n := range []int{20000, 200000} {
		values := "cluster:\n  ? " + strings.Repeat("x", n) + "\n  : 1\n" // an explicit key: YAML caps implicit keys at 1,024 characters
		b.Run(fmt.Sprintf("length=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				fixture.RenderError(b, fixture.Fixture, proxytest.Values(values))
			}
		})
	}
}

// manyPodCIDRs are values with n pod CIDRs (10.0.0.0/24, 10.0.1.0/24, ...).
func manyPodCIDRs(n int) string {
	cidrs := make([]string, n)
	for i := range cidrs {
		cidrs[i] = fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)
	}
	return "proxy: {http: 'http://proxy.corp:3128'}\ncluster: {serviceCIDRs: [172.20.0.0/16], podCIDRs: '" + strings.Join(cidrs, ",") + "'}\n"
}

// BenchmarkPodCIDRs renders the fixture with 2,500 and 10,000 pod CIDRs (a Node
// each, as discover reads them on a large cluster); `make bench` checks that 4x
// the CIDRs cost at most 5x the time.
func BenchmarkPodCIDRs(b *testing.B) {
	for _, n := range []int{2500, 10000} {
		values := manyPodCIDRs(n)
		b.Run(fmt.Sprintf("cidrs=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				fixture.Render(b, fixture.Fixture, proxytest.Values(values))
			}
		})
	}
}
