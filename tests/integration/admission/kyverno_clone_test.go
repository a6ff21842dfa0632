//go:build integration

package admission

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestKyvernoClonesTheProxySecret runs the generate rule in `kyverno test`: a new
// namespace gets a byte-exact copy of the proxy Secret from the release
// namespace (Kyverno labels its copies managed-by: kyverno).
func TestKyvernoClonesTheProxySecret(t *testing.T) {
	harness.Parallel(t)
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.CredentialValues(t, map[string]any{"defaults": nil, "kyverno": map[string]any{"policyKind": "ClusterPolicy"}})))
	secretName := fixture.Release + "-proxy-credentials"
	source := string(fixture.Find(t, r, "Secret", secretName).Raw)
	require.Contains(t, source, `namespace: "`+fixture.Namespace+`"`)
	require.Contains(t, source, `app.kubernetes.io/managed-by: "Helm"`)
	clone := strings.NewReplacer(`namespace: "`+fixture.Namespace+`"`, `namespace: "apps"`,
		`app.kubernetes.io/managed-by: "Helm"`, `app.kubernetes.io/managed-by: kyverno`).Replace(source)

	dir := t.TempDir()
	files := map[string]string{
		"policy.yaml":     string(fixture.Find(t, r, "ClusterPolicy", "inject-proxy-env-secret").Raw),
		"source.yaml":     source,
		"generated.yaml":  clone,
		"namespaces.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n",
		"kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: clone-proxy-secret
policies: [policy.yaml]
resources: [namespaces.yaml]
results:
  - policy: inject-proxy-env-secret
    rule: clone-proxy-secret
    kind: Namespace
    resources: [apps]
    generatedResource: generated.yaml
    cloneSourceResource: source.yaml
    result: pass
`,
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	out, err := exec.Command(kyvernoBinary(t), "test", dir, "--remove-color", "--detailed-results").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "1 tests passed and 0 tests failed", "%s", out)
}
