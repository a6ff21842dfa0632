package tests

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
)

// TestNativePolicyCELWithKyvernoCLI runs the MutatingAdmissionPolicy through the
// Kyverno CLI's admission-policy engine (the Kubernetes CEL libraries) on the
// shared pod table. The CLI knows this kind only as v1alpha1, whose spec fields
// are the same, so the test relabels it. Offline the CLI has no Pod schema and
// merges lists atomically, so this proves that the CEL compiles, that scope and
// opt-outs hold, and that missing variables are added; that a container's own
// entries survive the merge is a property of the API server's merge.
func TestNativePolicyCELWithKyvernoCLI(t *testing.T) {
	r := mustRenderSDK(t, proxyPoliciesChart, policyValuesPlain)
	var docs []string
	for _, kind := range []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		docs = append(docs, strings.Replace(string(r.Find(t, kind, "inject-proxy-env").Raw),
			"apiVersion: admissionregistration.k8s.io/v1\n", "apiVersion: admissionregistration.k8s.io/v1alpha1\n", 1))
	}
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte(strings.Join(docs, "\n---\n")), 0o600))

	cases := podCases()
	var pods [][]byte
	for _, c := range cases {
		b, err := yaml.Marshal(c.pod)
		require.NoError(t, err)
		pods = append(pods, b)
	}
	resources := filepath.Join(dir, "pods.yaml")
	require.NoError(t, os.WriteFile(resources, bytes.Join(pods, []byte("\n---\n")), 0o600))
	out := filepath.Join(dir, "mutated.yaml")
	output, err := exec.Command(kyvernoBinary(t), "apply", policy, "--resource", resources, "-o", out, "--remove-color").CombinedOutput()
	require.NoError(t, err, "%s", output)
	require.Contains(t, string(output), "error: 0", "%s", output)

	mutated := map[string]corev1.Pod{}
	text, err := os.ReadFile(out)
	require.NoError(t, err)
	for _, doc := range docSeparator.Split(string(text), -1) {
		if strings.TrimSpace(doc) != "" {
			var p corev1.Pod
			require.NoError(t, yaml.Unmarshal([]byte(doc), &p))
			mutated[p.Name] = p
		}
	}
	injected := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after, ok := mutated[c.pod.Name]
			require.True(t, ok)
			if !c.injected {
				assert.Equal(t, containerEnvs(c.pod), containerEnvs(after), "left alone")
				return
			}
			injected++
			got := containerEnvs(after)
			for name, own := range containerEnvs(c.pod) {
				set := map[string]bool{}
				for _, e := range own {
					set[e.Name] = true
				}
				have := envMap(got[name])
				for _, e := range policyProxyEnv {
					if !set[e.Name] {
						assert.Equal(t, e, have[e.Name], "%s gets %s", name, e.Name)
					}
				}
			}
		})
	}
	assert.Positive(t, injected)
}
