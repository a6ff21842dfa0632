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
	assert.True(t, manifest.HasUserInfo("HTTP_PROXY=http://u:p@proxy:3128"))
	assert.False(t, manifest.HasUserInfo("http://proxy:3128/path@x"))
}
