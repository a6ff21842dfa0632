package manifest

import (
	"regexp"
	"strings"
)

var (
	// a document starts at a line "---", blanks or a comment may follow it
	docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(?:#.*)?$`)
	// ... or at "--- " with the document's first line after it ("--- {a: 1}")
	docOnSeparator = regexp.MustCompile(`(?m)^---[ \t]+([^#\s].*)$`)
	sourceLine     = regexp.MustCompile(`(?m)^# Source: [^/]+/(.+)$`)
)

// SplitDocuments splits a YAML stream into its documents, as Parse reads it: at
// every line "---" (a comment may follow it), and at "--- " with the document's
// first line on it ("--- {a: 1}"). proxykit inject splits with it too.
func SplitDocuments(text string) []string {
	if strings.Contains(text, "--- ") || strings.Contains(text, "---\t") {
		text = docOnSeparator.ReplaceAllString(text, "---\n$1")
	}
	return docSeparator.Split(text, -1)
}
