package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

// TestREADMEChartAuthorsTestIsCompiled: the test docs/testing.md shows chart
// authors is the one examples/consumer-app's module compiles and `make test` runs.
func TestREADMEChartAuthorsTestIsCompiled(t *testing.T) {
	readme, err := os.ReadFile(fixture.Path("docs", "testing.md"))
	require.NoError(t, err)
	section := string(readme)[strings.Index(string(readme), "## Test your own chart"):]
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	require.NotNil(t, block, "the section shows a Go block")
	file, err := os.ReadFile(fixture.Path("examples", "consumer-app", "consumer_test.go"))
	require.NoError(t, err)
	assert.Contains(t, string(file), block[1], "README's test is not the one in examples/consumer-app/consumer_test.go")

	// every example function the README names exists
	examples, err := os.ReadFile(fixture.Path("proxytest", "example_test.go"))
	require.NoError(t, err)
	for _, name := range regexp.MustCompile("`(Example[A-Za-z_]+)`").FindAllStringSubmatch(section, -1) {
		assert.Contains(t, string(examples), "func "+name[1]+"()", "README names %s", name[1])
	}
}

// TestREADMEHelperTable: every public helper of the library has a row in the
// helper reference (docs/library.md), and the row names the file that defines
// it, so a newcomer finds any helper in one step.
func TestREADMEHelperTable(t *testing.T) {
	readme, err := os.ReadFile(fixture.Path("docs", "library.md"))
	require.NoError(t, err)
	rows := map[string]string{} // helper -> file
	for _, m := range regexp.MustCompile("(?m)^\\| `(proxykit\\.[A-Za-z.]+)`(?:, `proxykit\\.[A-Za-z.]+`)* \\| `(_[A-Za-z]+\\.tpl)` \\|").FindAllStringSubmatch(string(readme), -1) {
		rows[m[1]] = m[2]
	}
	// internal families: the README names them below the table; their names may change
	internal := regexp.MustCompile(`^proxykit\.(resolve|noProxy|validate|keys|context|env|record)\.`)
	files, err := filepath.Glob(fixture.Path("library", "proxykit", "templates", "_*.tpl"))
	require.NoError(t, err)
	defined := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`define "(proxykit\.[A-Za-z.]+)"`).FindAllStringSubmatch(string(text), -1) {
			if internal.MatchString(m[1]) {
				continue
			}
			defined++
			assert.Equal(t, filepath.Base(f), rows[m[1]], "README's helper reference: %s is defined in %s", m[1], filepath.Base(f))
		}
	}
	assert.Greater(t, defined, 20)
}

// The manual's pages: README.md, ARCHITECTURE.md and docs/*.md. Every relative
// link reaches a file of the repository, and an anchor a heading of that file;
// the front door stays a front door.
func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob(fixture.Path("docs", "*.md"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pages), 8, "the manual by topic")
	pages = append(pages, fixture.Path("README.md"), fixture.Path("ARCHITECTURE.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				_, err := os.Stat(path)
				assert.NoError(t, err, "%s links %s", filepath.Base(page), target)
			}
			if anchor != "" && strings.HasSuffix(path, ".md") {
				assert.Contains(t, headingAnchors(t, path), anchor, "%s links %s", filepath.Base(page), target)
			}
		}
	}
	readme, err := os.ReadFile(fixture.Path("README.md"))
	require.NoError(t, err)
	assert.Less(t, strings.Count(string(readme), "\n"), 300, "README.md is the front door: what, the two commands, where to read next")
}

// stripCode drops fenced blocks, where brackets are code, not links.
func stripCode(text string) string {
	return regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, "")
}

// headingAnchors are the anchors GitHub gives a file's headings.
func headingAnchors(t *testing.T, path string) []string {
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^#{1,6} (.+)$`).FindAllStringSubmatch(stripCode(string(text)), -1) {
		slug := regexp.MustCompile(`[^\w\- ]`).ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
		out = append(out, strings.ReplaceAll(slug, " ", "-"))
	}
	return out
}
