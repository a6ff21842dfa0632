package inject

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/internal/worktime"
)

// Streams a post-renderer may be handed: each is read as Helm reads it, or
// refused naming the document, in bounded time; none crashes.
func TestStreamHostileYAML(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n"
	utf16LE := func(s string) string {
		r := utf16.Encode([]rune(s))
		b := make([]byte, 2+2*len(r))
		b[0], b[1] = 0xff, 0xfe
		for i, x := range r {
			binary.LittleEndian.PutUint16(b[2+2*i:], x)
		}
		return string(b)
	}
	aliases := "a: &a [x,x,x,x,x,x,x,x,x]\n"
	for i, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		prev := string(rune('a' + i))
		aliases += name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n"
	}
	for _, c := range []struct {
		name, stream string
		containers   int
		err          string
	}{
		{"a byte order mark", "\ufeff" + pod, 1, ""},
		{"CRLF line ends", strings.ReplaceAll(pod, "\n", "\r\n"), 1, ""},
		{"UTF-16", utf16LE(pod), 1, ""},
		{"JSON", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]}}`, 1, ""},
		{"a ... end marker", pod + "...\n---\n" + pod, 2, ""},
		{"a document on its --- line, as Parse reads it", pod + `--- {"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"containers":[{"name":"c","image":"x"}]}}` + "\n", 2, ""},
		{"a duplicate key: the last wins, as Helm reads it", strings.Replace(pod, "kind: Pod\n", "kind: Pod\nkind: Pod\n", 1), 1, ""},
		{"nesting 10,000 deep", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata: {x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}\n", 0, "document 1 is not YAML"},
		{"an alias bomb", aliases, 0, "document 1 is not YAML"},
		{"a 4 MiB string", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: {x: \"" + strings.Repeat("a", 4<<20) + "\"}\n---\n" + pod, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			began := worktime.Used()
			out, result, err := Stream([]byte(c.stream), Options{Values: values(t, plainValues), Namespace: "x"})
			assert.Less(t, worktime.Used()-began, 10*time.Second, "bounded work")
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, c.containers, result.Containers)
			assert.Equal(t, c.containers, strings.Count(string(out), "name: HTTP_PROXY"))
		})
	}
}
