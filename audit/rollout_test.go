package audit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/proxykit/proxykit/rules"
)

func finding(ns, pod, owner, rule string) Finding {
	return Finding{Finding: rules.Finding{Namespace: ns, Object: "Pod/" + pod, Container: "app", Rule: rule}, Owner: owner}
}

// The plan restarts the owners of stale and missing Pods that a new template
// rolls out, lists the ones it cannot restart, and leaves other findings alone.
func TestPlan(t *testing.T) {
	plan := Plan([]Finding{
		finding("apps", "web-1", "Deployment/web", rules.RuleStaleProxyEnv),
		finding("apps", "web-2", "Deployment/web", rules.RuleStaleProxyEnv),
		finding("apps", "web-2", "Deployment/web", rules.RuleMissingProxyEnv),
		finding("apps", "db-0", "StatefulSet/db", rules.RuleMissingProxyEnv),
		finding("apps", "node-x", "DaemonSet/agent", rules.RuleNoProxyGap), // a rollout does not fix NO_PROXY's values
		finding("apps", "debug", "Pod/debug", rules.RuleStaleProxyEnv),
		finding("batch", "nightly-x", "Job/nightly", rules.RuleMissingProxyEnv),
		{Finding: rules.Finding{Namespace: "apps", Object: "ConfigMap/pxcm", Rule: rules.RuleCredentialsExposed}, Owner: "ConfigMap/pxcm"},
	})
	assert.Equal(t, []Owner{
		{Namespace: "apps", Kind: "Deployment", Name: "web", Pods: 2, Rules: []string{rules.RuleStaleProxyEnv, rules.RuleMissingProxyEnv}},
		{Namespace: "apps", Kind: "StatefulSet", Name: "db", Pods: 1, Rules: []string{rules.RuleMissingProxyEnv}},
	}, plan.Restart)
	assert.Equal(t, []Owner{
		{Namespace: "apps", Kind: "Pod", Name: "debug", Pods: 1, Rules: []string{rules.RuleStaleProxyEnv}},
		{Namespace: "batch", Kind: "Job", Name: "nightly", Pods: 1, Rules: []string{rules.RuleMissingProxyEnv}},
	}, plan.Listed)
}

// Rollout restarts as `kubectl rollout restart` does (the template's restartedAt,
// nothing else), a batch at a time, each ready before the next; a dry run
// changes nothing; an owner that never becomes ready stops it, named.
func TestRollout(t *testing.T) {
	one := int32(1)
	ready := func(name string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "apps", Generation: 1},
			Spec:   appsv1.DeploymentSpec{Replicas: &one},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}}
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "apps", Generation: 1}, Spec: appsv1.StatefulSetSpec{Replicas: &one},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1, CurrentRevision: "r1", UpdateRevision: "r1"}}
	client := fake.NewClientset(ready("web"), ready("api"), sts)
	plan := &RolloutPlan{Restart: []Owner{{Namespace: "apps", Kind: "Deployment", Name: "api"}, {Namespace: "apps", Kind: "Deployment", Name: "web"}, {Namespace: "apps", Kind: "StatefulSet", Name: "db"}}}
	ctx := context.Background()

	require.NoError(t, Rollout(ctx, client, plan, RolloutOptions{}))
	d, err := client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Empty(t, d.Spec.Template.Annotations, "a dry run changes nothing")

	var events []string
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	require.NoError(t, Rollout(ctx, client, plan, RolloutOptions{Apply: true, MaxOwners: 2, Now: func() time.Time { return now },
		Progress: func(o Owner, event string) { events = append(events, o.Name+" "+event) }}))
	assert.Equal(t, []string{"api restarted", "web restarted", "api ready", "web ready", "db restarted", "db ready"}, events, "two at a time, each batch ready before the next")
	d, err = client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{RestartAnnotation: "2026-11-25T12:00:00Z"}, d.Spec.Template.Annotations)
	want := ready("web")
	want.Spec.Template.Annotations = map[string]string{RestartAnnotation: "2026-11-25T12:00:00Z"}
	assert.Equal(t, want.Spec, d.Spec, "only the template's restart annotation changes")
	s, err := client.AppsV1().StatefulSets("apps").Get(ctx, "db", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "2026-11-25T12:00:00Z", s.Spec.Template.Annotations[RestartAnnotation])

	stuck := ready("stuck")
	stuck.Status.AvailableReplicas = 0
	client = fake.NewClientset(stuck, ready("after"))
	err = Rollout(ctx, client, &RolloutPlan{Restart: []Owner{{Namespace: "apps", Kind: "Deployment", Name: "stuck"}, {Namespace: "apps", Kind: "Deployment", Name: "after"}}},
		RolloutOptions{Apply: true, Timeout: 1500 * time.Millisecond})
	assert.ErrorContains(t, err, "apps/Deployment/stuck did not become ready")
	after, _ := client.AppsV1().Deployments("apps").Get(ctx, "after", metav1.GetOptions{})
	assert.Empty(t, after.Spec.Template.Annotations, "the next batch waits for the one before")
}
