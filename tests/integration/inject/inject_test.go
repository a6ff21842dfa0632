//go:build integration

package inject

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// helm4Plugin sets Helm 4's post-renderer plugin up as the docs say, from the
// directory `make helm-plugin` writes (built here from the work tree): in a
// plugins directory of its own that Helm 4 reads through HELM_PLUGINS beside the
// home's, where Helm 3, which refuses a plugin.yaml of Helm 4's format, never
// looks. It returns that environment, and checks Helm 3 in the same home.
func helm4Plugin(t *testing.T, proxykitBin string) []string {
	t.Helper()
	plugins := t.TempDir() // ~/.local/share/helm4-plugins in the docs
	dir := filepath.Join(plugins, "proxykit")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	plugin, err := os.ReadFile(fixture.Path("helm-plugin", "plugin.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plugin.yaml"), plugin, 0o644))
	bin, err := os.ReadFile(proxykitBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "proxykit"), bin, 0o755))
	home := itest.NewHelmHome(t).Env
	homePlugins := strings.TrimSpace(itest.RunHelm(t, home, "helm4", "env", "HELM_PLUGINS"))
	env := append(slices.Clone(home), "HELM_PLUGINS="+homePlugins+string(os.PathListSeparator)+plugins)
	assert.Contains(t, itest.RunHelm(t, env, "helm4", "plugin", "list"), "postrenderer/v1", "Helm 4 finds the plugin")
	itest.RunHelm(t, home, "helm", "plugin", "list") // Helm 3 in the same home loads its plugins without an error
	return env
}

