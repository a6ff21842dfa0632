//go:build integration

package audit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestDayTwoWithCredentials plays day 2 as an operator meets it on a loopback
// kube-apiserver: proxy-policies' native engine with a password (the Pods read
// the URLs from a Secret, whose values audit never reads), then a rotated
// password and a new network, each through the Secret in place as `helm
// upgrade` does it. Right after install nothing is stale; after each change
// exactly the Pods started before it are, judged by the record each Pod was
// admitted with against its Secret's, with no -f; a Pod that proxykit inject
// gave the proxy is judged against the Secret inject emitted; a container's own
// variables, kept on purpose, are never compared.
func TestDayTwoWithCredentials(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	ctx := context.Background()
	for _, ns := range []string{"apps", "outside", "shop", fixture.Namespace} {
		cp.EnsureNamespace(t, ns)
	}
	itest.CreatePod(t, cp, fixture.Pod("before", "apps", nil, fixture.Ctr("app")))

	values := func(password, podCIDRs string) string {
		url := "http://svc-user:" + password + "@proxy.corp.example:3128"
		return "proxy:\n  http: " + url + "\n  https: " + url + "\n" +
			"cluster:\n  podCIDRs: [" + podCIDRs + "]\n  serviceCIDRs: [10.96.0.0/12]\n  apiServer: 10.96.0.1\n" +
			"namespaces: {exclude: [kube-system]}\nkyverno: {enabled: false}\nnative: {enabled: true, secretNamespaces: [apps]}\n"
	}
	secretName := "day2-proxy-credentials"
	rel := itest.E2ERelease{Name: "day2", Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: values("Zq%40w1", "10.244.0.0/16")}
	require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm install")
	itest.WaitForRecord(t, cp, "apps", fixture.Record(t, rel.Values))

	createOwnedPods(t, cp, "apps", "web", "web-5d8f-a", "web-5d8f-b")
	// its own HTTP_PROXY, kept on purpose (own settings are always kept with credentials)
	own := itest.CreatePod(t, cp, fixture.Pod("own", "apps", nil, fixture.Ctr("app", fixture.Val("HTTP_PROXY", "http://own.corp.example:8080"))))
	require.Equal(t, "http://own.corp.example:8080", fixture.EnvMap(own.Spec.Containers[0].Env)["HTTP_PROXY"].Value)
	itest.CreatePod(t, cp, fixture.Pod("elsewhere", "outside", nil, fixture.Ctr("app")))

	// a Pod that proxykit inject gave the proxy, with the Secret it emits, in a
	// namespace the policy leaves alone (it holds no copy of the policy's Secret)
	var injectValues map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(values("inj3ct", "10.244.0.0/16")), &injectValues))
	pod := fixture.Pod("injected", "shop", nil, fixture.Ctr("app"))
	pod.APIVersion, pod.Kind = "v1", "Pod"
	stream, err := json.Marshal(pod)
	require.NoError(t, err)
	out, _, err := inject.Stream(stream, inject.Options{Values: injectValues, Namespace: "shop", Release: "shop"})
	require.NoError(t, err)
	injected, err := proxytest.Parse(string(out))
	require.NoError(t, err)
	secret := proxytest.Get[corev1.Secret](t, injected, "shop-proxy-credentials")
	_, err = cp.Client.CoreV1().Secrets("shop").Create(ctx, &secret, metav1.CreateOptions{})
	require.NoError(t, err)
	itest.CreatePod(t, cp, proxytest.Get[corev1.Pod](t, injected, "injected"))

	audit := func(args ...string) map[string][]itest.AuditRow {
		t.Helper()
		_, text, stderr := itest.CLI(t, itest.ProxykitCLI(t), append([]string{"audit", "--kubeconfig", cp.Kubeconfig, "-A", "-o", "json"}, args...)...)
		var rows []itest.AuditRow
		require.NoError(t, json.Unmarshal([]byte(text), &rows), "stdout:\n%s\nstderr:\n%s", text, stderr)
		out := map[string][]itest.AuditRow{}
		for _, r := range rows {
			out[r.Rule] = append(out[r.Rule], r)
			for _, secret := range []string{"Zq", "inj3ct", "r0tated"} {
				assert.NotContains(t, r.Message, secret, "a finding never carries a password")
			}
		}
		return out
	}
	pods := func(rows []itest.AuditRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Namespace+"/"+r.Object)
		}
		return out
	}
	valuesFile := func(text string) string {
		f := filepath.Join(t.TempDir(), "values.yaml")
		require.NoError(t, os.WriteFile(f, []byte(text), 0o600))
		return f
	}

	t.Run("right after install: nothing is stale", func(t *testing.T) {
		for _, args := range [][]string{nil, {"-f", valuesFile(rel.Values)}} {
			got := audit(args...)
			assert.Empty(t, got[proxytest.RuleStaleProxyEnv], "audit %v", args)
			assert.ElementsMatch(t, []string{"apps/Pod/before", "outside/Pod/elsewhere"}, pods(got[proxytest.RuleMissingProxyEnv]), "audit %v", args)
			for _, r := range got[proxytest.RuleMissingProxyEnv] {
				assert.Contains(t, r.Message, "the Pod was admitted without the proxy: created before proxy-policies, or in a namespace it leaves out")
			}
		}
	})

	// the password rotates: helm upgrade rewrites the Secret in place, and a Pod started after it gets the new one
	rel.Values = values("r0tated", "10.244.0.0/16")
	require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm upgrade")
	rotated := fixture.Record(t, rel.Values)
	itest.WaitForSecret(t, cp, "apps", secretName, func(s *corev1.Secret) bool { return s.Annotations[proxytest.AnnotationProxyConfig] == rotated })
	// the API server reloads the policy a moment after the upgrade: until then new Pods get the old record
	itest.WaitForRecord(t, cp, "apps", rotated)
	itest.CreatePod(t, cp, fixture.Pod("after", "apps", nil, fixture.Ctr("app")))

	t.Run("a rotated password: exactly the Pods started before it are stale", func(t *testing.T) {
		got := audit()
		assert.ElementsMatch(t, []string{"apps/Pod/web-5d8f-a", "apps/Pod/web-5d8f-b", "apps/Pod/own"}, pods(got[proxytest.RuleStaleProxyEnv]),
			"not the Pod started after it, not inject's (its own Secret did not change)")
		for _, r := range got[proxytest.RuleStaleProxyEnv] {
			assert.Contains(t, r.Message, "a container starting now gets "+rotated+" (from Secret/"+secretName+")")
		}
		code, text, stderr := itest.CLI(t, itest.ProxykitCLI(t), "rollout", "--kubeconfig", cp.Kubeconfig, "-n", "apps")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, text, "would restart (a dry run: --apply restarts them):\n  apps/Deployment/web: 2 Pods (stale-proxy-env)\n")
		assert.Contains(t, text, "  apps/Pod/own: 1 Pod (stale-proxy-env)\n")
		assert.NotContains(t, text, "apps/Pod/after")
	})

	// a new network, through the same Secret in place
	rel.Values = values("r0tated", "10.244.0.0/16, 10.245.0.0/16")
	require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm upgrade")
	moved := fixture.Record(t, rel.Values)
	itest.WaitForSecret(t, cp, "apps", secretName, func(s *corev1.Secret) bool { return s.Annotations[proxytest.AnnotationProxyConfig] == moved })

	t.Run("a new network in the Secret: the Pod started after the rotation is stale now too", func(t *testing.T) {
		got := audit()
		assert.ElementsMatch(t, []string{"apps/Pod/web-5d8f-a", "apps/Pod/web-5d8f-b", "apps/Pod/own", "apps/Pod/after"}, pods(got[proxytest.RuleStaleProxyEnv]))
		// with the values: the Secret still speaks first; inject's Pod reads inject's Secret, unchanged
		got = audit("-f", valuesFile(rel.Values))
		assert.ElementsMatch(t, []string{"apps/Pod/web-5d8f-a", "apps/Pod/web-5d8f-b", "apps/Pod/own", "apps/Pod/after"}, pods(got[proxytest.RuleStaleProxyEnv]))
	})
}

// createOwnedPods creates a Deployment, its ReplicaSet and Pods it owns, admitted
// as they come (the loopback control plane runs no controller that would).
func createOwnedPods(t testing.TB, cp *harness.ControlPlane, ns, name string, pods ...string) {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{"app": name}
	deployment, err := cp.Client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{fixture.Ctr("app")}}}}},
		metav1.CreateOptions{})
	require.NoError(t, err)
	isController := true
	rsName := name + "-" + strings.Split(strings.TrimPrefix(pods[0], name+"-"), "-")[0]
	rs, err := cp.Client.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: rsName,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: deployment.UID, Controller: &isController}}},
		Spec: appsv1.ReplicaSetSpec{Selector: deployment.Spec.Selector, Template: deployment.Spec.Template}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for _, pod := range pods {
		p := fixture.Pod(pod, ns, nil, fixture.Ctr("app"))
		p.Labels = labels
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &isController}}
		stored := itest.CreatePod(t, cp, p)
		require.NotEmpty(t, stored.Spec.Containers[0].Env, "injected")
	}
}
