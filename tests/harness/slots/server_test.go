package slots

import (
	"bufio"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveOn starts a server of s on a socket in a temp dir and returns its path.
func serveOn(t *testing.T, s *Slots) string {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "slots.sock")
	ln, err := net.Listen("unix", socket)
	require.NoError(t, err)
	done := make(chan error)
	go func() { done <- Serve(ln, s) }()
	t.Cleanup(func() {
		ln.Close()
		assert.NoError(t, <-done, "Serve ends without an error once its listener is closed")
	})
	return socket
}

func dialer(t *testing.T, socket string) func(Test) func() {
	return func(test Test) func() {
		release, err := Dial(socket, test)
		require.NoError(t, err)
		return release
	}
}

// Binaries of several packages that dial one server share its slots, the
// longest test of any of them first.
func TestServerStartsTheLongestOfEveryPackageFirst(t *testing.T) {
	file := earlierRun(t)
	socket := serveOn(t, New(1, file))
	got := order(dialer(t, socket), Test{"p", "short"}, Test{"p", "new"}, Test{"q", "middle"}, Test{"p", "long"})
	assert.Equal(t, []string{"long", "middle", "short", "new"}, got)
	held, ok := readHeld(file)[Test{"q", "middle"}]
	assert.True(t, ok && held > 0 && held < 5, "the server records the time each test held its slot (10 ms here): %v", held)
}

// A test binary that dies holding a slot gives it back: its end of the
// connection closes with it.
func TestServerFreesTheSlotOfAClosedConnection(t *testing.T) {
	socket := serveOn(t, New(1, ""))
	conn, err := net.Dial("unix", socket)
	require.NoError(t, err)
	_, err = conn.Write([]byte("p\tdies\n"))
	require.NoError(t, err)
	answer := make([]byte, 3)
	_, err = conn.Read(answer)
	require.NoError(t, err)
	require.Equal(t, "go\n", string(answer))

	var wg sync.WaitGroup
	wg.Add(1)
	granted := make(chan struct{})
	go func() {
		defer wg.Done()
		release, err := Dial(socket, Test{"p", "next"})
		assert.NoError(t, err)
		close(granted)
		release()
	}()
	select {
	case <-granted:
		t.Fatal("the next test got the only slot while the first held it")
	case <-time.After(300 * time.Millisecond):
	}
	conn.Close()
	select {
	case <-granted:
	case <-time.After(5 * time.Second):
		t.Fatal("the slot of a closed connection was never given back")
	}
	wg.Wait()
}

func TestDialRefusesANameThatWouldBreakTheLine(t *testing.T) {
	_, err := Dial(filepath.Join(t.TempDir(), "none.sock"), Test{"p", "a\tb"})
	assert.ErrorContains(t, err, "tab or a line break")
}

// A server that answers anything but "go" gives the test no slot.
func TestDialNeedsTheServersGo(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "odd.sock")
	ln, err := net.Listen("unix", socket)
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			_, _ = bufio.NewReader(conn).ReadString('\n')
			_, _ = conn.Write([]byte("no\n"))
			conn.Close()
		}
	}()
	_, err = Dial(socket, Test{"p", "a"})
	assert.ErrorContains(t, err, "no slot")
}
