package main

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Flags become relay.Options; a bad --allow names the flag, and a bare
// address is a one-address network.
func TestComplete(t *testing.T) {
	o := &options{}
	cmd := commandFor(o)
	require.NoError(t, cmd.Flags().Parse([]string{"--upstream", "http://proxy.corp:8080", "--scheme", "ntlm",
		"--credentials-dir", "/etc/relay", "--allow", "10.244.0.0/16,192.168.1.7", "--allow", "fd00:10:244::/56", "--no-upstream", ".corp,10.0.0.0/8", "--idle-timeout", "90s", "--max-connections", "50"}))
	ro, err := o.complete()
	require.NoError(t, err)
	assert.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("192.168.1.7/32"), netip.MustParsePrefix("fd00:10:244::/56")}, ro.Allow)
	assert.Equal(t, []string{".corp", "10.0.0.0/8"}, ro.NoUpstream)
	assert.EqualValues(t, "ntlm", ro.Scheme)
	assert.Equal(t, 90*time.Second, ro.IdleTimeout)
	assert.Equal(t, 50, ro.MaxConnections)

	o.allow = []string{"10.0.0.0/33"}
	_, err = o.complete()
	assert.ErrorContains(t, err, "--allow")
}

// A bad upstream stops the command before it listens, naming the option and
// never echoing user-info.
func TestRunRefusesBadOptions(t *testing.T) {
	cmd := newCommand()
	cmd.SetArgs([]string{"--upstream", "http://svc:hunter2@proxy:8080", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"})
	cmd.SetOut(new(nopWriter))
	cmd.SetErr(new(nopWriter))
	err := cmd.Execute()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "upstream")
	assert.NotContains(t, err.Error(), "hunter2")
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }
