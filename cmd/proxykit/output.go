package main

import (
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/proxykit/proxykit/manifest"
)

// printJSON writes v as indented JSON; a nil list prints as [], never null.
func printJSON(w io.Writer, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		v = []any{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// comment makes text from the cluster safe in a YAML comment: it must stay on
// its line, so every rune that is not printable (line breaks, and U+0085,
// U+2028 and U+2029, which YAML 1.1 parsers such as Helm's also break lines
// at) is written as its Go escape. Values are written JSON-quoted, as data.
func comment(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// redactUserInfo hides user-info: nothing that looks like a password is echoed.
func redactUserInfo(s string) string { return manifest.RedactUserInfo(s) }
