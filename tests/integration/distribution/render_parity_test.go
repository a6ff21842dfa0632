//go:build integration

package distribution

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestCLIAndSDKRenderTheSame keeps the fast in-process renderer honest: the helm
// CLI that users run must produce the same objects from the same values.
func TestCLIAndSDKRenderTheSame(t *testing.T) {
	harness.Parallel(t)
	for name, values := range map[string]string{
		"plain":       fixture.PlainProxy + "defaults: {env: [{name: TZ, value: UTC}, {name: PORT, value: 8080}]}\n",
		"credentials": fixture.CredentialValues(t, nil),
		"off":         "",
	} {
		t.Run(name, func(t *testing.T) {
			cli, err := fixture.RenderCLI(t, fixture.Fixture, values)
			require.NoError(t, err)
			sdk := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
			assert.Equal(t, itest.ObjectsByName(t, sdk), itest.ObjectsByName(t, cli))
		})
	}
}
