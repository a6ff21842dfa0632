//go:build integration

package distribution

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/internal/testfs"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// packageDist runs `make package` into a temporary dist folder and returns it.
func packageDist(t *testing.T) string {
	t.Helper()
	dist := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command("make", "--no-print-directory", "package", "DIST="+dist)
	cmd.Dir = fixture.Root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make package:\n%s", out)
	return dist
}

// consumerOutside writes examples/consumer-app into a directory outside the
// repository, depending on proxykit from repository with a version range.
func consumerOutside(t *testing.T, repository string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "consumer-app")
	testfs.CopyTree(t, fixture.ConsumerApp, dir, "charts")
	chartYAML := filepath.Join(dir, "Chart.yaml")
	b, err := os.ReadFile(chartYAML)
	require.NoError(t, err)
	text := strings.Replace(string(b), "    version: 0.19.0\n    repository: file://../../library/proxykit", "    version: \"~0.19.0\"\n    repository: "+repository, 1)
	require.NotEqual(t, string(b), text, "examples/consumer-app/Chart.yaml changed; update this test")
	require.NoError(t, os.WriteFile(chartYAML, []byte(text), 0o644))
	return dir
}

// objects renders `helm template` output into comparable objects.
func objects(t *testing.T, manifests string) []map[string]any {
	t.Helper()
	m, err := proxytest.Parse(manifests)
	require.NoError(t, err)
	var out []map[string]any
	for _, o := range m.Objects {
		out = append(out, o.Content)
	}
	sort.Slice(out, func(i, j int) bool {
		return fmt.Sprint(out[i]["kind"], out[i]["metadata"]) < fmt.Sprint(out[j]["kind"], out[j]["metadata"])
	})
	return out
}