// TestInjectUnownedCharts runs charts nobody here wrote (Kyverno's, from the
// Kyverno module tools/kyverno pins, trust-manager's, and metrics-server's and
// external-secrets' from tools/charts) through `proxykit
// inject` as a post-renderer of the helm CLIs the project builds: Helm 3 with
// --post-renderer PATH, Helm 4 with the plugin installed as the README says.
// Both give the same objects; `proxykit check` finds nothing in Helm 4's render
// (Helm 3 hands its hooks to no post-renderer, so only hooks go without); a
// NO_PROXY written by hand without the Services is caught; credentials stay in
// the Secret inject adds.
func TestInjectUnownedCharts(t *testing.T) {
	harness.Parallel(t)
	bin := itest.ProxykitCLI(t)
	env4, env3 := helm4Plugin(t, bin), itest.NewHelmHome(t).Env
	charts := []struct {
		name, dir, namespace string
		set                  []string
		services             []string // some of the chart's Services, which its NO_PROXY must name
	}{
		{"kyverno", itest.UnownedChart(t, "github.com/kyverno/kyverno", "kyverno", "charts/kyverno"), "kyverno", []string{"--set", "crds.install=false"},
			[]string{"kyverno-svc", "kyverno-cleanup-controller"}},
		{"trust-manager", itest.UnownedChart(t, "github.com/cert-manager/trust-manager", "trust-manager", "deploy/charts/trust-manager"), "cert-manager", nil,
			[]string{"trust-manager"}},
		{"metrics-server", itest.UnownedChart(t, "sigs.k8s.io/metrics-server", "charts", "charts/metrics-server"), "kube-system", nil,
			[]string{"metrics-server"}},
		{"external-secrets", itest.UnownedChart(t, "github.com/external-secrets/external-secrets", "charts", "deploy/charts/external-secrets"), "external-secrets", []string{"--set", "installCRDs=false"},
			[]string{"external-secrets-webhook"}},
		// admission webhook certificates made by hook Jobs, a controller that calls its own admission Service
		{"ingress-nginx", itest.UnownedChart(t, "k8s.io/ingress-nginx", "charts", "charts/ingress-nginx"), "ingress-nginx", nil,
			[]string{"ingress-nginx-controller-admission"}},
	}
	for _, values := range []struct{ name, text string }{{"plain", itest.InjectValuesPlain}, {"credentials", itest.InjectValuesCredentials}} {
		file := filepath.Join(t.TempDir(), "proxy-values.yaml")
		require.NoError(t, os.WriteFile(file, []byte(values.text), 0o600))
		for _, c := range charts {
			t.Run(c.name+"/"+values.name, func(t *testing.T) {
				base := append([]string{"template", c.name, c.dir, "-n", c.namespace}, c.set...)
				out3 := itest.RunHelm(t, env3, "helm", append(base, "--post-renderer", bin, "--post-renderer-args", "inject",
					"--post-renderer-args", "-f", "--post-renderer-args", file, "--post-renderer-args", "-n", "--post-renderer-args", c.namespace)...)
				out4 := itest.RunHelm(t, env4, "helm4", append(base, "--post-renderer", "proxykit",
					"--post-renderer-args", "-f", "--post-renderer-args", file, "--post-renderer-args", "-n", "--post-renderer-args", c.namespace)...)
				m3, err := proxytest.Parse(out3)
				require.NoError(t, err)
				m4, err := proxytest.Parse(out4)
				require.NoError(t, err)
				notHooks := func(m *proxytest.Manifests) map[string]any {
					out := map[string]any{}
					for _, o := range m.Objects {
						if o.Hook() == "" {
							out[o.Kind+"/"+o.Namespace+"/"+o.Name] = withoutNulls(o.Content)
						}
					}
					return out
				}
				secretKey := "Secret/" + c.namespace + "/" + c.name + "-proxy-credentials"
				if values.name == "credentials" && hasHook(m4) {
					// Helm 4 runs the chart's hooks, which read the proxy Secret, before it
					// creates the release's objects: the Secret comes as a hook of its own
					secret4, secret3 := m4.FindIn("Secret", c.name+"-proxy-credentials", c.namespace), m3.FindIn("Secret", c.name+"-proxy-credentials", c.namespace)
					require.NotNil(t, secret4)
					require.NotNil(t, secret3)
					assert.Equal(t, "pre-install,pre-upgrade,pre-rollback", secret4.Hook())
					assert.Empty(t, secret3.Hook(), "Helm 3 post-renders no hook: an object of the release")
					want := notHooks(m3)
					delete(want, secretKey)
					assert.Equal(t, want, notHooks(m4), "Helm 3 and Helm 4 post-render the release alike, the Secret aside")
				} else {
					assert.Equal(t, notHooks(m3), notHooks(m4), "Helm 3 and Helm 4 post-render the release alike")
				}
				require.NotEmpty(t, m4.Containers())

				code, stdout, stderr := itest.CLI(t, bin, "check", "-f", file, "-n", c.namespace, itest.WriteTemp(t, out4))
				assert.Equal(t, 0, code, "Helm 4's render, hooks included:\n%s%s", stdout, stderr)
				_, stdout, _ = itest.CLI(t, bin, "check", "-f", file, "-n", c.namespace, "-o", "json", itest.WriteTemp(t, out3))
				var findings []struct{ Object, Rule, Message string }
				require.NoError(t, yaml.Unmarshal([]byte(stdout), &findings))
				for _, f := range findings {
					kind, name, _ := strings.Cut(f.Object, "/")
					o := m3.Find(kind, name)
					require.NotNil(t, o, f.Object)
					assert.True(t, o.Hook() != "" && f.Rule == proxytest.RuleHookWithoutProxy, "Helm 3 leaves only its hooks alone: %+v", f)
					assert.Contains(t, f.Message, "proxy-policies injects it at admission, or Helm 4 post-renders hooks", "advice for a chart the user does not own")
				}

				// a NO_PROXY written by hand, without the chart's Services
				handWritten := out4
				for _, form := range serviceForms(m4, c.namespace) {
					handWritten = strings.ReplaceAll(handWritten, ","+form+",", ",")
					handWritten = strings.ReplaceAll(handWritten, ","+form+"\n", "\n")
				}
				require.NotEqual(t, out4, handWritten)
				code, stdout, _ = itest.CLI(t, bin, "check", "-f", file, "-n", c.namespace, itest.WriteTemp(t, handWritten))
				assert.Equal(t, 1, code)
				assert.Contains(t, stdout, "release-service-proxied: NO_PROXY sends Service ")
				for _, svc := range c.services {
					assert.Regexp(t, `Service `+svc+` \(`+svc+`[,:][^)]* `+svc+`\.`+c.namespace+`[,:]`, stdout, "the bare name and name.namespace")
				}

				if values.name == "credentials" {
					assert.NotNil(t, m4.FindIn("Secret", c.name+"-proxy-credentials", c.namespace), "the Secret the env reads travels with the release")
					for _, o := range m4.Objects {
						if o.Kind != "Secret" {
							assert.NotContains(t, o.Raw, fixture.LeakMarker, "%s carries the proxy password", o.ID())
						}
					}
				}
			})
		}
	}
}

// withoutNulls drops the keys whose value is null: Helm 3 writes an empty
// `annotations:` that Helm 4 leaves out (metrics-server's APIService), which
// the API server reads alike.
func withoutNulls(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(v)
		default:
			out[k] = v
		}
	}
	return out
}

// hasHook tells a render with a Helm hook that gets the proxy.
func hasHook(m *proxytest.Manifests) bool {
	for _, c := range m.Containers() {
		if c.Hook != "" {
			return true
		}
	}
	return false
}

// serviceForms are the NO_PROXY entries inject writes for the render's Services.
func serviceForms(m *proxytest.Manifests, namespace string) []string {
	var out []string
	for _, o := range m.Objects {
		if o.Kind == "Service" {
			out = append(out, o.Name+"."+namespace+".svc", o.Name+"."+namespace, o.Name)
		}
	}
	return out
}
