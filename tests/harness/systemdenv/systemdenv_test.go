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

// systemd's reading of an environment file: double quotes and backslash
// escapes as EnvironmentFile= reads them, export refused, specifiers literal.
func TestEnvironmentFile(t *testing.T) {
	env := EnvironmentFile(t, "A=\"http://u:it's\\\"q\\\\%40@p:3128\"\nexport B=1\nC=plain\nD=\"%h\"\n")
	assert.Equal(t, `http://u:it's"q\%40@p:3128`, env["A"])
	assert.NotContains(t, env, "B", "systemd refuses export")
	assert.NotContains(t, env, "export B")
	assert.Equal(t, "plain", env["C"])
	assert.Equal(t, "%h", env["D"], "no specifiers in an environment file")
}
