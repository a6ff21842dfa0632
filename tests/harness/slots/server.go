package slots

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

// SocketVar names the unix socket of the server the suites' test binaries take
// their slots from; without it each binary has slots of its own.
const SocketVar = "PROXYKIT_TEST_SLOTS_SOCKET"

// Serve hands out s's slots to the connections ln accepts, until it is
// closed. A connection is one test: its first line names it ("package\ttest"),
// the server answers "go" once a slot is the test's, and the slot is free
// again when the connection closes, however the test binary ends.
func Serve(ln net.Listener, s *Slots) error {
	for {
		conn, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		go serve(conn, s)
	}
}

func serve(conn net.Conn, s *Slots) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return
	}
	pkg, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
	if !ok || name == "" {
		return
	}
	release := s.Hold(Test{pkg, name})
	defer release()
	if _, err := io.WriteString(conn, "go\n"); err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, r) // held until the test closes its end
}

// Dial waits for a slot of the server at socket and returns its release.
func Dial(socket string, t Test) (release func(), err error) {
	if strings.ContainsAny(t.Package+t.Name, "\t\n") {
		return nil, fmt.Errorf("slots: a test name with a tab or a line break: %q", t.Name)
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("slots: %w", err)
	}
	if _, err := io.WriteString(conn, t.Package+"\t"+t.Name+"\n"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("slots: %w", err)
	}
	answer, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || answer != "go\n" {
		conn.Close()
		return nil, fmt.Errorf("slots: no slot from %s: %q, %v", socket, answer, err)
	}
	return func() { conn.Close() }, nil
}
