package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command the manual shows (README.md and docs/*.md, in code blocks and
// inline code) is a command of this binary, and every flag it names is one of
// that command's: a renamed command or flag fails here, not in a reader's shell.
func TestDocsShowRealCommands(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../../README.md")
	root := newRootCmd(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	// "proxykit CMD ..." up to a pipe, a redirection, a comment or the end of the code
	shown := regexp.MustCompile("(?:^|[\\s`($])(?:kubectl )?proxykit ([a-z]+)((?:[^|>#`\\n)$]|\\\\\\|)*)")
	flag := regexp.MustCompile(`(?:^|[\s\[(|])(--?[a-zA-Z][a-zA-Z-]*)`)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, code := range codeSpans(string(text)) {
			for _, m := range shown.FindAllStringSubmatch(code, -1) {
				sub, rest := m[1], m[2]
				cmd, _, err := root.Find([]string{sub})
				if err != nil || cmd == root {
					if !strings.Contains(code, "proxykit.") { // a helper name such as proxykit.proxy.env is no command
						t.Errorf("%s shows `proxykit %s`, which is no command", filepath.Base(page), sub)
					}
					continue
				}
				checked++
				for _, f := range flag.FindAllStringSubmatch(rest, -1) {
					if !hasFlag(cmd, f[1]) {
						t.Errorf("%s shows `proxykit %s ... %s`, which is no flag of %s", filepath.Base(page), sub, f[1], sub)
					}
				}
			}
		}
	}
	assert.Greater(t, checked, 20, "the manual shows the commands")
}

// codeSpans are the fenced blocks and the inline code of a markdown page.
func codeSpans(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```[a-z]*\n(.*?)```").FindAllStringSubmatch(text, -1) {
		out = append(out, regexp.MustCompile(`(?m)\s#.*$`).ReplaceAllString(m[1], "")) // shell comments are prose
	}
	text = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, "")
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func hasFlag(cmd *cobra.Command, name string) bool {
	if long, ok := strings.CutPrefix(name, "--"); ok {
		return cmd.Flags().Lookup(long) != nil || cmd.InheritedFlags().Lookup(long) != nil || long == "help"
	}
	short := strings.TrimPrefix(name, "-")
	return len(short) == 1 && (cmd.Flags().ShorthandLookup(short) != nil || short == "h")
}
