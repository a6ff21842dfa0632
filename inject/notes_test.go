package inject

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
)

// What inject says of an object is left on it (AnnotationNotes), where `helm
// get manifest` shows it: Helm 4 never shows a post-renderer's standard error.
// A note about a container goes on its workload, a note about a call kept in a
// ConfigMap no container reads on that ConfigMap; objects without a note are
// left alone, and injecting twice equals injecting once (run checks it).
func TestStreamLeavesNotesOnTheirObjects(t *testing.T) {
	stream := `apiVersion: v1
kind: ConfigMap
metadata: {name: backends, namespace: airflow}
data:
  secrets.yaml: |
    url: http://vault.security:8200
---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain, namespace: airflow}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: airflow}
spec:
  template:
    spec:
      containers:
        - name: web
          image: web
          env:
            - {name: NO_PROXY, value: ".corp.example"}
            - {name: LOGS, value: "http://minio.storage:9000"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: quiet, namespace: airflow}
spec:
  template:
    spec:
      containers: [{name: app, image: app}]
`
	out, result := run(t, plainValues+"policy: {mergeNoProxy: false}\n", stream, Options{Namespace: "airflow"})
	m, err := proxytest.Parse(out)
	require.NoError(t, err)
	notes := func(kind, name string) string {
		o := m.Find(kind, name)
		require.NotNil(t, o, "%s/%s", kind, name)
		return o.Annotation(AnnotationNotes)
	}
	web := notes("Deployment", "web")
	assert.Contains(t, web, "Deployment/web container web: its own NO_PROXY kept without the cluster's entries")
	assert.Contains(t, web, "Deployment/web container web calls minio.storage:9000 (env LOGS): left out of NO_PROXY, since .storage is a top-level domain")
	assert.Contains(t, notes("ConfigMap", "backends"), "the release calls vault.security:8200 (ConfigMap/backends key secrets.yaml")
	assert.Empty(t, notes("ConfigMap", "plain"))
	assert.Empty(t, notes("Deployment", "quiet"))
	onObjects := strings.Split(web+"\n"+notes("ConfigMap", "backends"), "\n")
	assert.ElementsMatch(t, result.Notes, onObjects, "every note, on its object")
}

// A thousand hosts inject cannot place give a thousand notes: the annotation
// keeps the first 16 KiB of them and says how many more stderr has, since the
// API server refuses an object with more than 256 KiB of annotations; twice
// injected, the same.
func TestStreamBoundsTheNotes(t *testing.T) {
	var urls strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&urls, "      - http://svc%d.storage:9000\n", i)
	}
	stream := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: web\n          args:\n" + strings.ReplaceAll(urls.String(), "      - ", "            - ")
	out, result := run(t, plainValues, stream, Options{Namespace: "shop"})
	require.Greater(t, len(result.Notes), 900)
	m, err := proxytest.Parse(out)
	require.NoError(t, err)
	notes := m.Find("Deployment", "web").Annotation(AnnotationNotes)
	assert.LessOrEqual(t, len(notes), maxNotesBytes+100)
	assert.Regexp(t, `\nand \d+ more notes, on proxykit inject's standard error$`, notes)
}