// TestDistribution: `make package` writes versioned archives and an index;
// a consumer outside the repository depends on the library from a real OCI
// registry and from an HTTP repository on loopback, and renders the same
// objects as the example in the repository; every packaged chart installs as is.
func TestDistribution(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	dist := packageDist(t)
	var archives []string
	for _, name := range []string{"proxykit", "chart-operator", "cluster-proxy", "proxy-policies", "http-proxy", "proxy-relay"} {
		archive := filepath.Join(dist, name+"-0.19.0.tgz")
		require.FileExists(t, archive)
		archives = append(archives, archive)
	}
	index, err := os.ReadFile(filepath.Join(dist, "index.yaml"))
	require.NoError(t, err)
	for _, name := range []string{"proxykit", "chart-operator", "cluster-proxy", "proxy-policies", "http-proxy", "proxy-relay"} {
		assert.Contains(t, string(index), "- "+name+"-0.19.0.tgz", "index.yaml lists %s", name)
	}

	values := fixture.Path("examples", "providers", "eks.yaml")
	want := objects(t, itest.NewHelmHome(t).Run(t, fixture.Root, "template", "shop", fixture.ConsumerApp, "-f", values))

	t.Run("OCI registry", func(t *testing.T) {
		port := harness.FreePort(t)
		harness.StartProcess(t, t.TempDir(), "registry", fmt.Sprintf("127.0.0.1:%d", port))
		waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/v2/", port))
		h := itest.NewHelmHome(t)
		registry := fmt.Sprintf("oci://127.0.0.1:%d/proxykit", port)
		publish := exec.Command("make", "--no-print-directory", "publish", "DIST="+dist, "REGISTRY="+registry, "PUSH_FLAGS=--plain-http")
		publish.Dir, publish.Env = fixture.Root, h.Env
		out, err := publish.CombinedOutput()
		require.NoError(t, err, "make publish:\n%s", out)
		assert.Equal(t, len(archives), strings.Count(string(out), "Pushed: 127.0.0.1:"), "every archive is pushed:\n%s", out)
		h.Run(t, "", "show", "chart", registry+"/proxykit", "--version", "0.19.0", "--plain-http")
		consumer := consumerOutside(t, registry)
		h.Run(t, consumer, "dependency", "update", "--plain-http", ".")
		require.FileExists(t, filepath.Join(consumer, "charts", "proxykit-0.19.0.tgz"))
		got := objects(t, h.Run(t, consumer, "template", "shop", ".", "-f", values))
		assert.True(t, reflect.DeepEqual(want, got), "the consumer renders what the in-repository example renders")

		// a chart pulled from the registry installs without a dependency step: see the install test below
		pulled := t.TempDir()
		h.Run(t, pulled, "pull", registry+"/proxy-policies", "--version", "0.19.0", "--plain-http")
		require.FileExists(t, filepath.Join(pulled, "proxy-policies-0.19.0.tgz"))
	})

	t.Run("HTTP repository", func(t *testing.T) {
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		server := httptest.NewUnstartedServer(http.FileServer(http.Dir(dist)))
		server.Listener.Close()
		server.Listener = listener
		server.Start()
		defer server.Close()
		h := itest.NewHelmHome(t)
		h.Run(t, "", "repo", "add", "proxykit", server.URL)
		out := h.Run(t, "", "search", "repo", "proxykit/", "--versions")
		for _, name := range []string{"proxykit/proxykit", "proxykit/chart-operator", "proxykit/cluster-proxy", "proxykit/proxy-policies", "proxykit/http-proxy", "proxykit/proxy-relay"} {
			assert.Contains(t, out, name)
		}
		consumer := consumerOutside(t, server.URL)
		h.Run(t, consumer, "dependency", "update", ".")
		got := objects(t, h.Run(t, consumer, "template", "shop", ".", "-f", values))
		assert.True(t, reflect.DeepEqual(want, got), "the consumer renders what the in-repository example renders")
	})

	t.Run("publish needs an OCI registry", func(t *testing.T) {
		publish := exec.Command("make", "--no-print-directory", "publish", "DIST="+t.TempDir(), "REGISTRY=registry.corp.example/proxykit")
		publish.Dir = fixture.Root
		out, err := publish.CombinedOutput()
		require.Error(t, err)
		assert.Contains(t, string(out), "set REGISTRY=oci://HOST/PATH")
	})

	t.Run("every packaged chart installs without a dependency step", func(t *testing.T) {
		cp := harness.StartControlPlane(t)
		objects := itest.NewObjectClient(t, cp)
		itest.ApplyPolicyCRDs(t, objects)
		h := itest.NewHelmHome(t)
		kube := []string{"--kubeconfig", cp.Kubeconfig}
		for _, rel := range []struct{ name, ns, archive, values string }{
			{"pp", "proxykit", "proxy-policies-0.19.0.tgz", fixture.Path("charts", "proxy-policies", "ci", "plain-values.yaml")},
			{"cp", "org-wc1", "cluster-proxy-0.19.0.tgz", fixture.Path("charts", "cluster-proxy", "ci", "credentials-values.yaml")},
			{"co", "giantswarm", "chart-operator-0.19.0.tgz", fixture.Path("charts", "chart-operator", "ci", "bootstrap-values.yaml")},
			{"hp", "kube-system", "http-proxy-0.19.0.tgz", fixture.Path("charts", "http-proxy", "ci", "upstream-values.yaml")},
			{"pr", "proxy-relay", "proxy-relay-0.19.0.tgz", fixture.Path("charts", "proxy-relay", "ci", "ntlm-values.yaml")},
		} {
			out := h.Run(t, dist, append([]string{"install", rel.name, rel.archive, "--namespace", rel.ns, "--create-namespace", "-f", rel.values, "--wait=false"}, kube...)...)
			assert.Contains(t, out, "STATUS: deployed", "%s", rel.archive)
			h.Run(t, dist, append([]string{"uninstall", rel.name, "--namespace", rel.ns}, kube...)...)
		}
	})
}

// waitHTTP waits until url answers, for servers started by a test.
func waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer within 30s", url)
}
