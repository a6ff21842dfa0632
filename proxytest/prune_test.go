package proxytest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
)

func TestPruneLibraries(t *testing.T) {
	lib := func() *chart.Chart {
		return &chart.Chart{Metadata: &chart.Metadata{Name: "lib", Type: "library"}, Templates: []*chart.File{
			{Name: "templates/_a.tpl", Data: []byte(`{{- define "lib.a" -}}{{ include "lib.b" . }}{{- end -}}`)},
			{Name: "templates/_b.tpl", Data: []byte(`{{- define "lib.b" -}}b{{- end -}}`)},
			{Name: "templates/_c.tpl", Data: []byte(`{{- define "lib.c" -}}{{ .Values.include }}{{- end -}}`)},
		}}
	}
	app := func(template string) *chart.Chart {
		c := &chart.Chart{Metadata: &chart.Metadata{Name: "app", Type: "application"},
			Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(template)}}}
		c.AddDependency(lib())
		return c
	}
	files := func(c *chart.Chart) []string {
		var names []string
		for _, f := range c.Dependencies()[0].Templates {
			names = append(names, f.Name)
		}
		return names
	}

	c := app(`x: {{ include "lib.a" . }} {{ .Values.namespaces.include }}`)
	pruneLibraries(c)
	assert.Equal(t, []string{"templates/_a.tpl", "templates/_b.tpl"}, files(c), "lib.c is reached by nothing")

	for _, dynamic := range []string{`{{ include .Values.helper . }}`, `{{ include (printf "lib.%s" "c") . }}`, `{{ tpl .Values.t . }}`} {
		c := app(dynamic)
		pruneLibraries(c)
		require.Len(t, files(c), 3, "%s: a helper named at render time keeps every file", dynamic)
	}
}

// A string that says "template" or "include" is no call: the library's messages
// must not turn pruning off (one did, and every render parsed the whole library).
func TestPruneIgnoresWordsInStrings(t *testing.T) {
	f := &chart.File{Name: "templates/_x.tpl", Data: []byte(`{{- define "x" -}}{{ fail "before the template sees it; include it" }}{{ include "y" . }}{{- end -}}`)}
	r := scanFile(f)
	assert.False(t, r.dynamic)
	assert.Equal(t, []string{"y"}, r.calls)

	c, err := loadChart("../examples/consumer-app")
	require.NoError(t, err)
	require.NoError(t, addEmbeddedLibrary(c, true))
	before := len(c.Dependencies()[0].Templates)
	pruneLibraries(c)
	assert.Less(t, len(c.Dependencies()[0].Templates), before, "the embedded library is pruned for a chart that reaches part of it")
}
