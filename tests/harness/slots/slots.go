// Package slots hands out a fixed number of slots to tests, the test that held
// one longest in the last run first. harness.Parallel takes one for each
// integration test: from the test binary's own Slots, or, when the suites run
// as several packages in one go test run, from a server every binary dials
// (hack/testtimes -slots serves one), so that all of them share one budget and
// the longest test of any package starts first.
package slots

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// gather is how long the first test waits for the others to arrive: go test
// releases every parallel test at once, in no set order, and the first ones to
// arrive must not take the slots before the longest has been seen.
const gather = 100 * time.Millisecond

// Test names a test: its package's import path and its name.
type Test struct{ Package, Name string }

// Slots hands out n slots, the longest waiting test first.
type Slots struct {
	// Log, when set, gets a line as each test gets its slot and as it gives it
	// back: when each started, and how long after the first it was.
	Log io.Writer

	mu      sync.Mutex
	free    int
	waiting []waiter
	opened  time.Time        // the first acquire
	file    string           // the held-times file, "" for none
	last    map[Test]float64 // seconds held in earlier runs, read on the first acquire
}

type waiter struct {
	test  Test
	ready chan struct{}
}

// New makes n slots whose order comes from file, the times tests held their
// slot in earlier runs (JSON lines: {"package":..., "test":..., "seconds":...}),
// to which each release appends; "" keeps no times.
func New(n int, file string) *Slots {
	return &Slots{free: n, file: file}
}

// Hold waits for a slot and returns its release, which records how long the
// test held it.
func (s *Slots) Hold(t Test) (release func()) {
	s.acquire(t)
	held := time.Now()
	return func() { s.release(t, time.Since(held)) }
}

func (s *Slots) acquire(t Test) {
	ready := make(chan struct{})
	s.mu.Lock()
	if s.opened.IsZero() {
		s.opened = time.Now()
		s.last = readHeld(s.file)
		time.AfterFunc(gather, s.dispatchLocked)
	}
	s.waiting = append(s.waiting, waiter{t, ready})
	if time.Since(s.opened) >= gather {
		s.dispatch()
	}
	s.mu.Unlock()
	<-ready
}

func (s *Slots) release(t Test, held time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free++
	s.logf("end %s %s (%.1fs)", t.Package, t.Name, held.Seconds())
	appendHeld(s.file, heldRecord{t.Package, t.Name, held.Round(10 * time.Millisecond).Seconds()})
	s.dispatch()
}

func (s *Slots) dispatchLocked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatch()
}

// dispatch starts the longest waiting tests while slots are free (s.mu held).
func (s *Slots) dispatch() {
	sort.SliceStable(s.waiting, func(i, j int) bool { return s.last[s.waiting[i].test] > s.last[s.waiting[j].test] })
	for s.free > 0 && len(s.waiting) > 0 {
		s.logf("start %s %s (%.0fs last run, %d waiting)", s.waiting[0].test.Package, s.waiting[0].test.Name, s.last[s.waiting[0].test], len(s.waiting)-1)
		close(s.waiting[0].ready)
		s.waiting = s.waiting[1:]
		s.free--
	}
}

// logf writes a line to Log, timed from the first acquire (s.mu held).
func (s *Slots) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "%7.2fs "+format+"\n", append([]any{time.Since(s.opened).Seconds()}, args...)...)
	}
}

// heldRecord is one line of the held-times file.
type heldRecord struct {
	Package string  `json:"package"`
	Test    string  `json:"test"`
	Seconds float64 `json:"seconds"`
}

// readHeld reads the file's records, the last of each test winning; a missing
// or unreadable file gives none (the order is then arrival's). A file grown
// past a few runs is written back with one record per package and test.
func readHeld(file string) map[Test]float64 {
	all := map[Test]float64{}
	if file == "" {
		return all
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return all
	}
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); lines++ {
		var r heldRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Test != "" {
			all[Test{r.Package, r.Test}] = r.Seconds
		}
	}
	if lines > 4*len(all)+100 {
		compactHeld(file, all)
	}
	return all
}

func compactHeld(file string, all map[Test]float64) {
	keys := make([]Test, 0, len(all))
	for key := range all {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Package+" "+keys[i].Name < keys[j].Package+" "+keys[j].Name })
	var b strings.Builder
	for _, key := range keys {
		line, _ := json.Marshal(heldRecord{key.Package, key.Name, all[key]})
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
