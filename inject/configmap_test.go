package inject

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
)

// A Pod manifest a ConfigMap keeps (Airflow's pod_template_file, which its
// KubernetesExecutor makes every task's Pod from at run time) gets the proxy
// as a Pod of the stream would, with a note on the ConfigMap; other values and
// other ConfigMaps are left as they were, and injecting twice equals once.
func TestStreamInjectsPodManifestsKeptInConfigMaps(t *testing.T) {
	stream := `apiVersion: v1
kind: ConfigMap
metadata: {name: airflow-pod-template, namespace: airflow}
data:
  pod_template_file.yaml: |
    # the worker Pod every task runs in
    apiVersion: v1
    kind: Pod
    metadata: {name: placeholder}
    spec:
      containers:
        - name: base
          image: apache/airflow:2.10
          env:
            - {name: AIRFLOW__CORE__EXECUTOR, value: LocalExecutor}
  airflow.cfg: |
    [core]
    executor = KubernetesExecutor
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other, namespace: airflow}
data:
  note.txt: "a kind: Pod with containers, in prose"
`
	out, result := run(t, plainValues, stream, Options{Namespace: "airflow"})
	m, err := proxytest.Parse(out)
	require.NoError(t, err)
	cm := m.Find("ConfigMap", "airflow-pod-template")
	require.NotNil(t, cm)
	data := cm.Content["data"].(map[string]any)
	assert.Equal(t, "[core]\nexecutor = KubernetesExecutor\n", data["airflow.cfg"], "other values stay as they were")
	pod, err := proxytest.Parse(data["pod_template_file.yaml"].(string))
	require.NoError(t, err)
	require.Len(t, pod.Containers(), 1)
	env := pod.Environment(pod.Containers()[0])
	assert.Equal(t, "http://proxy.corp:3128", env["HTTP_PROXY"])
	assert.Equal(t, "LocalExecutor", env["AIRFLOW__CORE__EXECUTOR"], "its own env kept")
	for _, f := range proxytest.Check(pod, proxytest.WithCluster(testFacts)) {
		assert.NotEqual(t, proxytest.RuleMissingProxyEnv, f.Rule, "%s", f)
	}
	assert.Contains(t, cm.Annotation(AnnotationNotes), "ConfigMap/airflow-pod-template key pod_template_file.yaml: a Pod manifest, which a program of the release makes Pods from at run time: 1 containers got the proxy")
	assert.Equal(t, 1, result.Containers)
	other := m.Find("ConfigMap", "other")
	assert.Empty(t, other.Annotation(AnnotationNotes))
	assert.Contains(t, out, "note.txt: \"a kind: Pod with containers, in prose\"", "a value that is no manifest stays as it was written")
}

// Containers kept for Pods a program makes at run time (a custom resource's,
// an agent template in a JCasC file) are named in a note on their object, with
// the policies' advice; nothing in them is changed.
func TestStreamNamesRunTimeTemplates(t *testing.T) {
	stream := `apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: k8s, namespace: monitoring}
spec:
  containers:
    - {name: config-reloader, image: reloader:1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: jenkins-jcasc, namespace: monitoring}
data:
  jcasc.yaml: |
    jenkins:
      clouds:
        - kubernetes:
            templates:
              - name: agent
                containers:
                  - {name: jnlp, image: inbound-agent:3}
`
	out, result := run(t, plainValues, stream, Options{Namespace: "monitoring"})
	notes := strings.Join(result.Notes, "\n")
	assert.Contains(t, notes, "Prometheus/k8s holds containers (.spec.containers) that a program makes Pods from at run time: inject cannot reach those Pods; proxy-policies gives them the proxy at admission")
	assert.Contains(t, notes, "ConfigMap/jenkins-jcasc holds containers (key jcasc.yaml: .jenkins.clouds[0].kubernetes.templates[0].containers)")
	m := parse(t, out, "monitoring")
	assert.Contains(t, m.Find("Prometheus", "k8s").Content["metadata"].(map[string]any)["annotations"].(map[string]any)[AnnotationNotes], "makes Pods from at run time")
	assert.NotContains(t, out, "HTTP_PROXY", "nothing injected into them")
	again, _ := run(t, plainValues, out, Options{Namespace: "monitoring"})
	assert.Equal(t, out, again, "injecting twice equals injecting once")
}
