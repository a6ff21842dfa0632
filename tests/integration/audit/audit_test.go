//go:build integration

package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	proxyaudit "github.com/proxykit/proxykit/audit"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/rules"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestAudit admits Pods through proxy-policies' native policy on a loopback
// kube-apiserver (before the policy, injected, with a missing Secret, opted out,
// in kube-system), then audits them: zero findings on injected Pods, findings on
// the others, stale-proxy-env on injected Pods after a network is added, and
// PolicyReports the API server accepts with the real PolicyReport CRD.
func TestAudit(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	ctx := context.Background()
	objects := itest.NewObjectClient(t, cp)
	itest.ApplyModuleCRDs(t, objects, "github.com/kyverno/kyverno", "kyverno", "config/crds/policyreport/*.yaml",
		schema.GroupVersionKind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Kind: "PolicyReport"})
	itest.ApplyModuleCRDs(t, objects, "github.com/openreports/reports-api", "kyverno", "config/crd/openreports.io_reports.yaml",
		schema.GroupVersionKind{Group: "openreports.io", Version: "v1alpha1", Kind: "Report"})
	for _, ns := range []string{"apps", "omega", "kube-system", fixture.Namespace} {
		cp.EnsureNamespace(t, ns)
	}

	// a Pod from before the policy: it never gets the proxy
	itest.CreatePod(t, cp, fixture.Pod("before", "apps", nil, fixture.Ctr("app")))
	itest.CreatePod(t, cp, fixture.Pod("system", "kube-system", nil, fixture.Ctr("app")))

	values := func(podCIDRs string) string {
		return "proxy:\n  http: http://proxy.corp.example:3128\n  https: http://proxy.corp.example:3129\n" +
			"cluster:\n  podCIDRs: [" + podCIDRs + "]\n  serviceCIDRs: [10.96.0.0/12]\n  apiServer: 10.96.0.1\n" +
			"namespaces: {exclude: [kube-system]}\nkyverno: {enabled: false}\nnative: {enabled: true}\n"
	}
	rel := itest.E2ERelease{Name: "audit", Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: values("10.244.0.0/16")}
	require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm install")
	itest.WaitForInjection(t, cp, "apps", "http://proxy.corp.example:3129")
	valuesFile := func(text string) string {
		f := filepath.Join(t.TempDir(), "values.yaml")
		require.NoError(t, os.WriteFile(f, []byte(text), 0o600))
		return f
	}
	v1 := valuesFile(rel.Values)

	// a Deployment's Pods (its ReplicaSet owns them), injected
	createOwnedPods(t, cp, "apps", "web", "web-5d8f-a", "web-5d8f-b")
	// the wrong Secret: its own HTTP_PROXY reads a Secret that is not there
	itest.CreatePod(t, cp, fixture.Pod("wrong-secret", "apps", nil, fixture.Ctr("app", fixture.SecretRef("HTTP_PROXY", "nope", "HTTP_PROXY"))))
	itest.CreatePod(t, cp, fixture.Pod("opted-out", "apps", map[string]string{proxytest.AnnotationInject: "false"}, fixture.Ctr("app")))
	// a Pod of the same name in another namespace, injected: the audit must not mix
	// it up with apps/before (every StatefulSet's db-0 is such a pair)
	require.Len(t, itest.CreatePod(t, cp, fixture.Pod("before", "omega", nil, fixture.Ctr("app"))).Spec.Containers[0].Env, 6, "injected")

	audit := func(args ...string) (int, []itest.AuditRow, string) {
		t.Helper()
		code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), append([]string{"audit", "--kubeconfig", cp.Kubeconfig, "-o", "json"}, args...)...)
		var rows []itest.AuditRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), "stdout:\n%s\nstderr:\n%s", out, stderr)
		return code, rows, stderr
	}
	byPod := func(rows []itest.AuditRow) map[string][]string {
		out := map[string][]string{}
		for _, r := range rows {
			out[r.Namespace+"/"+r.Object] = append(out[r.Namespace+"/"+r.Object], r.Rule)
		}
		return out
	}

	t.Run("injected Pods: nothing; before the policy, a missing Secret: findings", func(t *testing.T) {
		code, rows, stderr := audit("-A", "-f", v1)
		assert.Equal(t, 1, code, stderr)
		assert.Equal(t, map[string][]string{
			"apps/Pod/before":       {proxytest.RuleMissingProxyEnv},
			"apps/Pod/wrong-secret": {proxytest.RuleMissingSecret},
		}, byPod(rows), "canaries, injected Pods and the opted-out Pod have none; kube-system is skipped")
	})

	t.Run("the RBAC docs/day2.md states is enough: get on the Secrets Pods read, never list", func(t *testing.T) {
		rules := append(append([]rbacv1.PolicyRule{}, discoverRules...),
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "configmaps"}, Verbs: []string{"list"}},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}},
			rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get"}})
		kubeconfig := boundServiceAccount(t, cp, "proxykit-audit", rules)
		code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", kubeconfig, "-o", "json", "-A", "-f", v1)
		assert.Equal(t, 1, code, stderr)
		var rows []itest.AuditRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), "stdout:\n%s\nstderr:\n%s", out, stderr)
		assert.Equal(t, map[string][]string{
			"apps/Pod/before":       {proxytest.RuleMissingProxyEnv},
			"apps/Pod/wrong-secret": {proxytest.RuleMissingSecret},
		}, byPod(rows), "the same findings as with every right")
		assert.NotContains(t, stderr, "forbidden")
	})

	t.Run("a password pasted into a running Pod's NO_PROXY: in no output", func(t *testing.T) {
		cp.EnsureNamespace(t, "leaky")
		itest.CreatePod(t, cp, fixture.Pod("pasted", "leaky", map[string]string{proxytest.AnnotationInject: "false"}, fixture.Ctr("app",
			fixture.Val("HTTP_PROXY", "http://proxy.corp.example:3128"), fixture.Val("NO_PROXY", "http://svc:P@Leak9word@proxy.corp.example:3128,*,localhost"),
			fixture.Val("DB_URL", "postgres://app:Leak8@pw@db:5432/app"))))
		for _, format := range []string{"text", "json", "policyreport", "openreports"} {
			code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-n", "leaky", "-f", v1, "-o", format)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, out, "pasted", format)
			for _, leak := range []string{"Leak9", "Leak8"} {
				assert.NotContains(t, out+stderr, leak, format)
			}
		}
		// the audits of every namespace below count the reports of the others
		require.NoError(t, cp.Client.CoreV1().Pods("leaky").Delete(ctx, "pasted", metav1.DeleteOptions{}))
	})

	t.Run("-n kube-system names it", func(t *testing.T) {
		code, rows, _ := audit("-n", "kube-system", "-f", v1)
		assert.Equal(t, 1, code)
		assert.Equal(t, map[string][]string{"kube-system/Pod/system": {proxytest.RuleMissingProxyEnv}}, byPod(rows))
	})

	t.Run("without -f: the facts from discover, which finds the IPv6 service network the values left out", func(t *testing.T) {
		code, rows, stderr := audit("-n", "apps")
		assert.Equal(t, 1, code, stderr)
		got := byPod(rows)
		assert.Equal(t, []string{proxytest.RuleMissingProxyEnv}, got["apps/Pod/before"])
		assert.Equal(t, []string{proxytest.RuleNoProxyGap}, got["apps/Pod/web-5d8f-a"], "no staleness is judged without values")
		for _, r := range rows {
			if r.Object == "Pod/web-5d8f-a" {
				assert.Contains(t, r.Message, "fd00:10:96::", "the API server's IPv6 service range, which discover read from its ServiceCIDR")
			}
		}
	})

	// a network is added: the policy injects the new NO_PROXY, running Pods keep the old one
	rel.Values = values("10.244.0.0/16, 10.245.0.0/16")
	require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm upgrade")
	itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
		return strings.Contains(fixture.EnvMap(c.Env)["NO_PROXY"].Value, "10.245.0.0/16")
	})
	v2 := valuesFile(rel.Values)
	t.Run("after a network change: stale-proxy-env, grouped by Deployment", func(t *testing.T) {
		code, rows, stderr := audit("-n", "apps", "-f", v2)
		assert.Equal(t, 1, code, stderr)
		got := byPod(rows)
		// the new network is a gap in the old NO_PROXY, and the env is stale
		assert.Equal(t, []string{proxytest.RuleNoProxyGap, proxytest.RuleStaleProxyEnv}, got["apps/Pod/web-5d8f-a"])
		assert.Equal(t, []string{proxytest.RuleNoProxyGap, proxytest.RuleStaleProxyEnv}, got["apps/Pod/web-5d8f-b"])
		assert.Equal(t, []string{proxytest.RuleMissingProxyEnv}, got["apps/Pod/before"], "no proxy variable: nothing stale")
		for _, r := range rows {
			if r.Rule == proxytest.RuleStaleProxyEnv {
				assert.Contains(t, r.Message, "the Pod started with proxy configuration "+fixture.Record(t, values("10.244.0.0/16"))+
					" (its proxykit.io/proxy-config annotation) and a container starting now gets "+fixture.Record(t, rel.Values)+" (from the values)",
					"judged by the record the policy stamped, against the values' (no Secret without credentials)")
			}
		}
		code, text, _ := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-n", "apps", "-f", v2)
		assert.Equal(t, 1, code)
		assert.Contains(t, text, "apps/Deployment/web:\n  container app: no-proxy-gap: NO_PROXY sends http://10.245.0.0:8080")
		assert.Contains(t, text, "\n  container app: stale-proxy-env: the Pod started with proxy configuration v1-")
		assert.Contains(t, text, " (from the values): a password, NO_PROXY or a network changed since, and Pod env is immutable: roll out the Pod's owner (Pods: web-5d8f-a, web-5d8f-b)\n")
		assert.Contains(t, text, "apps/Pod/before:\n")
		t.Logf("$ proxykit audit -n apps -f values.yaml\n%s", text)
	})

	t.Run("rollout: a dry run lists the stale owners; --apply restarts exactly them", func(t *testing.T) {
		before, err := cp.Client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "rollout", "--kubeconfig", cp.Kubeconfig, "-n", "apps", "-f", v2)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "would restart (a dry run: --apply restarts them):\n  apps/Deployment/web: 2 Pods (stale-proxy-env)\n")
		assert.Contains(t, out, "listed, not restarted (a bare Pod or a Job: recreate it yourself):\n  apps/Pod/before: 1 Pod (missing-proxy-env)\n")
		dry, err := cp.Client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, before.Generation, dry.Generation, "a dry run changes nothing")

		// the loopback control plane runs no Deployment controller: this stands in for
		// it, reporting the new template rolled out once the API server has it
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
				d, err := cp.Client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
				if err != nil || d.Status.ObservedGeneration == d.Generation {
					continue
				}
				d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: *d.Spec.Replicas, UpdatedReplicas: *d.Spec.Replicas,
					ReadyReplicas: *d.Spec.Replicas, AvailableReplicas: *d.Spec.Replicas}
				_, _ = cp.Client.AppsV1().Deployments("apps").UpdateStatus(ctx, d, metav1.UpdateOptions{})
			}
		}()
		code, out, stderr = itest.CLI(t, itest.ProxykitCLI(t), "rollout", "--kubeconfig", cp.Kubeconfig, "-n", "apps", "-f", v2, "--apply", "--timeout", "30s")
		require.Equal(t, 0, code, "%s\n%s", out, stderr)
		assert.Contains(t, stderr, "apps/Deployment/web restarted\napps/Deployment/web ready\n")
		assert.Contains(t, out, "1 owner restarted, 2 listed", "the bare Pods before and wrong-secret")
		after, err := cp.Client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		assert.NotEmpty(t, after.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"])
		delete(after.Spec.Template.Annotations, "kubectl.kubernetes.io/restartedAt")
		if len(after.Spec.Template.Annotations) == 0 {
			after.Spec.Template.Annotations = before.Spec.Template.Annotations
		}
		assert.Equal(t, before.Spec, after.Spec, "only the template's restart annotation changed")
		_, err = cp.Client.CoreV1().Pods("apps").Get(ctx, "before", metav1.GetOptions{})
		assert.NoError(t, err, "a bare Pod is listed, never deleted")
	})

	t.Run("-o policyreport: PolicyReports the API server accepts", func(t *testing.T) {
		code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-A", "-f", v2, "-o", "policyreport")
		assert.Equal(t, 1, code, stderr)
		reports, err := proxytest.Parse(out)
		require.NoError(t, err)
		require.Len(t, reports.Objects, 2, "one report per namespace with findings: apps, and omega, whose injected before is stale now")
		results := 0
		for _, d := range reports.Objects {
			for _, r := range d.Content["results"].([]any) {
				for _, res := range r.(map[string]any)["resources"].([]any) {
					assert.Equal(t, d.Namespace, res.(map[string]any)["namespace"], "a report names only its own namespace's Pods")
				}
			}
			ri, obj := objects.Resource(t, d, "")
			_, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"})
			require.NoError(t, err, "the API server takes the report")
			stored, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
			require.NoError(t, err)
			items, _, err := unstructured.NestedSlice(stored.Object, "results")
			require.NoError(t, err)
			require.NotEmpty(t, items)
			results += len(items)
			assert.Equal(t, "proxykit", items[0].(map[string]any)["policy"])
		}
		assert.Equal(t, 8+2, results, "as many results as `-o json` has findings")
		assert.Contains(t, out, "kind: Pod")
	})

	t.Run("10,000 findings in one namespace: the reports apply with kubectl apply -f -, as the README says", func(t *testing.T) {
		cp.EnsureNamespace(t, "busy")
		var findings []proxyaudit.Finding
		for i := 0; i < 10000; i++ {
			findings = append(findings, proxyaudit.Finding{Finding: rules.Finding{Namespace: "busy", Object: fmt.Sprintf("Pod/web-7c9d4f8b6-%05d", i), Container: "app",
				Rule: rules.RuleNoProxyGap, Message: "NO_PROXY sends http://10.245.0.0:8080, http://10.245.127.255:8080, http://10.245.255.254:8080 through the proxy; set cluster.podCIDRs, serviceCIDRs, nodeCIDRs, apiServer and domain to the cluster's (or add the entries to proxy.noProxy)"},
				UID: fmt.Sprintf("0d6c1f2e-8b7a-4c3d-9e1f-%012d", i)})
		}
		// (openreports are one small Report per Pod: the subtest below applies them)
		var out bytes.Buffer
		require.NoError(t, proxyaudit.WritePolicyReports(&out, findings))
		cmd := exec.Command(fixture.Path("bin", "kubectl"), "--kubeconfig", cp.Kubeconfig, "apply", "-f", "-")
		cmd.Stdin = &out
		applied, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", lastLines(string(applied), 5))
		list, err := objects.Dynamic.Resource(schema.GroupVersionResource{Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "policyreports"}).Namespace("busy").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		results := 0
		for _, r := range list.Items {
			items, _, _ := unstructured.NestedSlice(r.Object, "results")
			results += len(items)
		}
		assert.Equal(t, 10000, results, "every finding stored, in %d reports", len(list.Items))

		// audit.Write (audit --write) applies the same server-side, and deletes the extra
		// reports once the namespace needs fewer
		written, err := proxyaudit.Write(ctx, objects.Dynamic, proxyaudit.FormatPolicyReport, "busy", findings)
		require.NoError(t, err)
		assert.Len(t, written.Applied, len(list.Items))
		assert.Empty(t, written.Deleted)
		written, err = proxyaudit.Write(ctx, objects.Dynamic, proxyaudit.FormatPolicyReport, "busy", findings[:100])
		require.NoError(t, err)
		assert.Equal(t, []string{"busy/proxykit-audit"}, written.Applied)
		assert.Len(t, written.Deleted, len(list.Items)-1)
	})

	t.Run("-o openreports: a Report per Pod, scoped by UID, that the API server accepts", func(t *testing.T) {
		code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-A", "-f", v2, "-o", "openreports")
		assert.Equal(t, 1, code, stderr)
		reports, err := proxytest.Parse(out)
		require.NoError(t, err)
		pods := map[string]bool{}
		results := 0
		for _, d := range reports.Objects {
			ri, obj := objects.Resource(t, d, "")
			_, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"})
			require.NoError(t, err, "the API server takes the report")
			scope, _, err := unstructured.NestedStringMap(obj.Object, "scope")
			require.NoError(t, err)
			stored, err := cp.Client.CoreV1().Pods(scope["namespace"]).Get(ctx, scope["name"], metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, string(stored.UID), scope["uid"], "the report is scoped to the very Pod")
			assert.Equal(t, d.Namespace, scope["namespace"])
			pods[scope["namespace"]+"/"+scope["name"]] = true
			items, _, err := unstructured.NestedSlice(obj.Object, "results")
			require.NoError(t, err)
			results += len(items)
		}
		assert.True(t, pods["apps/before"] && pods["omega/before"], "the two Pods named before have a report each: %v", pods)
		assert.Equal(t, 8+2, results, "as many results as -o policyreport")
	})

	t.Run("--write: reports applied, and gone once their Pods are fixed or deleted", func(t *testing.T) {
		cp.EnsureNamespace(t, "wr")
		for _, name := range []string{"x", "y"} {
			itest.CreatePod(t, cp, fixture.Pod(name, "wr", nil, fixture.Ctr("app", fixture.SecretRef("HTTP_PROXY", "nope", "HTTP_PROXY"))))
		}
		policyReports := objects.Dynamic.Resource(schema.GroupVersionResource{Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "policyreports"})
		openReports := objects.Dynamic.Resource(schema.GroupVersionResource{Group: "openreports.io", Version: "v1alpha1", Resource: "reports"})
		count := func(ns string) (int, int) {
			t.Helper()
			p, err := policyReports.Namespace(ns).List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			o, err := openReports.Namespace(ns).List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			return len(p.Items), len(o.Items)
		}
		// a report of the user's own that carries the label is not Write's to delete
		users := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
			"metadata": map[string]any{"name": "users-own", "namespace": "wr", "labels": map[string]any{"app.kubernetes.io/managed-by": "proxykit"}}}}
		_, err := policyReports.Namespace("wr").Create(ctx, users, metav1.CreateOptions{FieldManager: "kubectl-create"})
		require.NoError(t, err)
		appsPolicy, appsOpen := count("apps")
		write := func() string {
			t.Helper()
			var all strings.Builder
			for _, format := range []string{"policyreport", "openreports"} {
				_, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-n", "wr", "-f", v2, "-o", format, "--write")
				require.Contains(t, out, "Pods checked", stderr)
				all.WriteString(out)
			}
			return all.String()
		}
		out := write()
		assert.Contains(t, out, "applied wr/proxykit-audit\n")
		assert.Contains(t, out, "2 Pods checked, 2 findings: 2 reports applied, 0 deleted\n")
		policy, open := count("wr")
		assert.Equal(t, [2]int{1 + 1, 2}, [2]int{policy, open}, "a PolicyReport for the namespace (and the user's own), a Report per Pod")

		require.NoError(t, cp.Client.CoreV1().Pods("wr").Delete(ctx, "y", metav1.DeleteOptions{}))
		out = write()
		assert.Contains(t, out, "1 Pods checked, 1 findings: 1 reports applied, 1 deleted\n", "the deleted Pod's Report goes")
		policy, open = count("wr")
		assert.Equal(t, [2]int{1 + 1, 1}, [2]int{policy, open})

		require.NoError(t, cp.Client.CoreV1().Pods("wr").Delete(ctx, "x", metav1.DeleteOptions{}))
		out = write()
		assert.Contains(t, out, "deleted wr/proxykit-audit\n")
		policy, open = count("wr")
		assert.Equal(t, [2]int{1, 0}, [2]int{policy, open}, "no finding, no report of proxykit's: the user's own stays")
		policy, open = count("apps")
		assert.Equal(t, [2]int{appsPolicy, appsOpen}, [2]int{policy, open}, "-n wr leaves the other namespaces' reports alone")

		code, _, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-n", "wr", "--write")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "add -o policyreport or -o openreports")
	})

	t.Run("bad input", func(t *testing.T) {
		code, _, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-A", "-n", "apps")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "-n and -A")
		code, _, stderr = itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-o", "yaml")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, `-o: "yaml"`)
	})
}

// lastLines keeps the end of a long command output for a failure message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
