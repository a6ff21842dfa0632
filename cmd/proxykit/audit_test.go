package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/proxykit/proxykit/proxytest"
)

// Two StatefulSets' db-0 in two namespaces, only one of them injected: the
// audit names the Pod that lacks the proxy, with its own namespace and UID, in
// every output. ("Kind/name" alone mixed them up.)
func TestAuditTellsSameNamePodsApart(t *testing.T) {
	pod := func(ns, uid string, env ...corev1.EnvVar) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: ns, UID: types.UID(uid)},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "x", Env: env}}},
		}
	}
	noProxy := "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.244.0.0/16,10.96.0.0/12,10.96.0.1"
	var env []corev1.EnvVar
	for _, name := range proxytest.ProxyVariables {
		value := "http://proxy.corp.example:3128"
		if name == "NO_PROXY" || name == "no_proxy" {
			value = noProxy
		}
		env = append(env, corev1.EnvVar{Name: name, Value: value})
	}
	// omega's comes first in the listing: a lookup by name alone would find it
	client := fake.NewSimpleClientset(pod("omega", "uid-omega", env...), pod("alpha", "uid-alpha"))
	a := &auditor{ctx: context.Background(), stderr: io.Discard, client: client,
		cluster: proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1"}}
	findings, pods, err := a.run("")
	require.NoError(t, err)
	assert.Equal(t, 2, pods)
	require.Len(t, findings, 1)
	f := findings[0]
	assert.Equal(t, "alpha", f.Namespace)
	assert.Equal(t, "Pod/db-0", f.Object)
	assert.Equal(t, proxytest.RuleMissingProxyEnv, f.Rule)
	assert.Equal(t, "uid-alpha", f.uid)

	var out bytes.Buffer
	require.NoError(t, writeAuditJSON(&out, findings))
	var decoded []map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &decoded))
	assert.Equal(t, "alpha", decoded[0]["namespace"])
	out.Reset()
	require.NoError(t, writePolicyReports(&out, findings))
	assert.Contains(t, out.String(), "namespace: alpha")
	assert.Contains(t, out.String(), "uid: uid-alpha")
	assert.NotContains(t, out.String(), "omega")
}

// -o openreports: a Report per Pod, scoped by its UID: same-name Pods in two
// namespaces get a report each, never one shared.
func TestOpenReportsScopeEachPod(t *testing.T) {
	findings := []auditFinding{
		{Finding: proxytest.Finding{Namespace: "alpha", Object: "Pod/db-0", Container: "db", Rule: proxytest.RuleMissingProxyEnv, Message: "m1"}, uid: "uid-alpha"},
		{Finding: proxytest.Finding{Namespace: "alpha", Object: "Pod/db-0", Container: "db", Rule: proxytest.RuleNoProxyGap, Message: "m2"}, uid: "uid-alpha"},
		{Finding: proxytest.Finding{Namespace: "omega", Object: "Pod/db-0", Container: "db", Rule: proxytest.RuleNoProxyGap, Message: "m3"}, uid: "uid-omega"},
	}
	var out bytes.Buffer
	require.NoError(t, writeOpenReports(&out, findings))
	m, err := proxytest.Parse(out.String())
	require.NoError(t, err)
	require.Len(t, m.Objects, 2)
	for _, o := range m.Objects {
		assert.Equal(t, "Report", o.Kind)
		scope := o.Content["scope"].(map[string]any)
		assert.Equal(t, "Pod", scope["kind"])
		assert.Equal(t, "db-0", scope["name"])
		assert.Equal(t, o.Namespace, scope["namespace"])
		assert.Equal(t, "uid-"+o.Namespace, scope["uid"])
		assert.Equal(t, "proxykit-uid-"+o.Namespace, o.Name)
	}
	alpha := m.FindIn("Report", "proxykit-uid-alpha", "alpha")
	require.NotNil(t, alpha)
	assert.Len(t, alpha.Content["results"], 2)
	assert.Equal(t, map[string]any{"pass": float64(0), "fail": float64(2), "warn": float64(0), "error": float64(0), "skip": float64(0)}, alpha.Content["summary"])
}
