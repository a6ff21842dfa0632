package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/rules"

	"github.com/proxykit/proxykit/internal/worktime"
)

var facts = cluster.Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1"}

func pod(name, ns, uid string, env ...corev1.EnvVar) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(uid)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "x", Env: env}}},
	}
}

// proxyEnv is what an injected container has.
func proxyEnv() []corev1.EnvVar {
	var env []corev1.EnvVar
	for _, name := range proxytest.ProxyVariables {
		value := "http://proxy.corp.example:3128"
		if name == "NO_PROXY" || name == "no_proxy" {
			value = "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.244.0.0/16,10.96.0.0/12,10.96.0.1,[::1]"
		}
		env = append(env, corev1.EnvVar{Name: name, Value: value})
	}
	return env
}

// Two StatefulSets' db-0 in two namespaces, only one of them injected: the
// audit names the Pod that lacks the proxy, with its own namespace and UID, in
// every output. ("Kind/name" alone mixed them up.)
func TestSameNamePodsInTwoNamespaces(t *testing.T) {
	// omega's comes first in the listing: a lookup by name alone would find it
	client := fake.NewSimpleClientset(pod("db-0", "omega", "uid-omega", proxyEnv()...), pod("db-0", "alpha", "uid-alpha"))
	r, err := Run(context.Background(), client, Options{Cluster: facts})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Pods)
	require.Len(t, r.Findings, 1)
	f := r.Findings[0]
	assert.Equal(t, "alpha", f.Namespace)
	assert.Equal(t, "Pod/db-0", f.Object)
	assert.Equal(t, proxytest.RuleMissingProxyEnv, f.Rule)
	assert.Equal(t, "uid-alpha", f.UID)

	var out bytes.Buffer
	require.NoError(t, WriteJSON(&out, r.Findings))
	var decoded []map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &decoded))
	assert.Equal(t, "alpha", decoded[0]["namespace"])
	reports := PolicyReports(r.Findings)
	require.Len(t, reports, 1)
	assert.Equal(t, "alpha", reports[0].Namespace)
	assert.Equal(t, types.UID("uid-alpha"), reports[0].Results[0].Resources[0].UID)
}

// A Pod that finished (a completed Job's, a failed one that never restarts) or
// is terminating (the old Pod a rollout replaces) starts no container again: it
// is left out, counted apart, never a finding.
func TestFinishedPodsAreLeftOut(t *testing.T) {
	done, failed, leaving, running := pod("job-1-abcde", "apps", "u1"), pod("once", "apps", "u2"), pod("web-old", "apps", "u3"), pod("web", "apps", "u4")
	done.Status.Phase, failed.Status.Phase, leaving.Status.Phase, running.Status.Phase = corev1.PodSucceeded, corev1.PodFailed, corev1.PodRunning, corev1.PodRunning
	now := metav1.Now()
	leaving.DeletionTimestamp = &now
	r, err := Run(context.Background(), fake.NewSimpleClientset(done, failed, leaving, running), Options{Cluster: facts})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Pods)
	assert.Equal(t, 3, r.Finished)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, "Pod/web", r.Findings[0].Object)
	var out bytes.Buffer
	WriteText(&out, r)
	assert.Contains(t, out.String(), "1 Pods checked (3 finished or terminating, left out), 1 findings\n")
}

// -o openreports: a Report per Pod, scoped by its UID: same-name Pods in two
// namespaces get a report each, never one shared.
func TestOpenReportsScopeEachPod(t *testing.T) {
	client := fake.NewSimpleClientset(pod("db-0", "omega", "uid-omega"), pod("db-0", "alpha", "uid-alpha", corev1.EnvVar{Name: "HTTP_PROXY", Value: "http://p:1"}))
	r, err := Run(context.Background(), client, Options{Cluster: facts})
	require.NoError(t, err)
	reports := OpenReports(r.Findings)
	require.Len(t, reports, 2)
	for _, rep := range reports {
		assert.Equal(t, "Pod", rep.Scope.Kind)
		assert.Equal(t, "db-0", rep.Scope.Name)
		assert.Equal(t, rep.Namespace, rep.Scope.Namespace)
		assert.Equal(t, types.UID("uid-"+rep.Namespace), rep.Scope.UID)
		assert.Equal(t, "proxykit-uid-"+rep.Namespace, rep.Name)
		assert.Equal(t, len(rep.Results), rep.Summary.Fail)
	}
	var out bytes.Buffer
	require.NoError(t, WriteOpenReports(&out, r.Findings))
	m, err := proxytest.Parse(out.String())
	require.NoError(t, err)
	assert.Len(t, m.Objects, 2)
}

