package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/harness/slots"
)

// The command run under -slots finds the server in its environment, and a
// test binary it starts gets a slot there; stop removes the socket.
func TestSlotsAreServedToTheCommand(t *testing.T) {
	env, stop, err := serveSlots(1, "")
	require.NoError(t, err)
	require.Len(t, env, 1)
	name, socket, _ := strings.Cut(env[0], "=")
	assert.Equal(t, slots.SocketVar, name)

	file := filepath.Join(t.TempDir(), "times.json")
	assert.Equal(t, 0, run(file, []string{"sh", "-c", `test -S "$` + slots.SocketVar + `"`}, env), "the command sees the socket")
	release, err := slots.Dial(socket, slots.Test{Package: "p", Name: "TestX"})
	require.NoError(t, err)
	release()

	stop()
	_, err = os.Stat(socket)
	assert.True(t, os.IsNotExist(err), "stop removes the socket")
}

func TestNoSlotsNoServer(t *testing.T) {
	env, stop, err := serveSlots(0, "")
	require.NoError(t, err)
	assert.Empty(t, env)
	stop()
}
