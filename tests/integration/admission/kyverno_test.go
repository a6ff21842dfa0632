//go:build integration

package admission

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// kyvernoBinary is the CLI that `make tools` builds from tools/kyverno; a missing
// binary fails the test rather than skipping it.
func kyvernoBinary(t testing.TB) string {
	t.Helper()
	bin := fixture.Path("bin", "kyverno")
	_, err := os.Stat(bin)
	require.NoError(t, err, "bin/kyverno is missing: run `make tools`")
	return bin
}

// kyvernoApply renders the chart's ClusterPolicy (kyverno.policyKind) with values, runs `kyverno apply`
// on the pods and returns the pods as the engine left them, by name.
func kyvernoApply(t testing.TB, values string, pods []corev1.Pod) map[string]corev1.Pod {
	t.Helper()
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(values+fixture.ClusterPolicyKind))
	return kyvernoApplyPolicy(t, []byte(fixture.Find(t, r, "ClusterPolicy", "inject-proxy-env").Raw), pods)
}

// kyvernoApplyPolicy runs `kyverno apply` with the given policy documents.
func kyvernoApplyPolicy(t testing.TB, policyYAML []byte, pods []corev1.Pod) map[string]corev1.Pod {
	t.Helper()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	require.NoError(t, os.WriteFile(policy, policyYAML, 0o600))

	var docs [][]byte
	for _, p := range pods {
		b, err := yaml.Marshal(p)
		require.NoError(t, err)
		docs = append(docs, b)
	}
	resources := filepath.Join(dir, "pods.yaml")
	require.NoError(t, os.WriteFile(resources, bytes.Join(docs, []byte("\n---\n")), 0o600))
	out := runKyvernoApply(t, policy, resources)

	mutated, err := os.ReadFile(out)
	require.NoError(t, err)
	result := map[string]corev1.Pod{}
	m, err := proxytest.Parse(string(mutated))
	require.NoError(t, err)
	for _, o := range m.Objects {
		var p corev1.Pod
		require.NoError(t, o.Decode(&p), "kyverno output:\n%s", o.Raw)
		result[p.Name] = p
	}
	require.Len(t, result, len(pods), "every pod comes back")
	return result
}

// runKyvernoApply runs `kyverno apply` and returns the file with the resources it left.
func runKyvernoApply(t testing.TB, policy, resources string) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(resources), "mutated.yaml")
	cmd := exec.Command(kyvernoBinary(t), "apply", policy, "--resource", resources, "-o", out, "--remove-color")
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "kyverno apply:\n%s", output)
	require.Contains(t, string(output), "error: 0", "kyverno apply reported errors:\n%s", output)
	return out
}

// assertInjection checks every container of a pod against the injection rule,
// with policy.mergeNoProxy as it is by default.
func assertInjection(t *testing.T, before, after corev1.Pod, proxyEnv []corev1.EnvVar, injected, override bool) {
	t.Helper()
	assert.Equal(t, fixture.ContainerOrder(before), fixture.ContainerOrder(after), "containers keep their order")
	for key, c := range fixture.Containers(before) {
		assert.Equal(t, c.Args, fixture.Containers(after)[key].Args, "%s keeps its args as written", key)
	}
	want := fixture.ContainerEnvs(before)
	got := fixture.ContainerEnvs(after)
	containers := fixture.Containers(before)
	for name, own := range want {
		if injected && !fixture.Skipped(before, name) {
			assert.Equal(t, fixture.ExpectedEnv(containers[name], proxyEnv, inject.MergeOptions{Override: override, MergeNoProxy: true}), got[name], "%s", name)
		} else {
			assert.Equal(t, own, got[name], "%s must be left alone", name)
		}
	}
}

func TestKyvernoInjectsProxyEnv(t *testing.T) {
	harness.Parallel(t)
	cases := fixture.PodCases()
	var pods []corev1.Pod
	for _, c := range cases {
		pods = append(pods, c.Pod)
	}
	mutated := kyvernoApply(t, fixture.PolicyValuesPlain, pods)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			assertInjection(t, c.Pod, mutated[c.Pod.Name], fixture.PolicyProxyEnv, c.Injected, false)
		})
	}
}

