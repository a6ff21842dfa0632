package main

import (
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/proxykit/proxykit/tests/harness/slots"
)

// SlotsLogVar names a file the slot server writes each test's start and end
// to, timed from the first: where a run's time went.
const SlotsLogVar = "PROXYKIT_TEST_SLOTS_LOG"

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
	s := slots.New(n, held)
	var log io.Closer
	if file := os.Getenv(SlotsLogVar); file != "" {
		if f, err := os.Create(file); err == nil {
			s.Log, log = f, f
		}
	}
	done := make(chan struct{})
	go func() {
		_ = slots.Serve(ln, s)
		close(done)
	}()
	return []string{slots.SocketVar + "=" + socket}, func() {
		ln.Close()
		<-done
		if log != nil {
			log.Close()
		}
		os.RemoveAll(dir)
	}, nil
}
