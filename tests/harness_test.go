package tests

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/gruntwork-io/terratest/modules/k8s"
	"github.com/gruntwork-io/terratest/modules/logger"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
)

const (
	releaseName = "test"
	namespace   = "proxykit-test"
)

// repoRoot is the repository root, found from this file so tests run from any directory.
var repoRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}()

// repoPath joins path elements onto the repository root.
func repoPath(elem ...string) string {
	return filepath.Join(append([]string{repoRoot}, elem...)...)
}

var fixtureChart = repoPath("tests", "testdata", "fixture")

// chartsWithDependencies are the application charts whose charts/ folder must hold
// a fresh copy of the library before they render; TestMain refreshes them.
func chartsWithDependencies() []string {
	dirs := []string{fixtureChart}
	for _, pattern := range []string{"charts/*/Chart.yaml", "examples/*/Chart.yaml"} {
		matches, _ := filepath.Glob(repoPath(pattern))
		for _, m := range matches {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	return dirs
}

func TestMain(m *testing.M) {
	// the test binary also plays the echo server and the Go client inside the
	// network namespace of TestNoProxyModelsMatchRealClients
	if role := os.Getenv(testRoleVar); role != "" {
		os.Exit(playRole(role))
	}
	flag.Parse()
	// The helm CLI that terratest drives is the one `make tools` builds from go.mod.
	os.Setenv("PATH", repoPath("bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := exec.LookPath("helm"); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: helm is not on PATH; run `make tools` to build bin/helm")
		os.Exit(1)
	}
	for _, dir := range chartsWithDependencies() {
		cmd := exec.Command("helm", "dependency", "update", "--skip-refresh", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: helm dependency update %s: %v\n%s", dir, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	if code == 0 && isFullRun() {
		if missing := templatesNeverRendered(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no test rendered these templates (every template needs a test):\n  %s\n", strings.Join(missing, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// isFullRun tells whether every test ran, which the template coverage check needs.
func isFullRun() bool {
	f := flag.Lookup("test.run")
	return f == nil || f.Value.String() == ""
}

// rendered records, per chart directory, the template files that produced output.
var rendered sync.Map // "<chartDir>|templates/x.yaml" -> true

var sourceLine = regexp.MustCompile(`(?m)^# Source: [^/]+/(.+)$`)

func recordRendered(chartDir string, manifests map[string]string) {
	for name, text := range manifests {
		if strings.TrimSpace(text) != "" {
			rendered.Store(chartDir+"|"+name, true)
		}
	}
}

// templatesNeverRendered lists template files of every chart under test that no test rendered.
func templatesNeverRendered() []string {
	var missing []string
	for _, dir := range chartsWithDependencies() {
		files, _ := filepath.Glob(filepath.Join(dir, "templates", "*.yaml"))
		for _, f := range files {
			name := "templates/" + filepath.Base(f)
			if _, ok := rendered.Load(dir + "|" + name); !ok {
				rel, _ := filepath.Rel(repoRoot, f)
				missing = append(missing, rel)
			}
		}
	}
	sort.Strings(missing)
	return missing
}

// Rendered is one render of a chart: the manifests by template file and the decoded documents.
type Rendered struct {
	Manifests map[string]string // "templates/x.yaml" -> text
	Docs      []Doc
}

// renderSDK renders chartDir in-process with the Helm SDK, the way `helm template` does.
// valuesYAML is parsed exactly as a values file given with -f.
func renderSDK(t testing.TB, chartDir, valuesYAML string) (*Rendered, error) {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	require.NoError(t, err, "load chart %s", chartDir)
	vals, err := chartutil.ReadValues([]byte(valuesYAML))
	require.NoError(t, err, "values are not YAML:\n%s", valuesYAML)
	return renderLoaded(t, chartDir, chrt, vals)
}

func renderLoaded(t testing.TB, chartDir string, chrt *chart.Chart, vals chartutil.Values) (*Rendered, error) {
	manifests, err := renderManifests(chartDir, chrt, vals)
	if err != nil {
		return nil, err
	}
	return decodeManifests(t, manifests), nil
}

// renderManifests is the render alone, keyed by template file; benchmarks time this.
// It is package proxykit's Render, the one proxytest uses.
func renderManifests(chartDir string, chrt *chart.Chart, vals chartutil.Values) (map[string]string, error) {
	return renderManifestsAs(chartDir, chrt, vals, releaseName, namespace)
}

// renderManifestsAs is renderManifests for any release name and namespace.
func renderManifestsAs(chartDir string, chrt *chart.Chart, vals chartutil.Values, release, ns string) (map[string]string, error) {
	out, err := proxykit.Render(chrt, vals, release, ns)
	if err != nil {
		return nil, err
	}
	manifests := map[string]string{}
	prefix := chrt.Name() + "/"
	for name, text := range out {
		if strings.HasPrefix(name, prefix+"templates/") && !strings.HasSuffix(name, "NOTES.txt") {
			manifests[strings.TrimPrefix(name, prefix)] = text
		}
	}
	recordRendered(chartDir, manifests)
	return manifests, nil
}

// mustRenderSDK renders and fails the test on a render error.
func mustRenderSDK(t testing.TB, chartDir, valuesYAML string) *Rendered {
	t.Helper()
	r, err := renderSDK(t, chartDir, valuesYAML)
	require.NoError(t, err, "render %s with values:\n%s", chartDir, valuesYAML)
	return r
}

// renderCLI renders chartDir with the helm CLI through terratest (`helm template -f values.yaml`),
// as release "test" in the test namespace.
func renderCLI(t *testing.T, chartDir, valuesYAML string) (*Rendered, error) {
	t.Helper()
	return renderCLIRelease(t, chartDir, releaseName, namespace, valuesYAML)
}

// renderCLIRelease is renderCLI for any release name and namespace.
func renderCLIRelease(t *testing.T, chartDir, release, ns, valuesYAML string) (*Rendered, error) {
	t.Helper()
	valuesFile := filepath.Join(t.TempDir(), "values.yaml")
	require.NoError(t, os.WriteFile(valuesFile, []byte(valuesYAML), 0o600))
	options := &helm.Options{
		ValuesFiles:    []string{valuesFile},
		KubectlOptions: k8s.NewKubectlOptions("", "", ns),
		Logger:         logger.Discard,
	}
	out, err := helm.RenderTemplateE(t, options, chartDir, release, nil)
	if err != nil {
		return nil, err
	}
	manifests := splitBySource(out)
	recordRendered(chartDir, manifests)
	return decodeManifests(t, manifests), nil
}

// splitBySource groups `helm template` output by its "# Source:" comments.
func splitBySource(out string) map[string]string {
	manifests := map[string]string{}
	locs := sourceLine.FindAllStringSubmatchIndex(out, -1)
	for i, loc := range locs {
		end := len(out)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		name := out[loc[2]:loc[3]]
		body := strings.TrimSuffix(strings.TrimSpace(out[loc[1]:end]), "---")
		manifests[name] += "\n---\n" + body
	}
	return manifests
}

// valuesYAML turns a Go map into values-file text, for tests that build values in code.
func valuesYAML(t testing.TB, v map[string]any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// renderError renders with values that must fail, and returns the error text.
func renderError(t testing.TB, chartDir, values string) string {
	t.Helper()
	_, err := renderSDK(t, chartDir, values)
	require.Error(t, err, "render must fail for values:\n%s", values)
	return err.Error()
}

// helmCommand runs the helm CLI with args through terratest and returns its combined output.
func helmCommand(t *testing.T, cmd string, args ...string) (string, error) {
	t.Helper()
	return helm.RunHelmCommandAndGetOutputE(t, &helm.Options{Logger: logger.Discard}, cmd, args...)
}
