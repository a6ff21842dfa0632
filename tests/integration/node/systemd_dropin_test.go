//go:build integration

package node

import (
	"net/url"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/harness/systemdenv"
)

// The systemd drop-in the nodes get, read by systemd's own parser
// (`systemd-analyze verify`, which at debug level prints the unit as loaded):
// hostile passwords that a proxy URL may carry (%-escapes, specifiers, quotes,
// $, backslash-free shell syntax) arrive byte for byte in every variable.
func TestSystemdDropInThroughSystemdsParser(t *testing.T) {
	harness.Parallel(t)
	_, err := exec.LookPath("systemd-analyze")
	require.NoError(t, err, "systemd-analyze is missing: `make debian-packages` installs systemd")
	refused, read := 0, 0
	defer func() {
		t.Logf("%d passwords refused naming the key, %d read by systemd byte for byte", refused, read)
		assert.NotZero(t, read)
	}()
	for _, password := range []string{"plain", "Zq%40w%25", "%h%n%%", "$(touch x)", "a'b", "x;y&z", "${HOME}", "100%25", "*!~", "%%", "a\\b"} {
		t.Run(url.QueryEscape(password), func(t *testing.T) {
			proxyURL := "http://svc-user:" + password + "@proxy.corp.example:3128"
			values := map[string]any{
				"proxy":   map[string]any{"http": proxyURL, "https": proxyURL, "runtimes": []any{"java", "node"}},
				"cluster": map[string]any{"podCIDRs": []any{"10.244.0.0/16"}, "serviceCIDRs": []any{"10.96.0.0/12"}, "apiServer": "10.96.0.1"},
			}
			answers, err := proxykit.Ask(values, "", "", proxykit.Call{Helper: "proxykit.systemd.dropIn"})
			dropIn := answers["proxykit.systemd.dropIn"]
			if err != nil { // a URL no client reads alike: refused, naming the key, never shown
				refused++
				assert.Contains(t, err.Error(), "proxy.http")
				assert.NotContains(t, err.Error(), password)
				return
			}
			read++
			noProxy := fixture.Include(t, values, proxykit.Call{Helper: "proxykit.proxy.noProxy"})
			javaOptions := fixture.Include(t, values, proxykit.Call{Helper: "proxykit.java.options"})

			got, log := systemdenv.Environment(t, dropIn)
			want := map[string]string{"HTTP_PROXY": proxyURL, "HTTPS_PROXY": proxyURL, "NO_PROXY": noProxy,
				"http_proxy": proxyURL, "https_proxy": proxyURL, "no_proxy": noProxy, "JAVA_TOOL_OPTIONS": javaOptions, "NODE_USE_ENV_PROXY": "1"}
			assert.Equal(t, want, got, "systemd reads every variable byte for byte:\n%s", dropIn)
			assert.NotContains(t, log, "Failed to resolve", "no specifier left unescaped")
		})
	}
}