// missing-secret is judged against what exists in the Pod's namespace; the
// owner of a ReplicaSet's Pods is its Deployment, read once; stale-proxy-env
// compares with the values.
func TestSecretsOwnersAndStaleness(t *testing.T) {
	isController := true
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps", UID: "d1"}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f", Namespace: "apps",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d1", Controller: &isController}}}}
	secretRef := func(name, secret string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: "HTTP_PROXY"}}}
	}
	web := pod("web-5d8f-a", "apps", "u1", proxyEnv()...)
	web.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f", UID: "rs1", Controller: &isController}}
	wrong := pod("wrong", "apps", "u2", secretRef("HTTP_PROXY", "nope"))
	other := pod("elsewhere", "team", "u3", secretRef("HTTP_PROXY", "proxy"))
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "proxy", Namespace: "apps"}, Data: map[string][]byte{"HTTP_PROXY": []byte("http://p:1")}}
	client := fake.NewSimpleClientset(deployment, rs, web, wrong, other, secret)

	values := map[string]any{"proxy": map[string]any{"http": "http://proxy.corp.example:3128", "https": "http://proxy.corp.example:3128"},
		"cluster": map[string]any{"podCIDRs": []any{"10.244.0.0/16", "10.245.0.0/16"}, "serviceCIDRs": []any{"10.96.0.0/12"}, "apiServer": "10.96.0.1", "metadataEndpoints": false}}
	r, err := Run(context.Background(), client, Options{Cluster: facts, Values: values})
	require.NoError(t, err)
	got := map[string][]string{}
	owners := map[string]string{}
	for _, f := range r.Findings {
		got[f.Namespace+"/"+f.Object] = append(got[f.Namespace+"/"+f.Object], f.Rule)
		owners[f.Namespace+"/"+f.Object] = f.Owner
	}
	assert.Contains(t, got["apps/Pod/wrong"], proxytest.RuleMissingSecret)
	assert.Contains(t, got["team/Pod/elsewhere"], proxytest.RuleMissingSecret, "a Secret of another namespace does not count")
	assert.Equal(t, []string{proxytest.RuleStaleProxyEnv}, got["apps/Pod/web-5d8f-a"], "the values added a network since")
	assert.Equal(t, "Deployment/web", owners["apps/Pod/web-5d8f-a"])

	// Secrets are read one by one, only those a Pod reads, each once: never listed
	var reads []string
	for _, action := range client.Actions() {
		if action.GetResource().Resource == "secrets" {
			reads = append(reads, action.GetVerb()+" "+action.GetNamespace()+"/"+action.(k8stesting.GetAction).GetName())
		}
	}
	assert.ElementsMatch(t, []string{"get apps/nope", "get team/proxy"}, reads)

	var out bytes.Buffer
	WriteText(&out, r)
	assert.Contains(t, out.String(), "apps/Deployment/web:\n  container app: stale-proxy-env:")
	assert.Contains(t, out.String(), "3 Pods checked")
}

// Thousands of findings in one namespace make several PolicyReports, each small
// enough for `kubectl apply -f -` (client-side apply keeps the whole object in an
// annotation, and the API server takes 262,144 bytes of annotations); none is lost.
func TestPolicyReportsStayUnderTheObjectLimit(t *testing.T) {
	var findings []Finding
	for i := 0; i < 10000; i++ {
		findings = append(findings, Finding{Finding: proxytest.Finding{Namespace: "busy", Object: fmt.Sprintf("Pod/web-%05d", i), Container: "app",
			Rule: proxytest.RuleNoProxyGap, Message: strings.Repeat("NO_PROXY sends http://10.245.0.0:8080 through the proxy; ", 4)}, UID: fmt.Sprintf("uid-%05d", i)})
	}
	reports := PolicyReports(findings)
	require.Greater(t, len(reports), 1)
	results := 0
	names := map[string]bool{}
	for _, r := range reports {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		assert.Less(t, len(b), 250_000, "%s is %d bytes", r.Name, len(b))
		assert.Equal(t, "busy", r.Namespace)
		assert.Equal(t, len(r.Results), r.Summary.Fail)
		assert.False(t, names[r.Name], "unique names")
		names[r.Name] = true
		results += len(r.Results)
	}
	assert.Equal(t, 10000, results)
	assert.True(t, names["proxykit-audit"] && names["proxykit-audit-2"])
}

