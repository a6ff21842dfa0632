package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

func TestRuleCredentialsBesideRelay(t *testing.T) {
	withRelay := testCluster
	withRelay.Relay = "http://relay.proxy-relay.svc:3128"
	secretRefs := `- {name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: proxy-credentials, key: HTTP_PROXY}}}
- {name: HTTPS_PROXY, valueFrom: {secretKeyRef: {name: proxy-credentials, key: HTTPS_PROXY}}}
- {name: NO_PROXY, value: "` + goodNoProxy + `"}`
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: proxy-credentials}\nstringData: {HTTP_PROXY: \"http://svc:s3cret@proxy.corp:3128\", HTTPS_PROXY: \"http://svc:s3cret@proxy.corp:3128\"}"
	for name, tc := range map[string]struct {
		doc  string
		want string // "" for no finding of this rule
	}{
		"the relay, no credentials": {pod(plainEnv(withRelay.Relay, goodNoProxy), ""), ""},
		"password in a plain value": {pod(plainEnv("http://svc:s3cret@proxy.corp:3128", goodNoProxy), ""), "HTTP_PROXY, HTTPS_PROXY, http_proxy, https_proxy read the corporate proxy's credentials although the cluster has a relay (http://relay.proxy-relay.svc:3128)"},
		"password in a Secret":      {pod(secretRefs, "", secret), "HTTP_PROXY, HTTPS_PROXY read"},
		"a Secret the render lacks": {pod(secretRefs, ""), "HTTP_PROXY (from Secret/proxy-credentials), HTTPS_PROXY (from Secret/proxy-credentials) read"},
		"no proxy at all":           {pod("", ""), ""},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := manifest.Parse(tc.doc)
			require.NoError(t, err)
			var got []Finding
			for _, f := range Check(m, WithCluster(withRelay)) {
				if f.Rule == RuleCredentialsBesideRelay {
					got = append(got, f)
				}
				assert.NotContains(t, f.Message, "s3cret")
			}
			if tc.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Contains(t, got[0].Message, tc.want)
		})
	}
	t.Run("no relay, no finding", func(t *testing.T) {
		m, err := manifest.Parse(pod(plainEnv("http://svc:s3cret@proxy.corp:3128", goodNoProxy), ""))
		require.NoError(t, err)
		for _, f := range Check(m, WithCluster(testCluster)) {
			assert.NotEqual(t, RuleCredentialsBesideRelay, f.Rule)
		}
	})
}
