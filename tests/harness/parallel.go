package harness

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proxykit/proxykit/tests/harness/slots"
)

// SlotsVar names how many tests Parallel runs at once (default DefaultSlots):
// it takes the place of go test -parallel, which make sets high so that go test
// hands every test to Parallel at once and leaves the order to it.
const SlotsVar = "PROXYKIT_TEST_SLOTS"

// HeldVar names the file of how long each test held its slot: read for the
// order, appended to as each test ends (JSON lines: {"package":..., "test":...,
// "seconds":...}); hack/testtimes reports these times, without the wait.
const HeldVar = "PROXYKIT_TEST_HELD"

// DefaultSlots is the suite's parallelism on the 2-core machine it is budgeted
// on: its tests wait on the processes they start for much of their time.
const DefaultSlots = 4

// Parallel runs t beside the suite's other parallel tests, as t.Parallel does,
// once one of the suite's slots is free; of the tests waiting for one, the test
// that held a slot longest in the last run goes first (HeldVar), else the first
// to arrive. On 2 cores the suite ends when its longest tests end: started last,
// they ran alone at its end. A subtest runs in its parent's slot. With
// slots.SocketVar set (make test), the slots are a server's that the test
// binaries of every integration package share.
func Parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	if strings.Contains(t.Name(), "/") {
		return
	}
	began := time.Now()
	test := slots.Test{Package: testPackage(), Name: t.Name()}
	var release func()
	if socket := os.Getenv(slots.SocketVar); socket != "" {
		var err error
		if release, err = slots.Dial(socket, test); err != nil {
			t.Fatal(err)
		}
	} else {
		release = suite.Hold(test)
	}
	if waited := time.Since(began); waited > time.Second {
		t.Logf("waited %v for one of the suite's slots", waited.Round(100*time.Millisecond))
	}
	t.Cleanup(release)
}

// suite is the test binary's own slots, without a server.
var suite = slots.New(slotsFromEnv(), os.Getenv(HeldVar))

// testPackage is the import path of the package under test ("" outside a test
// binary), whose records the file holds beside other packages'.
func testPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return ""
}

func slotsFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv(SlotsVar)); err == nil && n > 0 {
		return n
	}
	return DefaultSlots
}
