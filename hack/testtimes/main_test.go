package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A go test -json stream prints as go test prints it, and the times of its
// top-level tests are reported slowest first; a build error's line passes through,
// and a package whose result go test's cache gave has no times of this run.
func TestRelayAndReport(t *testing.T) {
	stream := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: boom\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (2.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA","Elapsed":2}
{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- PASS: TestB (7.50s)\n"}
{"Action":"pass","Package":"p","Test":"TestB","Elapsed":7.5}
{"Action":"output","Package":"q","Output":"PASS\n"}
{"Action":"output","Package":"q","Output":"ok  \tq\t0.1s\n"}
{"Action":"pass","Package":"p","Test":"TestB/sub","Elapsed":7.4}
{"Action":"pass","Package":"q","Test":"TestC","Elapsed":0.1}
{"Action":"pass","Package":"c","Test":"TestCached","Elapsed":99}
{"Action":"output","Package":"c","Output":"ok  \tc\t(cached)\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t9.6s\n"}
{"Action":"fail","Package":"p","Elapsed":9.6}
# q: build failed
`
	var out bytes.Buffer
	records, err := relay(strings.NewReader(stream), &out)
	require.NoError(t, err)
	assert.Equal(t, "=== RUN   TestA\n    a_test.go:3: boom\n--- FAIL: TestA (2.00s)\nok  \tq\t0.1s\nok  \tc\t(cached)\nFAIL\tp\t9.6s\n# q: build failed\n", out.String(), "as go test prints without -v")
	require.Len(t, records, 4, "a cached package's replayed times are not this run's")

	file := filepath.Join(t.TempDir(), "times.json")
	require.NoError(t, appendRecords(file, records[:2]))
	require.NoError(t, appendRecords(file, records[2:]))
	var report bytes.Buffer
	require.NoError(t, printSlowest(&report, file, "", 2))
	assert.Equal(t, "the 2 slowest tests:\n    7.5s  p TestB\n      2s  p TestA\n", report.String())

	// a test that waited for a slot is reported with the time it held it
	held := filepath.Join(t.TempDir(), "held.json")
	require.NoError(t, os.WriteFile(held, []byte(`{"package":"p","test":"TestB","seconds":1.5}`+"\n"+`{"package":"x","test":"TestA","seconds":9}`+"\n"), 0o644))
	report.Reset()
	require.NoError(t, printSlowest(&report, file, held, 2))
	assert.Equal(t, "the 2 slowest tests:\n      2s  p TestA\n    1.5s  p TestB\n", report.String())
	report.Reset()
	require.NoError(t, printSlowest(&report, file, filepath.Join(t.TempDir(), "none.json"), 1), "no held file: go test's times")
	assert.Equal(t, "the 1 slowest tests:\n    7.5s  p TestB\n", report.String())
}

// run returns the command's exit status and records what it ran.
func TestRunKeepsTheExitStatus(t *testing.T) {
	file := filepath.Join(t.TempDir(), "times.json")
	assert.Equal(t, 3, run(file, []string{"sh", "-c", `echo '{"Action":"pass","Package":"p","Test":"TestX","Elapsed":1}'; exit 3`}, nil))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"test":"TestX"`)
}
