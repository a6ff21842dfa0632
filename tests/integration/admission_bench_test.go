//go:build integration

package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// BenchmarkAdmissionLatency measures Pod CREATE through the loopback API server,
// as a client sees it: with no policy, with the native policy, and with Kyverno's
// MutatingPolicy and ClusterPolicy (its controllers running out-of-cluster); and
// each engine's floor: a MutatingAdmissionPolicy, and a Kyverno MutatingPolicy,
// whose apply configuration sets one label, what any such policy costs. The
// engines take turns in rounds, so that drift on this machine reaches them all
// alike; each gets podsPerEngine Pods, of one container, one init container and a
// few env entries. It reports each engine's p50 and p99 in milliseconds;
// hack/bench-ratio.sh prints them as ratios to no policy of the same run, and
// their median over the runs. `make bench` runs it three times (-count 3
// -benchtime 1x): every iteration is a full measurement.
func BenchmarkAdmissionLatency(b *testing.B) {
	const rounds, podsPerEngine = 4, 200
	cp := harness.StartControlPlane(b)
	objects := newObjectClient(b, cp)
	startKyverno(b, cp, objects)
	for _, ns := range []string{fixture.Namespace, "apps"} {
		cp.EnsureNamespace(b, ns)
	}
	engines := append([]admissionEngine{{name: "none"}, {name: floorEngine, native: true}, {name: kyvernoFloorEngine}}, admissionEngines...)
	for i := 0; i < b.N; i++ {
		latencies := map[string][]time.Duration{}
		for round := 0; round < rounds; round++ {
			for _, engine := range engines {
				latencies[engine.name] = append(latencies[engine.name],
					measureAdmission(b, cp, objects, engine, fmt.Sprintf("%d-%d", i, round), podsPerEngine/rounds)...)
			}
		}
		for _, engine := range engines {
			d := latencies[engine.name]
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2])/1e6, engine.name+"-p50-ms")
			b.ReportMetric(float64(d[len(d)*99/100])/1e6, engine.name+"-p99-ms")
		}
	}
}

// measureAdmission installs the engine (none: nothing), waits until it injects,
// creates n Pods one after another and returns each CREATE's latency, then
// uninstalls and waits until nothing injects.
func measureAdmission(b *testing.B, cp *harness.ControlPlane, objects *objectClient, engine admissionEngine, id string, n int) []time.Duration {
	ctx := context.Background()
	cell := admissionCell{engine: engine, config: configPlain, failurePolicy: "Ignore", id: "bench-" + id}
	rel := e2eRelease{cell.release(), fixture.ProxyPolicies, fixture.Namespace, cell.values("")}
	if engine.values != "" {
		require.NoError(b, helm.InstallE(b, helmOptions(cp, rel), rel.chart, rel.name))
		waitForCell(b, cp, cell)
	}
	if isFloor(engine) {
		bindFloorPolicy(b, cp, objects, engine, true)
	}
	// the timed requests go unthrottled: a client-side rate limiter's wait is no admission latency
	unthrottled := rest.CopyConfig(cp.Config)
	unthrottled.QPS, unthrottled.RateLimiter = -1, nil
	client, err := kubernetes.NewForConfig(unthrottled)
	require.NoError(b, err)
	var out []time.Duration
	var names []string
	for i := 0; i < n; i++ {
		p := fixture.Pod(fmt.Sprintf("bench-%s-%s-%d", engine.name, id, i), "apps", nil, fixture.Ctr("app", fixture.Val("TZ", "UTC"), fixture.Val("LOG_LEVEL", "info")))
		p.Name = strings.ToLower(p.Name)
		p.Spec.InitContainers = []corev1.Container{fixture.Ctr("init")}
		began := time.Now()
		created, err := client.CoreV1().Pods("apps").Create(ctx, &p, metav1.CreateOptions{})
		out = append(out, time.Since(began))
		require.NoError(b, err)
		require.Equal(b, engine.values != "", len(created.Spec.Containers[0].Env) > 2, "%s must inject", engine.name)
		if isFloor(engine) {
			require.Equal(b, "yes", created.Labels[floorLabel[engine.name]], "%s sets its label", engine.name)
		}
		names = append(names, created.Name)
	}
	for _, name := range names {
		require.NoError(b, cp.Client.CoreV1().Pods("apps").Delete(ctx, name, metav1.DeleteOptions{}))
	}
	if engine.values != "" {
		require.NoError(b, helm.DeleteE(b, helmOptions(cp, rel), rel.name, true))
		waitForNoInjection(b, cp)
	}
	if isFloor(engine) {
		bindFloorPolicy(b, cp, objects, engine, false)
	}
	return out
}

// The floors: a policy whose apply configuration sets one label, what any policy of
// the engine costs (the native one's MutatingAdmissionPolicy, Kyverno's MutatingPolicy).
const (
	floorEngine        = "floor"
	kyvernoFloorEngine = "kyverno-floor"
)

var floorLabel = map[string]string{floorEngine: "native-floor", kyvernoFloorEngine: "kyverno-floor"}

// isFloor tells whether engine is one of the floors.
func isFloor(engine admissionEngine) bool { return floorLabel[engine.name] != "" }

// bindFloorPolicy creates (bind) or deletes the floor policy of engine, and waits
// until Pods get its label, or no longer do.
func bindFloorPolicy(b *testing.B, cp *harness.ControlPlane, objects *objectClient, engine admissionEngine, bind bool) {
	ctx := context.Background()
	label := floorLabel[engine.name]
	expression := `Object{metadata: Object.metadata{labels: {"` + label + `": "yes"}}}`
	kyverno := schema.GroupVersionResource{Group: "policies.kyverno.io", Version: "v1", Resource: "mutatingpolicies"}
	policies := cp.Client.AdmissionregistrationV1()
	switch {
	case !bind && engine.name == kyvernoFloorEngine:
		require.NoError(b, objects.dynamic.Resource(kyverno).Delete(ctx, label, metav1.DeleteOptions{}))
	case !bind:
		require.NoError(b, policies.MutatingAdmissionPolicyBindings().Delete(ctx, label, metav1.DeleteOptions{}))
		require.NoError(b, policies.MutatingAdmissionPolicies().Delete(ctx, label, metav1.DeleteOptions{}))
	case engine.name == kyvernoFloorEngine:
		policy := &unstructured.Unstructured{}
		require.NoError(b, yaml.Unmarshal([]byte(`apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: `+label+`}
spec:
  failurePolicy: Ignore
  reinvocationPolicy: IfNeeded
  autogen: {podControllers: {controllers: []}}
  evaluation: {background: {enabled: false}}
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: '`+expression+`'}
`), &policy.Object))
		_, err := objects.dynamic.Resource(kyverno).Create(ctx, policy, metav1.CreateOptions{})
		require.NoError(b, err)
	default:
		rule := admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}}
		_, err := policies.MutatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: label},
			Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				MatchConstraints:   &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule}},
				ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
				Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: expression}}},
			},
		}, metav1.CreateOptions{})
		require.NoError(b, err)
		_, err = policies.MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: label}, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: label},
		}, metav1.CreateOptions{})
		require.NoError(b, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		p := fixture.Pod(fmt.Sprintf("%s-canary-%d", label, i), "apps", nil, fixture.Ctr("canary"))
		created, err := cp.Client.CoreV1().Pods("apps").Create(ctx, &p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		require.NoError(b, err)
		if (created.Labels[label] == "yes") == bind {
			return
		}
		require.True(b, time.Now().Before(deadline), "the %s policy never took effect (bind=%v)", label, bind)
		time.Sleep(100 * time.Millisecond)
	}
}
