package inject

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
)

// fabric8Like has containers that may run the fabric8 Kubernetes client (a JVM
// image, a JVM option variable of its own, java as the command) beside one
// that may not, which calls a remote API server; the cluster has IPv6 entries.
const fabric8Like = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ci, namespace: jenkins}
spec:
  template:
    spec:
      containers:
        - {name: controller, image: "registry.corp.example/jenkins/jenkins:2.480-jdk21"}
        - name: opts
          image: registry.corp.example/ci/agent:1
          env: [{name: JAVA_OPTS, value: "-Xmx1g"}]
        - {name: launcher, image: "registry.corp.example/tools:1", command: [java, -jar, app.jar]}
        - {name: python, image: "python:3.13"}
`

// A container that may run fabric8 gets NO_PROXY without its bracketed entries,
// which fabric8 throws on when no entry before them matches (another cluster's
// API server): the model then decides the call, where with them it refuses it.
// Every other container keeps them for Python's urllib. A second run changes
// nothing.
func TestStreamFabric8GetsNoProxyItCanRead(t *testing.T) {
	values := strings.Replace(plainValues, "apiServer: 10.96.0.1", "apiServer: 'fd00:10:96::1'", 1)
	out, _ := run(t, values, fabric8Like, Options{Namespace: "jenkins"})
	m := parse(t, out, "jenkins")
	remote := "https://api.other-cluster.corp.example:6443"
	for _, name := range []string{"controller", "opts", "launcher"} {
		got := m.Environment(m.Container(t, "StatefulSet/ci", name))
		assert.NotContains(t, got["NO_PROXY"], "[", name)
		assert.Equal(t, got["NO_PROXY"], got["no_proxy"], "%s: the twins agree", name)
		assert.Contains(t, strings.Split(got["NO_PROXY"], ","), "fd00:10:96::1", "%s: the API server's bare entry stays", name)
		d, err := noproxy.Decide(noproxy.Fabric8, remote, noproxy.Env(got))
		require.NoError(t, err)
		assert.Empty(t, d.Refused, "%s: fabric8 reads NO_PROXY to its end", name)
		assert.False(t, d.Direct, "%s: the remote API server goes through the proxy", name)
	}
	python := m.Environment(m.Container(t, "StatefulSet/ci", "python"))
	assert.Contains(t, strings.Split(python["NO_PROXY"], ","), "[fd00:10:96::1]", "urllib compares the bracketed host")
	d, err := noproxy.Decide(noproxy.Fabric8, remote, noproxy.Env(python))
	require.NoError(t, err)
	assert.NotEmpty(t, d.Refused, "the same list stops fabric8: the reason it is left out where fabric8 may run")

	facts := proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "fd00:10:96::1"}
	assert.Empty(t, proxytest.Check(m, proxytest.WithCluster(facts)), "check finds nothing missing where the brackets are left out")

	again, _ := run(t, values, out, Options{Namespace: "jenkins"})
	assert.Equal(t, out, again, "injecting twice equals injecting once")
}

// What makes a container one that may run fabric8, and what does not: the
// proxy's own JAVA_TOOL_OPTIONS, which inject adds, an empty value, a tag.
func TestMayRunFabric8(t *testing.T) {
	flags := "-Dhttp.proxyHost=proxy.corp"
	val := func(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }
	for name, tc := range map[string]struct {
		c       corev1.Container
		envFrom []string
		want    bool
	}{
		"a JVM image":                    {c: corev1.Container{Image: "registry.corp:5000/ci/jenkins-agent:1"}, want: true},
		"a word in the tag only":         {c: corev1.Container{Image: "tools:java17"}},
		"java as the command":            {c: corev1.Container{Image: "x", Command: []string{"/usr/bin/java"}}, want: true},
		"java as the first arg":          {c: corev1.Container{Image: "x", Args: []string{"java", "-jar", "a.jar"}}, want: true},
		"its own JAVA_OPTS":              {c: corev1.Container{Image: "x", Env: []corev1.EnvVar{val("JAVA_OPTS", "-Xmx1g")}}, want: true},
		"JAVA_OPTS from a ConfigMap":     {c: corev1.Container{Image: "x", Env: []corev1.EnvVar{{Name: "JAVA_OPTS", ValueFrom: &corev1.EnvVarSource{}}}}, want: true},
		"JAVA_TOOL_OPTIONS from envFrom": {c: corev1.Container{Image: "x"}, envFrom: []string{"JAVA_TOOL_OPTIONS"}, want: true},
		"the proxy's flags alone":        {c: corev1.Container{Image: "x", Env: []corev1.EnvVar{val("JAVA_TOOL_OPTIONS", flags)}}},
		"an empty placeholder":           {c: corev1.Container{Image: "x", Env: []corev1.EnvVar{val("JAVA_TOOL_OPTIONS", "")}}},
		"other env from envFrom":         {c: corev1.Container{Image: "python:3"}, envFrom: []string{"LOG_LEVEL"}},
	} {
		assert.Equal(t, tc.want, MayRunFabric8(tc.c, flags, tc.envFrom), name)
	}
}
