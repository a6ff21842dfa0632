//go:build integration

package admission

import (
	"context"
	"fmt"
	"os"
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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// BenchmarkAdmissionLatency measures Pod CREATE through the loopback API server,
// as a client sees it: with no policy, with the native policy, and with Kyverno's
// MutatingPolicy and ClusterPolicy (its controllers running out-of-cluster); and
// each engine's floor: a MutatingAdmissionPolicy, and a Kyverno MutatingPolicy,
// whose apply configuration sets one label, and a ClusterPolicy whose one rule sets
// it by a JSON patch, what any such policy costs, and references beside them (below). The
// engines take turns in rounds, so that drift on this machine reaches them all
// alike; each gets podsPerEngine Pods, of one container, one init container and a
// few env entries, and each policy engine half as many more whose container sets
// its own NO_PROXY, http_proxy and JAVA_TOOL_OPTIONS (reported apart, as the
// engine's -own-p50). Each engine is installed, then measured once the API server,
// etcd and Kyverno have settled (a policy is compiled once when installed, and
// more than once as its status is written: a one-time cost, not admission's).
// It reports each engine's p50 and p99 in milliseconds, and the CPU time per Pod
// the API server with etcd and Kyverno's admission controller spent while it was
// measured; hack/bench-ratio.sh prints them as ratios to no policy (and to the
// engine's floor) of the same run, and their median over the runs. `make bench`
// runs it three times (-count 3 -benchtime 1x): every iteration is a full
// measurement.
func BenchmarkAdmissionLatency(b *testing.B) {
	const rounds, podsPerEngine = 4, 200
	cp := harness.StartControlPlane(b)
	objects := itest.NewObjectClient(b, cp)
	kyverno := itest.StartKyverno(b, cp, objects)[:1]
	for _, ns := range []string{fixture.Namespace, "apps"} {
		cp.EnsureNamespace(b, ns)
	}
	engines := benchEngines(b, append([]itest.AdmissionEngine{{Name: "none"}, {Name: floorEngine, Native: true}, {Name: jsonPatchEnvEngine, Native: true},
		{Name: applyEnvEngine, Native: true}, {Name: kyvernoFloorEngine}, {Name: kyvernoJSONPatchEnvEngine}, {Name: kyvernoApplyEnvEngine}, {Name: clusterPolicyFloorEngine}}, itest.AdmissionEngines...))
	// what the engines inject into a container that sets nothing itself, which the references set too
	like := admissionCell{engine: itest.AdmissionEngines[0], config: configPlain, failurePolicy: "Ignore", id: "bench-reference"}
	env := like.env(like.javaOptions(b))
	for i := 0; i < b.N; i++ {
		seen := map[string]*admissionMeasure{}
		for round := 0; round < rounds; round++ {
			for _, engine := range engines {
				m := measureAdmission(b, cp, objects, engine, fmt.Sprintf("%d-%d", i, round), podsPerEngine/rounds, kyverno, env)
				if seen[engine.Name] == nil {
					seen[engine.Name] = &admissionMeasure{}
				}
				seen[engine.Name].add(m)
			}
		}
		for _, engine := range engines {
			m := seen[engine.Name]
			b.ReportMetric(percentile(m.latencies, 50), engine.Name+"-p50-ms")
			b.ReportMetric(percentile(m.latencies, 99), engine.Name+"-p99-ms")
			b.ReportMetric(float64(m.apiserverCPU)/1e6/float64(len(m.latencies)), engine.Name+"-apiserver-cpu-ms")
			b.ReportMetric(float64(m.kyvernoCPU)/1e6/float64(len(m.latencies)), engine.Name+"-kyverno-cpu-ms")
			if m.ownLatencies != nil {
				b.ReportMetric(percentile(m.ownLatencies, 50), engine.Name+"-own-p50-ms")
			}
		}
	}
}

// percentile is the p-th percentile of the latencies, in milliseconds (it sorts them).
func percentile(latencies []time.Duration, p int) float64 {
	slices.Sort(latencies)
	return float64(latencies[len(latencies)*p/100]) / 1e6
}

// admissionMeasure is what measureAdmission saw: each CREATE's latency, and the CPU
// time the API server (with etcd) and Kyverno's admission controller used meanwhile.
type admissionMeasure struct {
	latencies                []time.Duration
	apiserverCPU, kyvernoCPU time.Duration
	// a policy engine's latencies on Pods whose container sets its own NO_PROXY,
	// http_proxy and JAVA_TOOL_OPTIONS: the path that merges
	ownLatencies []time.Duration
}

// add counts another round's measure in m.
func (m *admissionMeasure) add(round admissionMeasure) {
	m.latencies = append(m.latencies, round.latencies...)
	m.ownLatencies = append(m.ownLatencies, round.ownLatencies...)
	m.apiserverCPU += round.apiserverCPU
	m.kyvernoCPU += round.kyvernoCPU
}

// measureAdmission installs the engine (none: nothing), waits until it injects and
// the processes have settled, creates n Pods one after another, then uninstalls and
// waits until nothing injects.
func measureAdmission(b *testing.B, cp *harness.ControlPlane, objects *itest.ObjectClient, engine itest.AdmissionEngine, id string, n int, kyverno []int, env []corev1.EnvVar) admissionMeasure {
	ctx := context.Background()
	cell := admissionCell{engine: engine, config: configPlain, failurePolicy: "Ignore", id: "bench-" + id}
	rel := itest.E2ERelease{Name: cell.release(), Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: cell.values("")}
	if engine.Values != "" {
		require.NoError(b, helm.InstallE(b, itest.HelmOptions(cp, rel), rel.Chart, rel.Name))
		waitForCell(b, cp, cell)
	}
	if isFloor(engine) {
		bindFloorPolicy(b, cp, objects, engine, true, env)
	}
	// the timed requests go unthrottled: a client-side rate limiter's wait is no admission latency
	unthrottled := rest.CopyConfig(cp.Config)
	unthrottled.QPS, unthrottled.RateLimiter = -1, nil
	client, err := kubernetes.NewForConfig(unthrottled)
	require.NoError(b, err)
	harness.Settle(b, time.Minute, append(cp.PIDs, kyverno...)...)
	var out admissionMeasure
	var names []string
	apiserverBefore, kyvernoBefore := harness.CPUTime(cp.PIDs...), harness.CPUTime(kyverno...)
	for i := 0; i < n; i++ {
		created, took := createBenchPod(b, client, fmt.Sprintf("bench-%s-%s-%d", engine.Name, id, i), fixture.Ctr("app", fixture.Val("TZ", "UTC"), fixture.Val("LOG_LEVEL", "info")))
		out.latencies = append(out.latencies, took)
		require.Equal(b, engine.Values != "" || referenceEnv[engine.Name] != nil, len(created.Spec.Containers[0].Env) > 2, "%s must inject", engine.Name)
		if isFloor(engine) {
			require.Equal(b, "yes", created.Labels[floorLabel[engine.Name]], "%s sets its label", engine.Name)
		}
		names = append(names, created.Name)
	}
	out.apiserverCPU, out.kyvernoCPU = harness.CPUTime(cp.PIDs...)-apiserverBefore, harness.CPUTime(kyverno...)-kyvernoBefore
	for i := 0; engine.Values != "" && i < n/2; i++ {
		created, took := createBenchPod(b, client, fmt.Sprintf("bench-own-%s-%s-%d", engine.Name, id, i), fixture.Ctr("app", fixture.Val("TZ", "UTC"),
			fixture.Val("NO_PROXY", "legacy.corp.example,.internal.example"), fixture.Val("http_proxy", "http://own-proxy.corp.example:3128"),
			fixture.Val("JAVA_TOOL_OPTIONS", "-Xmx512m")))
		out.ownLatencies = append(out.ownLatencies, took)
		own := fixture.EnvMap(created.Spec.Containers[0].Env)
		require.Equal(b, "http://own-proxy.corp.example:3128", own["HTTP_PROXY"].Value, "%s: HTTP_PROXY from the own http_proxy", engine.Name)
		require.True(b, strings.HasSuffix(own["NO_PROXY"].Value, ",legacy.corp.example,.internal.example"), "%s: the own NO_PROXY merged (policy.mergeNoProxy by default): %s", engine.Name, own["NO_PROXY"].Value)
		names = append(names, created.Name)
	}
	for _, name := range names {
		require.NoError(b, cp.Client.CoreV1().Pods("apps").Delete(ctx, name, metav1.DeleteOptions{}))
	}
	if engine.Values != "" {
		require.NoError(b, helm.DeleteE(b, itest.HelmOptions(cp, rel), rel.Name, true))
		itest.WaitForNoInjection(b, cp)
	}
	if isFloor(engine) {
		bindFloorPolicy(b, cp, objects, engine, false, env)
	}
	return out
}

// createBenchPod creates a Pod in apps of the container app and an init container
// without env, and returns it as stored with the CREATE's latency.
func createBenchPod(b *testing.B, client kubernetes.Interface, name string, app corev1.Container) (corev1.Pod, time.Duration) {
	p := fixture.Pod(strings.ToLower(name), "apps", nil, app)
	p.Spec.InitContainers = []corev1.Container{fixture.Ctr("init")}
	began := time.Now()
	created, err := client.CoreV1().Pods("apps").Create(context.Background(), &p, metav1.CreateOptions{})
	took := time.Since(began)
	require.NoError(b, err)
	return *created, took
}

// The floors: a policy whose apply configuration sets one label, what any policy of
// the engine costs (the native one's MutatingAdmissionPolicy, Kyverno's MutatingPolicy),
// and a ClusterPolicy whose one rule sets it by a JSON patch. Beside the native floor, two
// references that show what the mechanism costs: the env the engines inject, with the
// label, appended to every container by a JSON patch (as the policies do for a Pod
// without own settings) with none of their logic, and set by an apply configuration; each
// invoked once (reinvocationPolicy Never: the JSON patch would append again), where the
// floor, as naive as a policy can be, is invoked twice (the API server invokes a policy
// with IfNeeded again after its own change). Beside Kyverno's floor, the same two as
// MutatingPolicies (Kyverno's webhook is not invoked again for its own change).
const (
	floorEngine               = "floor"
	kyvernoFloorEngine        = "kyverno-floor"
	kyvernoJSONPatchEnvEngine = "kyverno-jsonpatch-env"
	kyvernoApplyEnvEngine     = "kyverno-apply-env"
	clusterPolicyFloorEngine  = "clusterpolicy-floor"
	jsonPatchEnvEngine        = "jsonpatch-env"
	applyEnvEngine            = "apply-env"
)

var floorLabel = map[string]string{floorEngine: "native-floor", kyvernoFloorEngine: "kyverno-floor", kyvernoJSONPatchEnvEngine: "kyverno-jsonpatch-env",
	kyvernoApplyEnvEngine: "kyverno-apply-env", clusterPolicyFloorEngine: "clusterpolicy-floor", jsonPatchEnvEngine: "jsonpatch-env", applyEnvEngine: "apply-env"}

// benchEngineVar names the engines one run measures (comma-separated, "none" always
// among them), for a profile or a quick look at one engine; make bench measures all.
const benchEngineVar = "PROXYKIT_BENCH_ENGINES"

// benchEngines is engines, or those of them that benchEngineVar names.
func benchEngines(b *testing.B, engines []itest.AdmissionEngine) []itest.AdmissionEngine {
	named := os.Getenv(benchEngineVar)
	if named == "" {
		return engines
	}
	keep := append(strings.Split(named, ","), "none")
	var out []itest.AdmissionEngine
	for _, e := range engines {
		if slices.Contains(keep, e.Name) {
			out = append(out, e)
		}
	}
	require.Len(b, out, len(slices.Compact(slices.Sorted(slices.Values(keep)))), "%s=%s: every name one of the bench's engines", benchEngineVar, named)
	return out
}

// referenceEnv writes the references' mutations: the label, and the env in every
// container of both lists the bench Pods have; Kyverno's references, MutatingPolicies,
// take the native ones' mutations.
var referenceEnv = map[string]func(env []corev1.EnvVar, label string) admissionregistrationv1.Mutation{
	jsonPatchEnvEngine:        jsonPatchEnv,
	kyvernoJSONPatchEnvEngine: jsonPatchEnv,
	applyEnvEngine:            applyEnv,
	kyvernoApplyEnvEngine:     applyEnv,
}

// jsonPatchEnv appends the env to every container by a JSON patch, and sets the label.
func jsonPatchEnv(env []corev1.EnvVar, label string) admissionregistrationv1.Mutation {
	var entries, lists []string
	for _, e := range env {
		entries = append(entries, fmt.Sprintf(`{"name": dyn(%q), "value": dyn(%q)}`, e.Name, e.Value))
	}
	for _, list := range []string{"containers", "initContainers"} {
		path := `"/spec/` + list + `/" + string(i) + "/env"`
		lists = append(lists, `(!has(object.spec.`+list+`) ? [] : lists.range(size(object.spec.`+list+`)).map(i, !has(object.spec.`+list+`[i].env) ? `+
			`[JSONPatch{op: "add", path: `+path+`, value: plist}] : plist.map(e, JSONPatch{op: "add", path: `+path+` + "/-", value: e})).flatten())`)
	}
	labelPatch := fmt.Sprintf(`(has(object.metadata.labels) ? [JSONPatch{op: "add", path: "/metadata/labels/%s", value: "yes"}] : [JSONPatch{op: "add", path: "/metadata/labels", value: {%q: "yes"}}])`, label, label)
	return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{
		Expression: "[[" + strings.Join(entries, ", ") + "]].map(plist, " + strings.Join(lists, " + ") + " + " + labelPatch + ")[0]"}}
}

