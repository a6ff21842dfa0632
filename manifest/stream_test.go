package manifest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// naming the document, in bounded time.
func TestParseHostileYAML(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n"
	for _, c := range []struct {
		name, text string
		objects    int
		err        string
	}{
		{"a byte order mark", "\ufeff" + pod, 1, ""},
		{"CRLF line ends", strings.ReplaceAll(pod, "\n", "\r\n"), 1, ""},
		{"JSON", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]}}`, 1, ""},
		{"a ... end marker", pod + "...\n---\n" + pod, 2, ""},
		{"nesting 10,000 deep", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata: {x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}\n", 0, "not YAML"},
		{"a 4 MiB string", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: {x: \"" + strings.Repeat("a", 4<<20) + "\"}\n", 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			began := time.Now()
			m, err := Parse(c.text)
			assert.Less(t, time.Since(began), 10*time.Second)
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, m.Objects, c.objects)
		})
	}
}
