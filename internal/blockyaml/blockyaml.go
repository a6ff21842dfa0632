// Package blockyaml writes decoded JSON (map[string]any, []any, string,
// json.Number, bool, nil) as block-style YAML, keys sorted, as
// sigs.k8s.io/yaml.Marshal writes it, about ten times faster: that goes through
// JSON, a YAML parse of the JSON and YAML's reflection-driven emitter, and
// `proxykit inject` writes back every Deployment of a stream. A string is
// written plain only where no YAML reader could take it for anything else,
// as a literal block when it is a clean multi-line text, and otherwise as a
// JSON string, which is a valid YAML double-quoted scalar; the tests hold
// every output to sigs.k8s.io/yaml's reading of it.
package blockyaml

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// buffers are Marshal's, reused: a document written into a fresh buffer
// reallocated it each time it doubled, an eighth of what inject allocates.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Marshal writes v as a YAML document, ending in a newline: text, as its
// callers write it into a stream or a ConfigMap (one copy of the buffer).
func Marshal(v any) (string, error) {
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	b.Reset()
	if err := write(b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// write writes v as a YAML document into b.
func write(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}\n")
			return nil
		}
		return writeMap(b, v, 0)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]\n")
			return nil
		}
		return writeList(b, v, 0)
	default:
		if err := writeScalar(b, v, 0); err != nil {
			return err
		}
		b.WriteByte('\n')
		return nil
	}
}

func indent(b *bytes.Buffer, n int) {
	for range n {
		b.WriteByte(' ')
	}
}

// writeMap writes the entries of m, each on a line of its own at indent n.
func writeMap(b *bytes.Buffer, m map[string]any, n int) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var key bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			indent(b, n)
		}
		key.Reset()
		writeString(&key, k, n, false)
		if key.Len() > maxImplicitKey {
			// YAML reads a key without "?" to 1024 characters at most
			b.WriteString("? ")
			b.Write(key.Bytes())
			b.WriteByte('\n')
			indent(b, n)
		} else {
			b.Write(key.Bytes())
		}
		b.WriteByte(':')
		if err := writeValue(b, m[k], n, false); err != nil {
			return err
		}
	}
	return nil
}

// maxImplicitKey is the longest key written without "?", in bytes: YAML's
// limit of 1024 characters, less room for what follows it.
const maxImplicitKey = 1000

// writeList writes the items of l, each after "- " at indent n; the first one
// on the current line.
func writeList(b *bytes.Buffer, l []any, n int) error {
	for i, item := range l {
		if i > 0 {
			indent(b, n)
		}
		b.WriteByte('-')
		if err := writeValue(b, item, n, true); err != nil {
			return err
		}
	}
	return nil
}

// writeValue writes v after a key's ":" or a list's "-" at indent n: a non-empty
// map or list below (a list under a key at the key's indent, as Kubernetes'
// tools write it; a map in a list on the "- " line), a scalar on the same line.
func writeValue(b *bytes.Buffer, v any, n int, inList bool) error {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.WriteString(" {}\n")
			return nil
		}
		if inList {
			b.WriteByte(' ')
			return writeMap(b, v, n+2)
		}
		b.WriteByte('\n')
		indent(b, n+2)
		return writeMap(b, v, n+2)
	case []any:
		if len(v) == 0 {
			b.WriteString(" []\n")
			return nil
		}
		if inList {
			b.WriteByte(' ')
			return writeList(b, v, n+2)
		}
		b.WriteByte('\n')
		indent(b, n)
		return writeList(b, v, n)
	}
	b.WriteByte(' ')
	if err := writeScalar(b, v, n); err != nil {
		return err
	}
	b.WriteByte('\n')
	return nil
}

// writeScalar writes a scalar; a string's literal block lines at indent n+2.
func writeScalar(b *bytes.Buffer, v any, n int) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return fmt.Errorf("blockyaml: %q is no number", string(v))
		}
		b.WriteString(string(v))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case string:
		writeString(b, v, n, true)
	default:
		return fmt.Errorf("blockyaml: a %T is no decoded JSON", v)
	}
	return nil
}

// writeString writes s plain when that is safe, as a literal block when it
// is clean multi-line text (block: a value, not a key), else JSON-quoted.
func writeString(b *bytes.Buffer, s string, n int, block bool) {
	switch {
	case plain(s):
		b.WriteString(s)
	case block && literal(s):
		b.WriteByte('|')
		switch trailing := len(s) - len(strings.TrimRight(s, "\n")); trailing {
		case 0:
			b.WriteByte('-')
		case 1:
		default:
			b.WriteByte('+')
		}
		for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			b.WriteByte('\n')
			if line != "" {
				indent(b, n+2)
				b.WriteString(line)
			}
		}
		b.WriteString(strings.Repeat("\n", max(len(s)-len(strings.TrimRight(s, "\n"))-1, 0)))
	default:
		quote(b, s)
	}
}

// quote writes s double-quoted, with JSON's escapes (valid in YAML too) for
// a quote, a backslash and every character YAML does not allow as it is:
// C0 and C1 controls (a tab, a newline too), DEL, and the byte order mark,
// line and paragraph separators and non-characters.
func quote(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	if !strings.ContainsFunc(s, needsEscape) {
		b.WriteString(s) // the common case: a NO_PROXY, a command line
		b.WriteByte('"')
		return
	}
	for _, r := range s {
		switch {
		case r == '"', r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case needsEscape(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// needsEscape tells a character quote escapes: a quote, a backslash, and one
// YAML does not allow as it is.
func needsEscape(r rune) bool {
	return r == '"' || r == '\\' || r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0xfeff || r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff || r == utf8.RuneError
}

// reserved are the words YAML 1.1 readers (sigs.k8s.io/yaml among them) take for
// a boolean or null, in any case.
var reserved = []string{"y", "n", "yes", "no", "true", "false", "on", "off", "null", "~"}

// plain tells a string that any YAML reader takes back as this string when it
// is written bare: a letter or "/" first (no number, timestamp, ".inf",
// indicator or space), then letters, digits and _ . / - + = @ % and ":" not
// before a space or the end; no reserved word.
func plain(s string) bool {
	if s == "" || slices.Contains(reserved, strings.ToLower(s)) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '/':
		case i == 0:
			return false
		case c >= '0' && c <= '9', c == '_', c == '.', c == '-', c == '+', c == '=', c == '@', c == '%':
		case c == ':' && i+1 < len(s) && s[i+1] != ' ':
		default:
			return false
		}
	}
	return true
}

// literal tells a string a literal block keeps as it is: several lines of
// printable text, the first not starting with a space (the block's indent
// would read it away), none ending in one (editors drop it), no tab or
// carriage return, and a last line that is not empty.
func literal(s string) bool {
	body := strings.TrimRight(s, "\n")
	if !strings.Contains(body, "\n") || strings.HasPrefix(body, " ") {
		return false
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasSuffix(line, " ") {
			return false
		}
	}
	for _, r := range body {
		if r < ' ' && r != '\n' || r == 0x7f || r == '\uFEFF' || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return false
		}
	}
	return true
}