// applyEnv sets the env in every container by an apply configuration, and the label.
func applyEnv(env []corev1.EnvVar, label string) admissionregistrationv1.Mutation {
	var entries, lists []string
	for _, e := range env {
		entries = append(entries, fmt.Sprintf(`{"name": %q, "value": %q}`, e.Name, e.Value))
	}
	for _, list := range []string{"containers", "initContainers"} {
		lists = append(lists, `?`+list+`: !has(object.spec.`+list+`) ? optional.none() : optional.of(object.spec.`+list+`.map(c, Object.spec.`+list+
			`{name: c.name, env: plist.map(e, Object.spec.`+list+`.env{name: e.name, value: e.value})}))`)
	}
	return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
		Expression: "[[" + strings.Join(entries, ", ") + "]].map(plist, Object{metadata: Object.metadata{labels: {" + fmt.Sprintf("%q", label) + `: "yes"}}, spec: Object.spec{` + strings.Join(lists, ", ") + "}})[0]"}}
}

// isFloor tells whether engine is one of the floors or references.
func isFloor(engine itest.AdmissionEngine) bool { return floorLabel[engine.Name] != "" }

// bindFloorPolicy creates (bind) or deletes the floor policy of engine, and waits
// until Pods get its label, or no longer do.
func bindFloorPolicy(b *testing.B, cp *harness.ControlPlane, objects *itest.ObjectClient, engine itest.AdmissionEngine, bind bool, env []corev1.EnvVar) {
	ctx := context.Background()
	label := floorLabel[engine.Name]
	expression := `Object{metadata: Object.metadata{labels: {"` + label + `": "yes"}}}`
	kyverno := schema.GroupVersionResource{Group: "policies.kyverno.io", Version: "v1", Resource: "mutatingpolicies"}
	// without the API server's warning that the kind is deprecated, which client-go would
	// log into the middle of the benchmark's result line
	quiet := rest.CopyConfig(cp.Config)
	quiet.WarningHandler = rest.NoWarnings{}
	quietDynamic, err := dynamic.NewForConfig(quiet)
	require.NoError(b, err)
	clusterPolicies := quietDynamic.Resource(schema.GroupVersionResource{Group: "kyverno.io", Version: "v1", Resource: "clusterpolicies"})
	policies := cp.Client.AdmissionregistrationV1()
	switch {
	case !bind && (engine.Name == kyvernoFloorEngine || engine.Name == kyvernoJSONPatchEnvEngine || engine.Name == kyvernoApplyEnvEngine):
		require.NoError(b, objects.Dynamic.Resource(kyverno).Delete(ctx, label, metav1.DeleteOptions{}))
	case !bind && engine.Name == clusterPolicyFloorEngine:
		require.NoError(b, clusterPolicies.Delete(ctx, label, metav1.DeleteOptions{}))
	case engine.Name == clusterPolicyFloorEngine:
		// the bench's Pods and canaries have no labels: the add makes the map
		policy := &unstructured.Unstructured{}
		require.NoError(b, yaml.Unmarshal([]byte(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: `+label+`
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  background: false
  failurePolicy: Ignore
  rules:
    - name: label
      match: {any: [{resources: {kinds: [Pod], operations: [CREATE]}}]}
      mutate:
        patchesJson6902: |-
          - op: add
            path: /metadata/labels
            value: {`+label+`: "yes"}
`), &policy.Object))
		_, err := clusterPolicies.Create(ctx, policy, metav1.CreateOptions{})
		require.NoError(b, err)
	case !bind:
		require.NoError(b, policies.MutatingAdmissionPolicyBindings().Delete(ctx, label, metav1.DeleteOptions{}))
		require.NoError(b, policies.MutatingAdmissionPolicies().Delete(ctx, label, metav1.DeleteOptions{}))
	case engine.Name == kyvernoFloorEngine || engine.Name == kyvernoJSONPatchEnvEngine || engine.Name == kyvernoApplyEnvEngine:
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
		if write := referenceEnv[engine.Name]; write != nil {
			// the native reference's mutation, as Kyverno runs it
			m := write(env, label)
			mutation := map[string]any{"patchType": string(m.PatchType)}
			if m.JSONPatch != nil {
				mutation["jsonPatch"] = map[string]any{"expression": m.JSONPatch.Expression}
			} else {
				mutation["applyConfiguration"] = map[string]any{"expression": m.ApplyConfiguration.Expression}
			}
			require.NoError(b, unstructured.SetNestedSlice(policy.Object, []any{mutation}, "spec", "mutations"))
		}
		_, err := objects.Dynamic.Resource(kyverno).Create(ctx, policy, metav1.CreateOptions{})
		require.NoError(b, err)
	default:
		rule := admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}}
		mutation := admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: expression}}
		reinvocation := admissionregistrationv1.IfNeededReinvocationPolicy
		if write := referenceEnv[engine.Name]; write != nil {
			mutation, reinvocation = write(env, label), admissionregistrationv1.NeverReinvocationPolicy
		}
		_, err := policies.MutatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: label},
			Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				MatchConstraints:   &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule}},
				ReinvocationPolicy: reinvocation,
				Mutations:          []admissionregistrationv1.Mutation{mutation},
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
