package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
)

var (
	// a document starts at a line "---", blanks or a comment may follow it (and
	// a carriage return: kubectl reads CRLF files)
	docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(?:#[^\n]*)?\r?$`)
	// ... or at "--- " with the document's first line after it ("--- {a: 1}")
	docOnSeparator = regexp.MustCompile(`(?m)^---[ \t]+([^#\s].*)$`)
	sourceLine     = regexp.MustCompile(`(?m)^# Source: [^/]+/(.+?)\r?$`)
)

const byteOrderMark = "\uFEFF"

// SplitDocuments splits a stream into its documents as kubectl reads it, so
// that no reader of the stream (check, inject, audit) judges part of what
// kubectl would apply:
//   - a stream whose first character is "{" or "[" is JSON: one document per
//     value, as `jq -c` prints them;
//   - otherwise YAML, split at every line "---" (a comment may follow it), and
//     at "--- " with the document's first line on it ("--- {a: 1}"); CRLF line
//     ends and a leading byte order mark are read as kubectl reads them.
//
// A document that YAML reads as more than one (two flow maps on two lines, a
// "..." end marker with more after it) is an error naming the document: a YAML
// parser would silently keep only the first.
func SplitDocuments(text string) ([]string, error) {
	text = strings.TrimPrefix(text, byteOrderMark)
	if trimmed := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		return splitJSON(trimmed)
	}
	if strings.Contains(text, "--- ") || strings.Contains(text, "---\t") {
		text = docOnSeparator.ReplaceAllString(text, "---\n$1")
	}
	docs := docSeparator.Split(text, -1)
	for i, doc := range docs {
		if err := oneDocument(doc); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	return docs, nil
}

// splitJSON reads a stream of JSON values, each a document.
func splitJSON(text string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	var docs []string
	for i := 1; ; i++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: the stream is JSON (it starts with %q) and this value is not: %w", i, text[:1], err)
		}
		if bytes.HasPrefix(raw, []byte("[")) {
			return nil, fmt.Errorf("document %d: a JSON array is not a Kubernetes object; write a List (kind: List, items: [...]) or one object per line", i)
		}
		docs = append(docs, string(raw))
	}
}

// oneDocument fails when YAML reads doc as more than one document, or reads
// only a first part of it.
func oneDocument(doc string) error {
	if !strings.Contains(doc, "\n...") && !strings.Contains(doc, "\n{") && !strings.Contains(doc, "\n[") && !strings.HasPrefix(doc, "...") && !flowDocument(doc) {
		return nil // block YAML with no end marker and no flow value at the margin: one document
	}
	dec := yamlv2.NewDecoder(strings.NewReader(doc))
	var first any
	if err := dec.Decode(&first); err != nil {
		return nil // not YAML: the document's own parse says so, naming it
	}
	var next any
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return fmt.Errorf("YAML reads only the first part of it (%v); separate the objects with a line ---", err)
	case next != nil:
		return errors.New("YAML reads more than one document in it; separate them with a line ---")
	}
	return nil
}

// flowDocument tells whether the document's first content (after comments and
// blank lines) is a flow value, which another value may follow on any line.
func flowDocument(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		return strings.HasPrefix(line, "{") || strings.HasPrefix(line, "[")
	}
	return false
}
