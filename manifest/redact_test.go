package manifest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/manifest"
)

// One pattern finds and hides user-info, in any scheme.
func TestRedactUserInfo(t *testing.T) {
	assert.Equal(t, "proxy http://***@proxy:3128 and socks5://***@s:1080, not http://host/p@x",
		manifest.RedactUserInfo("proxy http://u:Zq'x@proxy:3128 and socks5://a@s:1080, not http://host/p@x"))
	// a password with "@" is hidden whole: Go and Python read user-info to the last "@"
	assert.Equal(t, "postgres://***@db:5432/app", manifest.RedactUserInfo("postgres://app:P@ssw0rd@db:5432/app"))
	assert.True(t, manifest.HasUserInfo("HTTP_PROXY=http://u:p@proxy:3128"))
	assert.False(t, manifest.HasUserInfo("http://proxy:3128/path@x"))
}

func TestSecretName(t *testing.T) {
	for _, name := range []string{"DB_PASSWORD", "password", "esToken", "client-secret", "api_key", "credentials", "ES_PASS", "AWS_SECRET_ACCESS_KEY"} {
		assert.True(t, manifest.SecretName(name), name)
	}
	for _, name := range []string{"TOKEN_SERVICE_URL", "secretsBackendUrl", "ES_HOST", "url", "PASSWORD_FILE"} {
		assert.False(t, manifest.SecretName(name), name)
	}
}
