package inject

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The JVM keeps the last of two -D flags: the proxy's flags go before a
// container's own value, and after it with override; once either way.
func TestJoinJava(t *testing.T) {
	const flags = "-Dhttp.proxyHost=p -Dhttp.proxyPort=3128"
	for _, c := range []struct {
		own      any
		override bool
		want     string
		changed  bool
	}{
		{"-Xmx64m", false, flags + " -Xmx64m", true},
		{"-Xmx64m", true, "-Xmx64m " + flags, true},
		{"", false, flags, true},
		{nil, true, flags, true},
		{flags + " -Xmx64m", false, "", false},
		{"-Xmx64m " + flags, true, "", false},
		{flags + " -Xmx64m", true, flags + " -Xmx64m " + flags, true}, // injected before override was set: the proxy's now last
	} {
		got, changed := joinJava(c.own, flags, c.override)
		assert.Equal(t, c.changed, changed, "%v %v", c.own, c.override)
		assert.Equal(t, c.want, got, "%v %v", c.own, c.override)
	}
}
