package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestHelpersNeedTheRootContext calls every public helper with `.` inside
// `with` and `range`, the mistake that used to drop the proxy silently.
func TestHelpersNeedTheRootContext(t *testing.T) {
	helpers := []string{
		"proxykit.generateEnv", "proxykit.proxy.env", "proxykit.proxy.noProxy", "proxykit.proxy.config",
		"proxykit.proxy.secret", "proxykit.proxy.secretName", "proxykit.proxy.enabled", "proxykit.proxy.hasCredentials",
		"proxykit.systemd.dropIn", "proxykit.systemd.envFile", "proxykit.certManager.values", "proxykit.cluster.facts",
		"proxykit.trust.env", "proxykit.trust.volumes", "proxykit.trust.volumeMounts",
	}
	for _, helper := range helpers {
		for _, mode := range []string{"with", "range"} {
			t.Run(helper+"/"+mode, func(t *testing.T) {
				values := fixture.WithNetworks(fmt.Sprintf("proxy: {http: \"http://proxy:3128\"}\ncontextCheck: {helper: %s, mode: %s}", helper, mode))
				err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(values))
				assert.Contains(t, err, helper+":")
				assert.Contains(t, err, "pass `$`")
				assertNoTemplateCrash(t, err)
			})
		}
		t.Run(helper+"/root", func(t *testing.T) {
			values := fixture.WithNetworks(fmt.Sprintf("proxy: {http: \"http://proxy:3128\"}\ncontextCheck: {helper: %s, mode: root}", helper))
			out := proxytest.Get[corev1.Secret](t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)), fixture.Release+"-context-check").StringData["output"]
			if helper != "proxykit.proxy.secret" && helper != "proxykit.proxy.hasCredentials" && !strings.HasPrefix(helper, "proxykit.trust.") {
				assert.NotEmpty(t, out, "with $ the helper renders its output")
			}
		})
	}
}
