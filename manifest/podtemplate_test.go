package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func indent(s, prefix string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, prefix+line)
	}
	return strings.Join(out, "\n") + "\n"
}

func TestContainersOfEveryWorkloadKind(t *testing.T) {
	spec := "containers: [{name: main, image: x}]\ninitContainers: [{name: init, image: x}]"
	tmpl := func(kind, apiVersion, path string) string {
		doc := "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: w}\n"
		return doc + indent(path+indent(spec, strings.Repeat("  ", strings.Count(path, "\n"))), "")
	}
	manifests := strings.Join([]string{
		"apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n" + indent(spec+"\nephemeralContainers: [{name: debug, image: x}]", "  "),
		tmpl("Deployment", "apps/v1", "spec:\n  template:\n    spec:\n"),
		tmpl("StatefulSet", "apps/v1", "spec:\n  template:\n    spec:\n"),
		tmpl("DaemonSet", "apps/v1", "spec:\n  template:\n    spec:\n"),
		tmpl("ReplicaSet", "apps/v1", "spec:\n  template:\n    spec:\n"),
		tmpl("Job", "batch/v1", "spec:\n  template:\n    spec:\n"),
		tmpl("CronJob", "batch/v1", "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"),
		tmpl("Rollout", "argoproj.io/v1alpha1", "spec:\n  template:\n    spec:\n"),
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: w}\ndata: {a: b}",
	}, "\n---\n")
	m, err := Parse(manifests)
	require.NoError(t, err)
	var got []string
	for _, c := range m.Containers() {
		got = append(got, c.Object+" "+c.List+" "+c.Name)
	}
	want := []string{"Pod/w initContainers init", "Pod/w containers main", "Pod/w ephemeralContainers debug"}
	for _, kind := range []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Rollout"} {
		want = append(want, kind+"/w initContainers init", kind+"/w containers main")
	}
	assert.Equal(t, want, got)
}