// A proxy URL with credentials in a plain Pod env value is found, and no output
// of the audit shows it.
func TestAuditNeverEchoesCredentials(t *testing.T) {
	env := proxyEnv()
	for i := range env {
		if strings.HasSuffix(strings.ToLower(env[i].Name), "_proxy") && !strings.HasPrefix(strings.ToLower(env[i].Name), "no") {
			env[i].Value = "http://svc-user:Zq-secret@proxy.corp.example:3128"
		}
	}
	client := fake.NewSimpleClientset(pod("leaky", "apps", "u1", env...))
	r, err := Run(context.Background(), client, Options{Cluster: facts})
	require.NoError(t, err)
	var rules []string
	for _, f := range r.Findings {
		rules = append(rules, f.Rule)
	}
	assert.Contains(t, rules, proxytest.RuleCredentialsExposed)
	var out bytes.Buffer
	WriteText(&out, r)
	require.NoError(t, WriteJSON(&out, r.Findings))
	require.NoError(t, WritePolicyReports(&out, r.Findings))
	require.NoError(t, WriteOpenReports(&out, r.Findings))
	assert.NotContains(t, out.String(), "Zq-secret")
	assert.NotContains(t, out.String(), "svc-user")
}

// A credential in a ConfigMap that a Pod reads through envFrom: the reports name
// the ConfigMap, of its kind, in its namespace, never a Pod of that name (issue 37).
func TestReportsNameTheRealObject(t *testing.T) {
	p := pod("app", "apps", "u1", proxyEnv()...)
	p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "pxcm"}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pxcm", Namespace: "apps"}, Data: map[string]string{"UPSTREAM": "http://u:p@proxy.corp.example:3128"}}
	r, err := Run(context.Background(), fake.NewSimpleClientset(p, cm), Options{Cluster: facts})
	require.NoError(t, err)
	var configMap *Finding
	for i, f := range r.Findings {
		if f.Object == "ConfigMap/pxcm" {
			configMap = &r.Findings[i]
		}
	}
	require.NotNil(t, configMap, "%v", r.Findings)
	assert.Equal(t, "ConfigMap/pxcm", configMap.Owner)
	reports := PolicyReports([]Finding{*configMap})
	require.Len(t, reports, 1)
	assert.Equal(t, corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "apps", Name: "pxcm"}, reports[0].Results[0].Resources[0])
	open := OpenReports([]Finding{*configMap})
	require.Len(t, open, 1)
	assert.Equal(t, "ConfigMap", open[0].Scope.Kind)
	assert.Equal(t, "proxykit-configmap-pxcm", open[0].Name)
}

// 2,000 Pods of a few owners: a line per owner and rule, the Pods counted past
// three, a summary per namespace and rule; no line an operator cannot read (issue 36).
func TestTextOutputForThousandsOfPods(t *testing.T) {
	r := &Result{Pods: 2014}
	for i := 0; i < 2000; i++ {
		r.Findings = append(r.Findings, Finding{Finding: rules.Finding{Namespace: "apps", Object: fmt.Sprintf("Pod/web-7c9d4f8b6-%05d", i), Container: "app",
			Rule: rules.RuleStaleProxyEnv, Message: "NO_PROXY, no_proxy differ from what the values render now"}, Owner: "Deployment/web"})
	}
	for i := 0; i < 14; i++ {
		r.Findings = append(r.Findings, Finding{Finding: rules.Finding{Namespace: fmt.Sprintf("team-%d", i%2), Object: fmt.Sprintf("Pod/job-%d", i), Container: "c",
			Rule: rules.RuleMissingProxyEnv, Message: fmt.Sprintf("HTTP_PROXY is not set (%d)", i%3)}, Owner: "Job/nightly"})
	}
	r.Findings = append(r.Findings, Finding{Finding: rules.Finding{Namespace: "apps", Object: "Pod/web-7c9d4f8b6-00000", Container: "app",
		Rule: rules.RuleNoProxyGap, Message: "NO_PROXY sends http://10.245.0.0:8080 through the proxy"}, Owner: "Deployment/web"})
	var out bytes.Buffer
	WriteText(&out, r)
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	assert.Less(t, len(lines), 20, "%s", text)
	for _, l := range lines {
		assert.Less(t, len(l), 300, l)
	}
	assert.Contains(t, text, "apps/Deployment/web:\n  container app: stale-proxy-env: NO_PROXY, no_proxy differ from what the values render now (Pods: web-7c9d4f8b6-00000, web-7c9d4f8b6-00001, web-7c9d4f8b6-00002 and 1997 more)\n")
	assert.Contains(t, text, "and 2 other messages: -o json has each")
	assert.Regexp(t, `(?m)^apps\s+stale-proxy-env\s+2000\s+2000$`, text)
	assert.Regexp(t, `(?m)^team-0\s+missing-proxy-env\s+7\s+7$`, text)
	assert.True(t, strings.HasSuffix(text, "2014 Pods checked, 2015 findings\n"), text)
}

