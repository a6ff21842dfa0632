package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

// gather is how long the first test waits for the others to arrive: go test
// releases every parallel test at once, in no set order, and the first ones to
// arrive must not take the slots before the longest has been seen.
const gather = 100 * time.Millisecond

// Parallel runs t beside the suite's other parallel tests, as t.Parallel does,
// once one of the suite's slots is free; of the tests waiting for one, the test
// that held a slot longest in the last run goes first (HeldVar), else the first
// to arrive. On 2 cores the suite ends when its longest tests end: started last,
// they ran alone at its end. A subtest runs in its parent's slot.
func Parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	if strings.Contains(t.Name(), "/") {
		return
	}
	began := time.Now()
	suite.acquire(t.Name())
	if waited := time.Since(began); waited > time.Second {
		t.Logf("waited %v for one of the suite's %d slots", waited.Round(100*time.Millisecond), suite.slots)
	}
	held := time.Now()
	t.Cleanup(func() { suite.release(t.Name(), time.Since(held)) })
}

// suite is the test binary's one set of slots.
var suite = newSlots(slotsFromEnv(), os.Getenv(HeldVar), testPackage())

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

// slots hands out a fixed number of slots, the longest test first.
type slots struct {
	mu      sync.Mutex
	slots   int
	free    int
	waiting []waiter
	opened  time.Time          // the first acquire
	file    string             // HeldVar's file, "" for none
	pkg     string             // the package whose records are this binary's
	last    map[string]float64 // seconds held in earlier runs, read on the first acquire
}

type waiter struct {
	name  string
	ready chan struct{}
}

func newSlots(n int, file, pkg string) *slots {
	return &slots{slots: n, free: n, file: file, pkg: pkg}
}

func (s *slots) acquire(name string) {
	ready := make(chan struct{})
	s.mu.Lock()
	if s.opened.IsZero() {
		s.opened = time.Now()
		s.last = readHeld(s.file, s.pkg)
		time.AfterFunc(gather, s.dispatchLocked)
	}
	s.waiting = append(s.waiting, waiter{name, ready})
	if time.Since(s.opened) >= gather {
		s.dispatch()
	}
	s.mu.Unlock()
	<-ready
}

func (s *slots) release(name string, held time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free++
	appendHeld(s.file, heldRecord{s.pkg, name, held.Round(10 * time.Millisecond).Seconds()})
	s.dispatch()
}

func (s *slots) dispatchLocked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatch()
}

// dispatch starts the longest waiting tests while slots are free (s.mu held).
func (s *slots) dispatch() {
	sort.SliceStable(s.waiting, func(i, j int) bool { return s.last[s.waiting[i].name] > s.last[s.waiting[j].name] })
	for s.free > 0 && len(s.waiting) > 0 {
		close(s.waiting[0].ready)
		s.waiting = s.waiting[1:]
		s.free--
	}
}

// heldRecord is one line of HeldVar's file.
type heldRecord struct {
	Package string  `json:"package"`
	Test    string  `json:"test"`
	Seconds float64 `json:"seconds"`
}

// readHeld reads the package's records in the file, the last of each test
// winning; a missing or unreadable file gives none (the order is then
// arrival's). A file grown past a few runs is written back with one record per
// package and test.
func readHeld(file, pkg string) map[string]float64 {
	out := map[string]float64{}
	if file == "" {
		return out
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	all := map[[2]string]float64{}
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); lines++ {
		var r heldRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Test != "" {
			all[[2]string{r.Package, r.Test}] = r.Seconds
		}
	}
	for key, seconds := range all {
		if key[0] == pkg {
			out[key[1]] = seconds
		}
	}
	if lines > 4*len(all)+100 {
		compactHeld(file, all)
	}
	return out
}

func compactHeld(file string, all map[[2]string]float64) {
	keys := make([][2]string, 0, len(all))
	for key := range all {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+" "+keys[i][1] < keys[j][0]+" "+keys[j][1] })
	var b strings.Builder
	for _, key := range keys {
		line, _ := json.Marshal(heldRecord{key[0], key[1], all[key]})
		b.Write(append(line, '\n'))
	}
	_ = os.WriteFile(file, []byte(b.String()), 0o644)
}

// appendHeld adds a test's record; the file is a hint for the order, so a
// failure to write it only costs the next run its order.
func appendHeld(file string, r heldRecord) {
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	line, _ := json.Marshal(r)
	_, _ = f.Write(append(line, '\n'))
	_ = f.Close()
}
