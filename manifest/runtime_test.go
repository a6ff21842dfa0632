package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"sigs.k8s.io/yaml"
)

// The containers a program makes Pods from at run time are found where charts
// keep them: a custom resource's containers, an agent template in a JCasC
// file; a pod template of a workload, a whole Pod manifest in a ConfigMap and
// a list of names without images are none.
func TestRunTimeTemplates(t *testing.T) {
	for _, tc := range []struct {
		name, object string
		want         []string
	}{
		{"a Prometheus' own containers", `{kind: Prometheus, spec: {replicas: 2, containers: [{name: config-reloader, image: reloader:1}]}}`, []string{".spec.containers"}},
		{"JCasC agent templates", `{kind: ConfigMap, data: {jcasc.yaml: "jenkins:\n  clouds:\n    - kubernetes:\n        templates:\n          - name: agent\n            containers:\n              - name: jnlp\n                image: inbound-agent:3\n", plain: "x=1"}}`,
			[]string{"key jcasc.yaml: .jenkins.clouds[0].kubernetes.templates[0].containers"}},
		{"a Deployment's pod template", `{kind: Deployment, spec: {template: {spec: {containers: [{name: app, image: app:1}]}}}}`, nil},
		{"a Pod manifest in a ConfigMap", `{kind: ConfigMap, data: {pod.yaml: "kind: Pod\nspec:\n  containers:\n    - name: base\n      image: airflow:2\n"}}`, nil},
		{"names without images", `{kind: Certificate, spec: {containers: [a, b]}}`, nil},
	} {
		var object map[string]any
		if err := yaml.Unmarshal([]byte(tc.object), &object); err != nil {
			t.Fatal(err)
		}
		assert.Equal(t, tc.want, RunTimeTemplates(object), tc.name)
	}
}