// A running Pod that calls another release's Service from a mounted config file
// (Temporal's pattern), with a NO_PROXY that misses it: audit reads the ConfigMap
// it mounts and names the call, with an operator's advice.
func TestAuditJudgesCallsInMountedConfigMaps(t *testing.T) {
	p := pod("history-0", "temporal", "uid-h", proxyEnv()...)
	p.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "server-config"}}}}}
	p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/temporal"}}
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "server-config", Namespace: "temporal"},
		Data: map[string]string{"config.yaml": "elasticsearch: {url: {scheme: http, host: \"elasticsearch-master:9200\"}}\n"}}
	r, err := Run(context.Background(), fake.NewSimpleClientset(p, config), Options{Cluster: facts})
	require.NoError(t, err)
	require.Len(t, r.Findings, 1, "%v", r.Findings)
	f := r.Findings[0]
	assert.Equal(t, proxytest.RuleInClusterCallProxied, f.Rule)
	assert.Contains(t, f.Message, "elasticsearch-master:9200 (ConfigMap/server-config key config.yaml, mounted at /etc/temporal)")
	assert.Contains(t, f.Message, "proxy.noProxy in the values of the policy that injected the Pod")
}

// A tenant's Pending Pod whose env expands to 100 MB ($(V) of 50 KiB, 2,000
// times in one value, and in 2,000 values) is audited within the kernel's
// bounds: the value past 128 KiB is never built, nor the environment past 2 MiB.
func TestAuditBoundsExpansion(t *testing.T) {
	env := append(proxyEnv(), corev1.EnvVar{Name: "V", Value: "http://big:8080/" + strings.Repeat("a", 50<<10)},
		corev1.EnvVar{Name: "A", Value: strings.Repeat("$(V)", 2000)})
	for i := range 2000 {
		env = append(env, corev1.EnvVar{Name: fmt.Sprintf("B%d", i), Value: "$(V)"})
	}
	bomb := pod("bomb", "tenant", "u9", env...)
	bomb.Status.Phase = corev1.PodPending
	small := pod("small", "tenant", "u8", proxyEnv()...)
	took := func(p *corev1.Pod) time.Duration {
		began := worktime.Used()
		r, err := Run(context.Background(), fake.NewSimpleClientset(p), Options{Cluster: facts})
		require.NoError(t, err)
		assert.Equal(t, 1, r.Pods)
		return worktime.Used() - began
	}
	base, bombed := took(small), took(bomb)
	t.Logf("the Pod of 2,000 expansions: %v, %.0fx a small Pod's", bombed.Round(time.Millisecond), float64(bombed)/float64(base))
	assert.Less(t, bombed, 20*time.Second, "bounded even under the race detector")
}

