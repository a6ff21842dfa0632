//go:build integration

package distribution

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestMakeTestRunsEveryPackage: `make test` names every package of the module; a
// new package must join its list.
func TestMakeTestRunsEveryPackage(t *testing.T) {
	harness.Parallel(t)
	makefile, err := os.ReadFile(fixture.Path("Makefile"))
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-tags", "integration", "./...")
	cmd.Dir = fixture.Root
	out, err := cmd.Output()
	require.NoError(t, err)
	unit := regexp.MustCompile(`(?m)^UNIT_PACKAGES := (.*)$`).FindStringSubmatch(string(makefile))
	require.NotNil(t, unit, "the Makefile lists its packages in UNIT_PACKAGES")
	units := " " + unit[1] + " "
	assert.Regexp(t, `(?m)^test:.*\n(?:\t.*\n)*\t(?:GOGC=\$\(TEST_GOGC\) )?\$\(TESTTIMES\) -record \$\(BIN\)/test-times.json -- \$\(GO\) test -json -race \$\(UNIT_PACKAGES\)[ &]`, string(makefile), "make test runs UNIT_PACKAGES, go test's cache on")
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/proxykit/proxykit"), "/")
		switch {
		case rel == "":
			assert.Contains(t, units, " . ", "the root package")
		case rel == "tests/fixture": // no tests of its own: the two suites below use it
		case rel == "tests":
			// the render tests read nothing the cache cannot see: cached as the packages are
			assert.Regexp(t, `\$\(GO\) test -json \./tests/ &`, string(makefile), "make test runs the render tests, go test's cache on")
		case strings.HasPrefix(rel, "tests/integration/"):
			// every area (and their helpers) through one pattern on the suites' line
			assert.Regexp(t, `\$\(GO\) test -json -count=1 \$\(SUITE_FLAGS\)( \./[\w/.]+)* \./tests/integration/\.\.\.[\n;]`, string(makefile), "make test runs %s with the integration build tag", pkg)
		case strings.HasPrefix(rel, "tests"):
			// the integration suites and their harness share one go test line, with the build tag
			assert.Regexp(t, `(?m)^SUITE_FLAGS = -tags integration `, string(makefile), "the suites' flags carry the build tag")
			assert.Regexp(t, `\$\(GO\) test -json -count=1 \$\(SUITE_FLAGS\)( \./[\w/.]+)* \./`+regexp.QuoteMeta(rel)+`/( \./[\w/.]+)*[\n;]`, string(makefile), "make test runs %s with the integration build tag", pkg)
		default:
			top := strings.SplitN(rel, "/", 2)[0]
			assert.Contains(t, units, " ./"+top+"/... ", "make test runs %s", pkg)
		}
	}
}

// TestHelmCLIKnowsTheKubernetesVersion: the helm CLI that `make` builds reports
// the Kubernetes version of go.mod's client-go, the one proxytest renders for,
// and so renders charts that need a recent Kubernetes (Kyverno's wants >=1.25),
// as a released helm does; built without Helm's flags it said v1.20.0.
func TestHelmCLIKnowsTheKubernetesVersion(t *testing.T) {
	harness.Parallel(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(dir+"/templates", 0o755))
	require.NoError(t, os.WriteFile(dir+"/Chart.yaml", []byte("apiVersion: v2\nname: modern\nversion: 0.1.0\nkubeVersion: \">=1.25.0-0\"\n"), 0o644))
	require.NoError(t, os.WriteFile(dir+"/templates/cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v}\ndata: {kube: {{ .Capabilities.KubeVersion.Version | quote }}}\n"), 0o644))
	out, err := fixture.HelmCommand(t, "template", dir)
	require.NoError(t, err, out)
	assert.Contains(t, out, "kube: \""+proxykit.DefaultKubeVersion()+"\"")
	version, err := fixture.HelmCommand(t, "version", "--short")
	require.NoError(t, err)
	assert.Regexp(t, `^v3\.\d+\.\d+`, version, "helm reports the version go.mod pins")
}

// TestEveryAreaIsAPackageTheDocsName: every test of the integration suites is
// in an area's package, each of which says in its doc comment what it proves
// and how to run only it, and docs/testing.md's table lists every area, so that
// a newcomer finds a suite by what it proves.
func TestEveryAreaIsAPackageTheDocsName(t *testing.T) {
	harness.Parallel(t)
	loose, err := filepath.Glob(fixture.Path("tests", "integration", "*.go"))
	require.NoError(t, err)
	assert.Empty(t, loose, "tests/integration holds only areas: put a test in the package of what it proves")

	docs, err := os.ReadFile(fixture.Path("docs", "testing.md"))
	require.NoError(t, err)
	_, table, found := strings.Cut(string(docs), "| area | what it proves |")
	require.True(t, found, "docs/testing.md has a table of areas")
	table, _, _ = strings.Cut(table, "\n\n")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\| ").FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	dirs, err := filepath.Glob(fixture.Path("tests", "integration", "*", "doc.go"))
	require.NoError(t, err)
	areas := 0
	for _, doc := range dirs {
		area := filepath.Base(filepath.Dir(doc))
		if area == "itest" {
			continue // the areas' shared helpers
		}
		areas++
		text, err := os.ReadFile(doc)
		require.NoError(t, err)
		assert.Contains(t, string(text), "// Package "+area+" is the integration suites' "+area+" area: ", "%s says what it proves", doc)
		assert.Contains(t, string(text), "`make suite AREA="+area+"`", "%s says how to run only it", doc)
		assert.True(t, listed[area], "docs/testing.md's table of areas lists %s", area)
		delete(listed, area)
		tests, err := filepath.Glob(filepath.Join(filepath.Dir(doc), "*_test.go"))
		require.NoError(t, err)
		assert.Greater(t, len(tests), 1, "%s has tests beside its TestMain", area)
	}
	assert.Equal(t, 6, areas, "admission, audit, inject, clients, node, distribution")
	assert.Empty(t, listed, "docs/testing.md lists areas that are no package")
}
