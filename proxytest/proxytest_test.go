package proxytest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A render without a container (a values typo that turns every workload off)
// fails AssertProxyReady unless the test says the chart has none.
func TestAssertProxyReadyNeedsAContainer(t *testing.T) {
	m, err := Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n")
	require.NoError(t, err)
	rec := &recordingT{TB: t}
	AssertProxyReady(rec, m, WithCluster(testCluster))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "the render has no container")
	assert.Contains(t, rec.errors[0], "proxytest.NoWorkloads()")

	rec = &recordingT{TB: t}
	AssertProxyReady(rec, m, WithCluster(testCluster), NoWorkloads())
	assert.Empty(t, rec.errors)
}

// recordingT keeps what a test reported instead of failing.
type recordingT struct {
	testing.TB
	errors []string
}

func (r *recordingT) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recordingT) Helper() {}

var testCluster = Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1", Metadata: true}

// Tests written against 0.6 pass the facts where an option now goes
// (Check(m, c), AssertProxyReady(t, m, c)): they compile and judge as
// WithCluster(c) does.
func TestClusterWhereAnOptionGoes(t *testing.T) {
	m, err := Parse(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: app
      image: app
      env:
        - {name: HTTP_PROXY, value: "http://proxy:3128"}
        - {name: NO_PROXY, value: "localhost"}
`)
	require.NoError(t, err)
	old := Check(m, testCluster)
	require.NotEmpty(t, old, "the facts were read: NO_PROXY lacks the cluster's networks")
	assert.Equal(t, Check(m, WithCluster(testCluster)), old)
	assert.NotEqual(t, Check(m), old, "without the facts the verdict differs")
	rec := &recordingT{TB: t}
	AssertProxyReady(rec, m, testCluster, NoProxyBudget(4096))
	assert.Len(t, rec.errors, len(old))
}
