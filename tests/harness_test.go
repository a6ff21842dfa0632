package tests

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/gruntwork-io/terratest/modules/k8s"
	"github.com/gruntwork-io/terratest/modules/logger"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
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

func recordRendered(chartDir string, m *proxytest.Manifests) {
	for _, o := range m.Objects {
		rendered.Store(chartDir+"|"+o.Source, true)
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

// render renders a chart of this repository through proxytest, the package chart
// authors use, with the library of this work tree (embedded) and release "test"
// in the test namespace. valuesYAML is read as a values file given with -f.
func renderSDK(t testing.TB, chartDir, valuesYAML string) (*proxytest.Manifests, error) {
	t.Helper()
	return renderAs(chartDir, releaseName, namespace, valuesYAML)
}

// renderAs is renderSDK for any release name and namespace.
func renderAs(chartDir, release, ns, valuesYAML string) (*proxytest.Manifests, error) {
	m, err := proxytest.RenderE(chartDir, proxytest.Values(valuesYAML), proxytest.Release(release, ns), proxytest.EmbeddedLibrary())
	if err != nil {
		return nil, err
	}
	recordRendered(chartDir, m)
	return m, nil
}

// mustRenderSDK renders and fails the test on a render error.
func mustRenderSDK(t testing.TB, chartDir, valuesYAML string) *proxytest.Manifests {
	t.Helper()
	m, err := renderSDK(t, chartDir, valuesYAML)
	require.NoError(t, err, "render %s with values:\n%s", chartDir, valuesYAML)
	return m
}

// renderCLI renders chartDir with the helm CLI through terratest (`helm template -f values.yaml`),
// as release "test" in the test namespace, and parses the output with proxytest.Parse.
func renderCLI(t *testing.T, chartDir, valuesYAML string) (*proxytest.Manifests, error) {
	t.Helper()
	return renderCLIRelease(t, chartDir, releaseName, namespace, valuesYAML)
}

// renderCLIRelease is renderCLI for any release name and namespace.
func renderCLIRelease(t *testing.T, chartDir, release, ns, valuesYAML string) (*proxytest.Manifests, error) {
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
	m, err := proxytest.Parse(out)
	if err != nil {
		return nil, err
	}
	recordRendered(chartDir, m)
	return m, nil
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