// Grafana's pattern live: its data sources sit in a ConfigMap no pod template
// names, which the sidecar loads by its label. audit reads it for that Pod, and
// judges its calls on that Pod's containers alone: another Pod of the page with
// the same NO_PROXY is not blamed for them, and a ConfigMap without the label
// is not read.
func TestAuditJudgesConfigMapsSelectedByLabel(t *testing.T) {
	grafana := pod("grafana-0", "monitoring", "uid-g", proxyEnv()...)
	sidecar := corev1.Container{Name: "grafana-sc-datasources", Image: "kiwigrid/k8s-sidecar:1.30.0", Env: append(proxyEnv(),
		corev1.EnvVar{Name: "LABEL", Value: "grafana_datasource"}, corev1.EnvVar{Name: "LABEL_VALUE", Value: "1"},
		corev1.EnvVar{Name: "FOLDER", Value: "/etc/grafana/provisioning/datasources"}, corev1.EnvVar{Name: "RESOURCE", Value: "both"})}
	grafana.Spec.Containers = append(grafana.Spec.Containers, sidecar)
	other := pod("api-0", "monitoring", "uid-a", proxyEnv()...)
	datasources := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "loki-datasource", Namespace: "monitoring", Labels: map[string]string{"grafana_datasource": "1"}},
		Data: map[string]string{"loki.yaml": "datasources:\n  - name: Loki\n    url: http://loki-gateway.logging\n"}}
	unlabelled := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "notes", Namespace: "monitoring"},
		Data: map[string]string{"tempo.yaml": "url: http://tempo.tracing:3200\n"}}
	cluster := facts
	cluster.Namespaces = []string{"monitoring", "logging", "tracing"}
	r, err := Run(context.Background(), fake.NewSimpleClientset(grafana, other, datasources, unlabelled), Options{Cluster: cluster})
	require.NoError(t, err)
	var pods []string
	for _, f := range r.Findings {
		if f.Rule == proxytest.RuleInClusterCallProxied {
			pods = append(pods, f.Object)
			assert.Contains(t, f.Message, "loki-gateway.logging (ConfigMap/loki-datasource key loki.yaml")
			assert.NotContains(t, f.Message, "tempo.tracing", "a ConfigMap nobody selects is not read")
		}
	}
	assert.ElementsMatch(t, []string{"Pod/grafana-0", "Pod/grafana-0"}, pods, "both containers of the selecting Pod, no other: %v", r.Findings)
}

// Pods that select the same ConfigMaps (a Deployment's replicas) read them
// once: three replicas selecting a 33 KiB ConfigMap stay within a budget of
// 64 KiB. A second set that would take it past is not read, and is named in
// Unread, never judged half-read.
func TestAuditReadsSelectedConfigMapsOnceWithinABudget(t *testing.T) {
	// a budget of 64 KiB (as 64 MiB, scaled down: the race detector reads every byte
	// slowly) and sets of 33 KiB in keys of 1 KiB, the call in one of them
	const budget = 64 << 10
	data := map[string]string{"ds.yaml": "url: http://loki-gateway.logging\n"}
	for i := 0; i < 33; i++ {
		data[fmt.Sprintf("pad-%02d.yaml", i)] = strings.Repeat("# padding\n", (1<<10)/10+1)
	}
	selecting := func(name, label string) *corev1.Pod {
		p := pod(name, "monitoring", "uid-"+name, proxyEnv()...)
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Env: append(proxyEnv(),
			corev1.EnvVar{Name: "LABEL", Value: label}, corev1.EnvVar{Name: "FOLDER", Value: "/data"})})
		return p
	}
	cm := func(name, label string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "monitoring", Labels: map[string]string{label: "1"}}, Data: data}
	}
	cluster := facts
	cluster.Namespaces = []string{"monitoring", "logging"}
	r, err := Run(context.Background(), fake.NewSimpleClientset(selecting("a-0", "first"), selecting("a-1", "first"), selecting("a-2", "first"),
		selecting("b-0", "second"), cm("first-ds", "first"), cm("second-ds", "second")), Options{Cluster: cluster, MaxSelectedData: budget})
	require.NoError(t, err)
	judged := map[string]int{}
	for _, f := range r.Findings {
		if f.Rule == proxytest.RuleInClusterCallProxied {
			judged[f.Object]++
		}
	}
	assert.Equal(t, map[string]int{"Pod/a-0": 2, "Pod/a-1": 2, "Pod/a-2": 2}, judged, "the replicas read the first set once, within the budget")
	assert.Equal(t, []string{"ConfigMap monitoring/second-ds (selected by label; past the 64 KiB an audit reads of them)"}, r.Unread)
}

func TestBytesOfNamesTheBudget(t *testing.T) {
	for n, want := range map[int]string{MaxSelectedData: "64 MiB", 48 << 10: "48 KiB", 1<<20 + 1<<10: "1025 KiB", 100: "100 bytes"} {
		assert.Equal(t, want, bytesOf(n))
	}
}
