package main

import (
	"net"
	"os"
	"path/filepath"

	"github.com/proxykit/proxykit/tests/harness/slots"
)

// serveSlots serves n slots on a unix socket in a temp dir, ordered by the
// held-times file, and returns the variable that names it to the test binaries
// and what stops the server; n 0 serves none.
func serveSlots(n int, held string) (env []string, stop func(), err error) {
	if n <= 0 {
		return nil, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "testtimes")
	if err != nil {
		return nil, nil, err
	}
	socket := filepath.Join(dir, "slots.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		_ = slots.Serve(ln, slots.New(n, held))
		close(done)
	}()
	return []string{slots.SocketVar + "=" + socket}, func() {
		ln.Close()
		<-done
		os.RemoveAll(dir)
	}, nil
}
