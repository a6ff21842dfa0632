package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// SlotsLogVar's file says when each test started and ended.
func TestSlotsLogSaysWhenEachTestRan(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "slots.log")
	t.Setenv(SlotsLogVar, logFile)
	env, stop, err := serveSlots(1, "")
	require.NoError(t, err)
	_, socket, _ := strings.Cut(env[0], "=")
	release, err := slots.Dial(socket, slots.Test{Package: "p", Name: "TestX"})
	require.NoError(t, err)
	release()
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), "end p TestX")
	}, 5*time.Second, 10*time.Millisecond)
	stop()
	b, err := os.ReadFile(logFile)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^ +\d+\.\d\ds start p TestX \(0s last run, 0 waiting\)\n +\d+\.\d\ds end p TestX \(\d+\.\ds\)\n$`, string(b))
}
