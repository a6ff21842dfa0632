package manifest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/internal/worktime"
)

// Hostile YAML is read whole or refused, naming the document, in bounded work.
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
		{"two documents with CRLF line ends, as kubectl reads them", strings.ReplaceAll(pod+"---\n"+strings.Replace(pod, "name: p", "name: q", 1), "\n", "\r\n"), 2, ""},
		{"JSON lines, as jq -c prints them", jsonPod("p") + "\n" + jsonPod("q") + "\n", 2, ""},
		{"JSON lines after a byte order mark and blank lines", "\ufeff\n\n" + jsonPod("p") + jsonPod("q"), 2, ""},
		{"JSON lines, the second broken", jsonPod("p") + "\n{\"kind\": ", 0, "document 2: the stream is JSON"},
		{"a JSON array", "[" + jsonPod("p") + "]", 0, "document 1: a JSON array is not a Kubernetes object"},
		{"two flow maps after a comment", "# Source: x/templates/a.yaml\n" + jsonPod("p") + "\n" + jsonPod("q") + "\n", 0, "document 1: YAML reads only the first part"},
		{"two flow maps, the second indented", "# c\n" + jsonPod("p") + "\n  " + jsonPod("q") + "\n", 0, "document 1: YAML reads only the first part"},
		{"a document after a ... end marker", pod + "...\n" + strings.Replace(pod, "name: p", "name: q", 1), 0, "document 1: YAML reads only the first part"},
		{"a 4 MiB string", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: {x: \"" + strings.Repeat("a", 4<<20) + "\"}\n", 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			began := worktime.Used()
			m, err := Parse(c.text)
			assert.Less(t, worktime.Used()-began, 10*time.Second, "bounded work")
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, m.Objects, c.objects)
		})
	}
}

func jsonPod(name string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"x"}]}}`
}

// inject writes documents back as they were: the split keeps each one's text.
func TestSplitDocumentsKeepsTheText(t *testing.T) {
	docs, err := SplitDocuments("a: 1\r\n---\r\nb: 2\r\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"a: 1\r\n", "\nb: 2\r\n"}, docs)
	docs, err = SplitDocuments(jsonPod("p") + "\n" + jsonPod("q"))
	require.NoError(t, err)
	assert.Equal(t, []string{jsonPod("p"), jsonPod("q")}, docs)
}

// The whole-stream check costs a second parse only where YAML could read part
// of a document: 10,000 flow-style documents (each checked) and a JSON stream of
// 10,000 objects read in time linear in their number. The bound is a ratio to
// 1,000 of them in the same run, so a loaded machine (the race detector, the
// other packages' tests beside it) moves both sides alike.
func TestSplitDocumentsAtScale(t *testing.T) {
	streams := func(n int) map[string]string {
		var flow, lines strings.Builder
		for i := 0; i < n; i++ {
			flow.WriteString("# Source: x/templates/p.yaml\n" + jsonPod("p") + "\n---\n")
			lines.WriteString(jsonPod("p") + "\n")
		}
		return map[string]string{"flow documents": flow.String(), "JSON lines": lines.String()}
	}
	split := func(name, text string, n int) time.Duration {
		began := worktime.Used()
		docs, err := SplitDocuments(text)
		require.NoError(t, err, name)
		assert.GreaterOrEqual(t, len(docs), n, name)
		return worktime.Used() - began
	}
	small, large := streams(1000), streams(10000)
	for name := range large {
		base := split(name, small[name], 1000)
		took := split(name, large[name], 10000)
		// 10x the documents: linear is 10x; quadratic would be 100x
		assert.Less(t, took, 25*base+50*time.Millisecond, "%s: 1,000 in %s, 10,000 in %s", name, base, took)
	}
}
