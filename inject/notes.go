package inject

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// AnnotationNotes is the annotation in which inject leaves its notes on the
// object they are about, one per line: Helm 3 shows a post-renderer's standard
// error only when it fails and Helm 4 never, while `helm get manifest` and
// `helm template` show the objects.
const AnnotationNotes = "proxykit.io/inject-notes"

// objectRef names an object of the stream: Kind/name, and its namespace
// ("" for the release's, or when unknown).
type objectRef struct{ object, namespace string }

// orWhere is r, or when r names no object the object a call's Where starts
// with ("ConfigMap/grafana-datasources key datasources.yaml").
func (r objectRef) orWhere(where string) objectRef {
	if r.object != "" {
		return r
	}
	first, _, _ := strings.Cut(where, " ")
	if strings.Contains(first, "/") {
		return objectRef{object: first}
	}
	return r
}

// note is a note about r.
func (r objectRef) note(format string, args ...any) objectNote {
	return objectNote{objectRef: r, text: fmt.Sprintf(format, args...)}
}

// objectNote is a note and the object it is about (none for the release).
type objectNote struct {
	objectRef
	text string
}

// texts are the notes' texts, in order.
func texts(notes []objectNote) []string {
	out := make([]string, 0, len(notes))
	for _, n := range notes {
		out = append(out, n.text)
	}
	return out
}

// about tells whether a note is about doc, whose namespace is ns.
func (n objectNote) about(doc document, ns string) bool {
	return n.object == doc.kind()+"/"+doc.meta("name") && (n.namespace == "" || n.namespace == ns)
}

// annotateNotes adds notes to doc's AnnotationNotes, after those it carries
// (so that injecting twice equals injecting once), at most maxNotesBytes of
// them, then a line that counts the rest; false when it holds them all.
func annotateNotes(doc document, notes []string) bool {
	if len(notes) == 0 || doc.object == nil {
		return false
	}
	meta, _ := doc.object["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		doc.object["metadata"] = meta
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	have, _ := annotations[AnnotationNotes].(string)
	var lines []string
	size := 0
	for _, line := range strings.Split(have, "\n") {
		if line != "" && !overflowLine.MatchString(line) {
			lines = append(lines, line)
			size += len(line) + 1
		}
	}
	more := 0
	for _, n := range notes {
		if slices.Contains(lines, n) {
			continue
		}
		if size+len(n)+1 > maxNotesBytes {
			more++
			continue
		}
		lines = append(lines, n)
		size += len(n) + 1
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more notes, on proxykit inject's standard error", more))
	}
	joined := strings.Join(lines, "\n")
	if joined == have {
		return false
	}
	annotations[AnnotationNotes] = joined
	meta["annotations"] = annotations
	return true
}

// overflowLine is the last line of an annotation that holds not every note.
var overflowLine = regexp.MustCompile(`^and \d+ more notes, on proxykit inject's standard error$`)

// maxNotesBytes bounds the annotation: the API server refuses an object whose
// annotations hold more than 256 KiB, and a chart may call a thousand hosts
// inject cannot place.
const maxNotesBytes = 16 << 10
