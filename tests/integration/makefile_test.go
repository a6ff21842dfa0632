//go:build integration

package integration

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
		case strings.HasPrefix(rel, "tests"):
			// the integration suites and their harness share one go test line, with the build tag
			assert.Regexp(t, `(?m)^SUITE_FLAGS = -tags integration `, string(makefile), "the suites' flags carry the build tag")
			assert.Regexp(t, `\$\(GO\) test -json -count=1 \$\(SUITE_FLAGS\)( \./[\w/]+/)* \./`+regexp.QuoteMeta(rel)+`/( \./[\w/]+/)*[\n;]`, string(makefile), "make test runs %s with the integration build tag", pkg)
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

// TestEveryIntegrationTestHasAnArea: the Makefile's SUITE_<area> patterns
// (`make suite AREA=node`) cover every test of this package, each in exactly
// one area, so that a newcomer finds a suite by what it proves.
func TestEveryIntegrationTestHasAnArea(t *testing.T) {
	harness.Parallel(t)
	makefile, err := os.ReadFile(fixture.Path("Makefile"))
	require.NoError(t, err)
	areas := map[string]*regexp.Regexp{}
	for _, m := range regexp.MustCompile(`(?m)^SUITE_(\w+) := (.*)$`).FindAllStringSubmatch(string(makefile), -1) {
		areas[m[1]] = regexp.MustCompile(strings.ReplaceAll(m[2], "$$", "$"))
	}
	require.Len(t, areas, 6, "admission, audit, inject, clients, node, distribution")
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	tests := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range testFunc.FindAllStringSubmatch(string(text), -1) {
			tests++
			var in []string
			for area, re := range areas {
				if re.MatchString(m[1]) {
					in = append(in, area)
				}
			}
			assert.Len(t, in, 1, "%s (%s) is in areas %v: name it in one SUITE_ pattern of the Makefile", m[1], f, in)
		}
	}
	assert.Greater(t, tests, 40)
}
