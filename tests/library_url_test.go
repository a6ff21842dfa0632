package tests

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestURLSplit: proxykit.url.split (_url.tpl) takes a proxy URL apart at the last
// "@", for the validator, the Flux Secret and the http-proxy chart's upstream.
func TestURLSplit(t *testing.T) {
	cases := []struct{ url, scheme, userInfo, hostPort string }{
		{"http://proxy.corp:3128", "http", "", "proxy.corp:3128"},
		{"https://proxy.corp/", "https", "", "proxy.corp"},
		{"http://user:p%40ss@proxy.corp:3128", "http", "user:p%40ss", "proxy.corp:3128"},
		{"http://user:a@b@[fd00::1]:3128", "http", "user:a@b", "[fd00::1]:3128"},
		{"HTTP://u@proxy", "HTTP", "u", "proxy"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			values := fixture.ValuesYAML(t, map[string]any{"urlSplit": tc.url})
			var got map[string]string
			require.NoError(t, json.Unmarshal([]byte(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["urlSplit"]), &got))
			assert.Equal(t, map[string]string{"scheme": tc.scheme, "userInfo": tc.userInfo, "hostPort": tc.hostPort}, got)
		})
	}
}
