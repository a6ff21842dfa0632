package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// kyvernoBinary is the CLI that `make tools` builds from tools/kyverno; a missing
// binary fails the test rather than skipping it.
func kyvernoBinary(t testing.TB) string {
	t.Helper()
	bin := repoPath("bin", "kyverno")
	_, err := os.Stat(bin)
	require.NoError(t, err, "bin/kyverno is missing: run `make tools`")
	return bin
}

// kyvernoApply renders the chart's ClusterPolicy (kyverno.policyKind) with values, runs `kyverno apply`
// on the pods and returns the pods as the engine left them, by name.
func kyvernoApply(t testing.TB, values string, pods []corev1.Pod) map[string]corev1.Pod {
	t.Helper()
	r := mustRenderSDK(t, proxyPoliciesChart, values+clusterPolicyKind)
	return kyvernoApplyPolicy(t, []byte(find(t, r, "ClusterPolicy", "inject-proxy-env").Raw), pods)
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

// assertInjection checks every container of a pod against the injection rule.
func assertInjection(t *testing.T, before, after corev1.Pod, proxyEnv []corev1.EnvVar, injected, override bool) {
	t.Helper()
	assert.Equal(t, containerOrder(before), containerOrder(after), "containers keep their order")
	want := containerEnvs(before)
	got := containerEnvs(after)
	for name, own := range want {
		if injected && !skipped(before, name) {
			assert.Equal(t, expectedEnv(own, proxyEnv, override), got[name], "%s", name)
		} else {
			assert.Equal(t, own, got[name], "%s must be left alone", name)
		}
	}
}

func TestKyvernoInjectsProxyEnv(t *testing.T) {
	cases := podCases()
	var pods []corev1.Pod
	for _, c := range cases {
		pods = append(pods, c.pod)
	}
	mutated := kyvernoApply(t, policyValuesPlain, pods)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertInjection(t, c.pod, mutated[c.pod.Name], policyProxyEnv, c.injected, false)
		})
	}
}

func TestKyvernoOverrideExisting(t *testing.T) {
	own := pod("own", "apps", nil,
		ctr("app", val("TZ", "UTC"), val("HTTP_PROXY", "http://own:8080"), configMapRef("HTTPS_PROXY", "proxy", "url")),
		ctr("bare"))
	mutated := kyvernoApply(t, policyValuesPlain+"policy: {overrideExisting: true}\n", []corev1.Pod{own})
	got := mutated["own"]
	assertInjection(t, own, got, policyProxyEnv, true, true)
	// spelled out: replaced in place, the valueFrom gone whole
	assert.Equal(t, []corev1.EnvVar{val("TZ", "UTC"), policyProxyEnv[0], policyProxyEnv[1]}, got.Spec.Containers[0].Env[:3])
}

func TestKyvernoCredentials(t *testing.T) {
	values := strings.Replace(policyValuesPlain,
		"http: http://proxy.corp.example:3128\n  https: http://proxy.corp.example:3129",
		`http: "http://svc-user:Zq%40w%&+@proxy.corp.example:3128"`+"\n"+`  https: "http://svc-user:Zq%40w%&+@proxy.corp.example:3129"`, 1)
	require.Contains(t, values, "svc-user")
	values += "native: {enabled: true, secretNamespaces: [apps]}\n"
	cases := podCases()[:3]
	var pods []corev1.Pod
	for _, c := range cases {
		pods = append(pods, c.pod)
	}
	mutated := kyvernoApply(t, values, pods)
	for _, c := range cases {
		after := mutated[c.pod.Name]
		assertInjection(t, c.pod, after, secretEnv(releaseName+"-proxy-credentials", true), true, false)
		b, _ := yaml.Marshal(after)
		assert.NotContains(t, string(b), "Zq", "the password must not reach the pod spec")
	}
}

func TestKyvernoNamespaceInclude(t *testing.T) {
	in := pod("in-team", "team-a", nil, ctr("app"))
	out := pod("elsewhere", "apps", nil, ctr("app"))
	mutated := kyvernoApply(t, policyValuesPlain+"namespaces: {include: [team-*]}\n", []corev1.Pod{in, out})
	assertInjection(t, in, mutated["in-team"], policyProxyEnv, true, false)
	assertInjection(t, out, mutated["elsewhere"], policyProxyEnv, false, false)
}