func TestKyvernoOverrideExisting(t *testing.T) {
	harness.Parallel(t)
	own := fixture.Pod("own", "apps", nil,
		fixture.Ctr("app", fixture.Val("TZ", "UTC"), fixture.Val("HTTP_PROXY", "http://own:8080"), fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url")),
		fixture.Ctr("bare"))
	mutated := kyvernoApply(t, fixture.PolicyValuesPlain+"policy: {overrideExisting: true}\n", []corev1.Pod{own})
	got := mutated["own"]
	assertInjection(t, own, got, fixture.PolicyProxyEnv, true, true)
	// spelled out: the plain value replaced in place, the valueFrom kept (as the CEL engines and inject do)
	assert.Equal(t, []corev1.EnvVar{fixture.Val("TZ", "UTC"), fixture.PolicyProxyEnv[0], fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url")}, got.Spec.Containers[0].Env[:3])
}

// TestKyvernoJavaToolOptions: with proxy.runtimes java and overrideExisting, an own
// JAVA_TOOL_OPTIONS value is kept before the flags (override replaces the other
// variables, and the proxy's flags win over older ones of its own), once: a
// second pass leaves the Pod as the first made it.
func TestKyvernoJavaToolOptions(t *testing.T) {
	harness.Parallel(t)
	values := strings.Replace(fixture.PolicyValuesPlain, "proxy:\n", "proxy:\n  runtimes: [java]\n", 1) + "policy: {overrideExisting: true}\n"
	var parsed map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(values), &parsed))
	flags := fixture.Include(t, parsed, proxykit.Call{Helper: "proxykit.java.options"})
	proxyEnv := append(append([]corev1.EnvVar{}, fixture.PolicyProxyEnv...), fixture.Val("JAVA_TOOL_OPTIONS", flags))
	own := fixture.Pod("own-java", "apps", nil,
		fixture.Ctr("app", fixture.Val("JAVA_TOOL_OPTIONS", "-Xmx64m"), fixture.Val("HTTP_PROXY", "http://own:8080")),
		fixture.Ctr("from-config", fixture.ConfigMapRef("JAVA_TOOL_OPTIONS", "jvm", "options")))
	got := kyvernoApply(t, values, []corev1.Pod{own})["own-java"]
	assertInjection(t, own, got, proxyEnv, true, true)
	assert.Equal(t, fixture.Val("JAVA_TOOL_OPTIONS", "-Xmx64m "+flags), got.Spec.Containers[0].Env[0])

	again := kyvernoApply(t, values, []corev1.Pod{got})["own-java"]
	assert.Equal(t, fixture.ContainerEnvs(got), fixture.ContainerEnvs(again), "the flags are joined once")
}

func TestKyvernoCredentials(t *testing.T) {
	harness.Parallel(t)
	values := strings.Replace(fixture.PolicyValuesPlain,
		"http: http://proxy.corp.example:3128\n  https: http://proxy.corp.example:3129",
		`http: "http://svc-user:Zq%40w%25&+@proxy.corp.example:3128"`+"\n"+`  https: "http://svc-user:Zq%40w%25&+@proxy.corp.example:3129"`, 1)
	require.Contains(t, values, "svc-user")
	values += "native: {enabled: true, secretNamespaces: [apps]}\n"
	cases := fixture.PodCases()[:3]
	var pods []corev1.Pod
	for _, c := range cases {
		pods = append(pods, c.Pod)
	}
	mutated := kyvernoApply(t, values, pods)
	for _, c := range cases {
		after := mutated[c.Pod.Name]
		assertInjection(t, c.Pod, after, fixture.SecretEnv(fixture.Release+"-proxy-credentials", true), true, false)
		b, _ := yaml.Marshal(after)
		assert.NotContains(t, string(b), "Zq", "the password must not reach the pod spec")
	}
}

func TestKyvernoNamespaceInclude(t *testing.T) {
	harness.Parallel(t)
	in := fixture.Pod("in-team", "team-a", nil, fixture.Ctr("app"))
	out := fixture.Pod("elsewhere", "apps", nil, fixture.Ctr("app"))
	mutated := kyvernoApply(t, fixture.PolicyValuesPlain+"namespaces: {include: [team-*]}\n", []corev1.Pod{in, out})
	assertInjection(t, in, mutated["in-team"], fixture.PolicyProxyEnv, true, false)
	assertInjection(t, out, mutated["elsewhere"], fixture.PolicyProxyEnv, false, false)
}
