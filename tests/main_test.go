package tests

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/tests/fixture"
)

// TestMain runs the render tests, which need no binary: every chart renders in
// process through proxytest with the library of this work tree. After a full run
// it fails when some template of some chart was never rendered.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && isFullRun() {
		if missing := templatesNeverRendered(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no test rendered these templates (every template needs a test):\n  %s\n", strings.Join(missing, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// isFullRun tells whether every test ran, which the template coverage check needs.
func isFullRun() bool {
	f := flag.Lookup("test.run")
	return f == nil || f.Value.String() == ""
}

// templatesNeverRendered lists template files of every chart under test that no test rendered.
func templatesNeverRendered() []string {
	var missing []string
	for _, dir := range fixture.ChartDirs() {
		files, _ := filepath.Glob(filepath.Join(dir, "templates", "*.yaml"))
		for _, f := range files {
			name := "templates/" + filepath.Base(f)
			if _, ok := fixture.Rendered.Load(dir + "|" + name); !ok {
				rel, _ := filepath.Rel(fixture.Root, f)
				missing = append(missing, rel)
			}
		}
	}
	sort.Strings(missing)
	return missing
}
