//go:build integration

package integration

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestMakeTestRunsEveryPackage: `make test` names every package of the module; a
// new package must join its list.
func TestMakeTestRunsEveryPackage(t *testing.T) {
	makefile, err := os.ReadFile(fixture.Path("Makefile"))
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-tags", "integration", "./...")
	cmd.Dir = fixture.Root
	out, err := cmd.Output()
	require.NoError(t, err)
	unit := regexp.MustCompile(`(?m)^UNIT_PACKAGES := (.*)$`).FindStringSubmatch(string(makefile))
	require.NotNil(t, unit, "the Makefile lists its packages in UNIT_PACKAGES")
	units := " " + unit[1] + " "
	assert.Regexp(t, `(?m)^test:.*\n(?:\t.*\n)*\t\$\(TESTTIMES\) -record \$\(BIN\)/test-times.json -- \$\(GO\) test -json -count=1 -race \$\(UNIT_PACKAGES\)[ &]`, string(makefile), "make test runs UNIT_PACKAGES")
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/proxykit/proxykit"), "/")
		switch {
		case rel == "":
			assert.Contains(t, units, " . ", "the root package")
		case rel == "tests/fixture": // no tests of its own: the two suites below use it
		case strings.HasPrefix(rel, "tests"):
			// the render tests and the integration suites share one go test line, with the build tag
			assert.Regexp(t, `\$\(GO\) test -json -count=1 -tags integration -parallel 4 -timeout \$\(TEST_TIMEOUT\)( \./[\w/]+/)* \./`+regexp.QuoteMeta(rel)+`/( \./[\w/]+/)*[\n;]`, string(makefile), "make test runs %s with the integration build tag", pkg)
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
