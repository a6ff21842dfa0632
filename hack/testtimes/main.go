// Command testtimes runs `go test -json ...`, prints what go test prints
// without -json, keeps each test's time, and reports the slowest: make test
// ends with the ten slowest tests of every run it made, so that the suite's
// budget is watched where it is spent.
//
//	testtimes -record FILE [-slots N -held HELD] -- go test -json ./...
//	    run, print, append the times to FILE; with -slots, serve N slots to
//	    the test binaries (tests/harness/slots), the longest test of HELD first
//	testtimes -report FILE [-n 10] [-held HELD]     print the n slowest tests of FILE
//
// A test that waited for one of the suite's slots (tests/harness.Parallel)
// counts the wait in go test's time; HELD, where the harness wrote how long
// each test held its slot, gives its time without the wait.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// event is what go test -json writes (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// record is one finished test.
type record struct {
	Package string  `json:"package"`
	Test    string  `json:"test"`
	Seconds float64 `json:"seconds"`
	Passed  bool    `json:"passed"`
}

func main() {
	recordTo := flag.String("record", "", "run the command after --, and append its tests' times to this file")
	report := flag.String("report", "", "print the slowest tests this file holds")
	n := flag.Int("n", 10, "how many to report")
	held := flag.String("held", "", "report the time a test held its slot (tests/harness.HeldVar's file), where it has one; with -slots, order the slots by it")
	slotCount := flag.Int("slots", 0, "with -record: serve this many slots to every test binary the command runs, on a unix socket (slots.SocketVar)")
	flag.Parse()
	switch {
	case *report != "":
		if err := printSlowest(os.Stdout, *report, *held, *n); err != nil {
			fmt.Fprintln(os.Stderr, "testtimes:", err)
			os.Exit(2)
		}
	case *recordTo != "" && flag.NArg() > 0:
		env, stop, err := serveSlots(*slotCount, *held)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtimes:", err)
			os.Exit(2)
		}
		status := run(*recordTo, flag.Args(), env)
		stop()
		os.Exit(status)
	default:
		fmt.Fprintln(os.Stderr, "usage: testtimes -record FILE -- go test -json ... | testtimes -report FILE [-n 10]")
		os.Exit(2)
	}
}

// run runs the command, prints its tests' output as go test does without
// -json, appends the times to file and returns the command's exit status.
func run(file string, args, env []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		return 2
	}
	records, err := relay(out, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
	}
	status := 0
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintln(os.Stderr, "testtimes:", err)
			return 2
		}
		status = exit.ExitCode()
	}
	if err := appendRecords(file, records); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		return max(status, 2)
	}
	return status
}

// relay prints a go test -json stream as go test prints without -v: a
// failing test's output, the packages' summary lines and build errors (a line
// that is no event is copied as it is); it collects the finished tests, but not
// those of a package whose result came from go test's cache, which replays an
// earlier run's times: they took none of this one.
func relay(r io.Reader, w io.Writer) ([]record, error) {
	var records []record
	cached := map[string]bool{}
	buffered := map[string]string{} // package and test -> its output so far
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 16<<20)
	for s.Scan() {
		var e event
		if json.Unmarshal(s.Bytes(), &e) != nil || e.Action == "" {
			fmt.Fprintln(w, s.Text())
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "output":
			if e.Test != "" {
				buffered[key] += e.Output
			} else if !verboseOnly(e.Output) {
				fmt.Fprint(w, e.Output)
				if strings.HasSuffix(e.Output, "\t(cached)\n") {
					cached[e.Package] = true
				}
			}
		case "pass", "fail", "skip":
			if e.Action == "fail" {
				fmt.Fprint(w, buffered[key])
			}
			delete(buffered, key)
			if e.Test != "" && e.Action != "skip" {
				records = append(records, record{Package: e.Package, Test: e.Test, Seconds: e.Elapsed, Passed: e.Action == "pass"})
			}
		}
	}
	ran := records[:0]
	for _, r := range records {
		if !cached[r.Package] {
			ran = append(ran, r)
		}
	}
	return ran, s.Err()
}

// verboseOnly tells a package-level line that go test prints only with -v,
// which -json implies.
func verboseOnly(line string) bool {
	return line == "PASS\n" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- PASS") || strings.HasPrefix(line, "--- SKIP")
}

func appendRecords(file string, records []record) error {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// printSlowest prints the n slowest tests of file, top-level tests only (a
// subtest's time is in its parent's), each test's time in held where it has
// one (held may be "" or missing: none has).
func printSlowest(w io.Writer, file, held string, n int) error {
	records, err := readRecords(file)
	if err != nil {
		return err
	}
	slots := map[[2]string]float64{}
	if held != "" {
		kept, err := readRecords(held)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for _, r := range kept {
			slots[[2]string{r.Package, r.Test}] = r.Seconds
		}
	}
	var all []record
	for _, r := range records {
		if isSubtest(r.Test) {
			continue
		}
		if seconds, ok := slots[[2]string{r.Package, r.Test}]; ok {
			r.Seconds = seconds
		}
		all = append(all, r)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Seconds > all[j].Seconds })
	fmt.Fprintf(w, "the %d slowest tests:\n", min(n, len(all)))
	for _, r := range all[:min(n, len(all))] {
		fmt.Fprintf(w, "%8s  %s %s\n", time.Duration(r.Seconds*float64(time.Second)).Round(100*time.Millisecond), r.Package, r.Test)
	}
	return nil
}

// readRecords reads a file of JSON records, one after another.
func readRecords(file string) ([]record, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var all []record
	dec := json.NewDecoder(f)
	for {
		var r record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return all, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		all = append(all, r)
	}
}

func isSubtest(name string) bool {
	for _, c := range name {
		if c == '/' {
			return true
		}
	}
	return false
}
