package manifest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// hitRow is how the reader did on one file of testdata/calls.
type hitRow struct {
	file              string
	calls, found      int
	missed, falseHits []string
}

// TestReaderHitRate reads every file of testdata/calls as a mounted file is
// read and compares what it finds with golden.yaml, the calls written out by
// hand: the table it makes (recall and precision, each miss and false hit
// named) must be the one docs/charts-you-dont-own.md shows, so the doc says
// what the reader does, better or worse.
func TestReaderHitRate(t *testing.T) {
	dir := filepath.Join("testdata", "calls")
	raw, err := os.ReadFile(filepath.Join(dir, "golden.yaml"))
	require.NoError(t, err)
	var golden map[string][]string
	require.NoError(t, yaml.UnmarshalStrict(raw, &golden))
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.Len(t, files, len(golden)+1, "every file has its calls in golden.yaml")

	var rows []hitRow
	for _, name := range slices.Sorted(maps.Keys(golden)) {
		content, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		found := map[string]bool{}
		for _, f := range scanFile(string(content)) {
			found[strings.TrimSuffix(f.host+":"+f.port, ":")] = true
		}
		want := map[string]bool{}
		for _, c := range golden[name] {
			want[c] = true
		}
		row := hitRow{file: name, calls: len(want)}
		for c := range want {
			if found[c] {
				row.found++
			} else {
				row.missed = append(row.missed, c)
			}
		}
		for c := range found {
			if !want[c] {
				row.falseHits = append(row.falseHits, c)
			}
		}
		slices.Sort(row.missed)
		slices.Sort(row.falseHits)
		rows = append(rows, row)
	}
	table := hitRateTable(rows)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "charts-you-dont-own.md"))
	require.NoError(t, err)
	const begin, end = "<!-- reader hit rate: TestReaderHitRate -->\n", "<!-- end of the reader hit rate -->"
	text := string(doc)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	require.True(t, i >= 0 && j > i, "docs/charts-you-dont-own.md marks the table with %q and %q", begin, end)
	assert.Equal(t, table, text[i+len(begin):j], "docs/charts-you-dont-own.md shows another table than the reader makes; this is the one:\n%s", table)
}

// hitRateTable writes the rows as a Markdown table with a total row:
// recall (calls found of calls made) and precision (calls of hosts found).
func hitRateTable(rows []hitRow) string {
	var b strings.Builder
	b.WriteString("| file (as a mounted file) | calls | found | missed | false hits |\n|---|---|---|---|---|\n")
	calls, found, falseHits := 0, 0, 0
	quote := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return "`" + strings.Join(list, "`, `") + "`"
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %d | %d | %s | %s |\n", r.file, r.calls, r.found, quote(r.missed), quote(r.falseHits))
		calls, found, falseHits = calls+r.calls, found+r.found, falseHits+len(r.falseHits)
	}
	fmt.Fprintf(&b, "| all | %d | %d (recall %.2f) | %d | %d (precision %.2f) |\n",
		calls, found, float64(found)/float64(calls), calls-found, falseHits, float64(found)/float64(found+falseHits))
	return b.String()
}
