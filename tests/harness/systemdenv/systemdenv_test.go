//go:build integration

package systemdenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// systemd's own reading of a drop-in: quotes end at their pair, a backslash
// escapes, a percent sign is a specifier (%% is one %), and a line systemd
// rejects is named in its log.
func TestEnvironment(t *testing.T) {
	env, log := Environment(t, "[Service]\nEnvironment=\"A=http://u:p%%40w@proxy:3128\" \"B=x y\"\nEnvironment=C=\\\"q\\\"\nEnvironment=\"D=%Z\"\n")
	assert.Equal(t, "http://u:p%40w@proxy:3128", env["A"])
	assert.Equal(t, "x y", env["B"])
	assert.Equal(t, `"q"`, env["C"])
	assert.NotContains(t, env, "D", "an unknown specifier: systemd refuses the line")
	assert.Contains(t, log, "%Z")
}
