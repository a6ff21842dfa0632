package inject

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/rules"
)

const (
	plainValues = `
proxy: {http: "http://proxy.corp:3128", https: "http://proxy.corp:3129"}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 10.96.0.1, metadataEndpoints: false}
`
	noProxy = "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.244.0.0/16,10.96.0.0/12,10.96.0.1,[::1]"

	configMap = "# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings   # a comment kept\ndata: {a: \"1\", port: 8080}\n"
	service   = "apiVersion: v1\nkind: Service\nmetadata: {name: api, labels: {app.kubernetes.io/instance: shop}}\nspec:\n  ports: [{port: 8080}]\n"
	workloads = `# Source: app/templates/web.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app.kubernetes.io/instance: shop}}
spec:
  replicas: 2
  template:
    spec:
      initContainers: [{name: migrate, image: x}]
      containers:
        - name: web
          image: x
          env:
            - {name: TZ, value: UTC}
            - {name: HTTP_PROXY, value: "http://own:8080"}
        - name: metrics
          image: x
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup, namespace: jobs}
spec:
  schedule: "0 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: backup, image: x}]
          restartPolicy: Never
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: canary}
spec:
  template:
    metadata:
      annotations: {proxykit.io/skip-containers: "envoy"}
    spec:
      containers: [{name: app, image: x}, {name: envoy, image: x}]
---
apiVersion: v1
kind: Pod
metadata:
  name: debug
  annotations: {proxykit.io/inject: "false"}
spec:
  containers: [{name: shell, image: x}]
`
)

func values(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(text), &v))
	return v
}

func run(t *testing.T, valuesYAML, stream string, opts Options) (string, Result) {
	t.Helper()
	out, result := once(t, valuesYAML, stream, opts)
	again, _ := once(t, valuesYAML, out, opts)
	assert.Equal(t, out, again, "injecting twice equals injecting once")
	return out, result
}

// once injects without checking idempotence again: with credentials each render
// derives the record's scrypt key, which the race detector makes take seconds,
// so the cases whose idempotence another case covers inject once.
func once(t *testing.T, valuesYAML, stream string, opts Options) (string, Result) {
	t.Helper()
	opts.Values = values(t, valuesYAML)
	out, result, err := Stream([]byte(stream), opts)
	require.NoError(t, err)
	return string(out), result
}

func parse(t *testing.T, out, namespace string) *proxytest.Manifests {
	t.Helper()
	m, err := proxytest.Parse(out)
	require.NoError(t, err)
	m.Namespace = namespace
	return m
}

func env(t *testing.T, m *proxytest.Manifests, object, container string) map[string]corev1.EnvVar {
	t.Helper()
	out := map[string]corev1.EnvVar{}
	for _, e := range m.Container(t, object, container).Env {
		out[e.Name] = e
	}
	return out
}

func TestStreamPlain(t *testing.T) {
	out, result := run(t, plainValues, configMap+"---\n"+service+"---\n"+workloads, Options{Namespace: "shop"})
	assert.Equal(t, Result{Containers: 5, Services: []string{"shop/api"}}, result)
	assert.True(t, strings.HasPrefix(out, "---\n"+strings.TrimSuffix(configMap, "\n")+"\n---\n"+strings.TrimSuffix(service, "\n")+"\n---\n"),
		"objects without a pod template are written back as they were:\n%s", out)
	m := parse(t, out, "shop")
	withServices := withEntries(noProxy, "api,api.shop,api.shop.svc")

	web := m.Container(t, "Deployment/web", "web").Env
	require.Len(t, web, 7)
	assert.Equal(t, []string{"TZ", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}, names(web),
		"own entries first and in order, the missing ones appended")
	assert.Equal(t, "http://own:8080", web[1].Value, "an own proxy variable wins")
	assert.Equal(t, "http://own:8080", web[4].Value, "and its twin agrees with it")
	assert.Equal(t, withServices, web[3].Value)
	for _, c := range [][2]string{{"Deployment/web", "migrate"}, {"Deployment/web", "metrics"}, {"CronJob/backup", "backup"}, {"Rollout/canary", "app"}} {
		e := env(t, m, c[0], c[1])
		assert.Equal(t, "http://proxy.corp:3129", e["https_proxy"].Value, c)
		assert.Equal(t, withServices, e["no_proxy"].Value, c)
	}
	assert.Empty(t, m.Container(t, "Rollout/canary", "envoy").Env, "named in proxykit.io/skip-containers")
	assert.Empty(t, m.Container(t, "Pod/debug", "shell").Env, "the Pod opts out")
	// the workloads' own fields survive the rewrite
	assert.Equal(t, int32(2), *proxytest.Get[appsv1.Deployment](t, m, "web").Spec.Replicas)
	assert.Equal(t, corev1.RestartPolicyNever, proxytest.Get[batchv1.CronJob](t, m, "backup").Spec.JobTemplate.Spec.Template.Spec.RestartPolicy)
	assert.Contains(t, out, "# Source: app/templates/web.yaml\napiVersion: apps/v1\n", "a rewritten document keeps its comment")

	// proxytest judges the output as a chart author's test would: nothing left
	var rules []string
	for _, f := range proxytest.Check(m, proxytest.WithCluster(proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1"})) {
		rules = append(rules, f.Object+"/"+f.Container+" "+f.Rule)
	}
	assert.Empty(t, rules)
}

func names(env []corev1.EnvVar) []string {
	var out []string
	for _, e := range env {
		out = append(out, e.Name)
	}
	return out
}

func TestStreamOverrideExisting(t *testing.T) {
	out, _ := run(t, plainValues+"policy: {overrideExisting: true}\n", workloads, Options{Namespace: "shop"})
	web := parse(t, out, "shop").Container(t, "Deployment/web", "web").Env
	assert.Equal(t, "HTTP_PROXY", web[1].Name)
	assert.Equal(t, "http://proxy.corp:3128", web[1].Value, "replaced in place")
	_, _, err := Stream([]byte(workloads), Options{Values: values(t, plainValues+"policy: {overrideExisting: yes please}\n")})
	assert.ErrorContains(t, err, "policy.overrideExisting")
}

func TestStreamCredentials(t *testing.T) {
	t.Parallel() // with credentials: a scrypt key per render, seconds under the race detector
	creds := strings.Replace(plainValues, "http://proxy.corp:3128", "http://svc-user:Zq%40w@proxy.corp:3128", 1)
	out, result := run(t, creds, service+"---\n"+workloads, Options{Namespace: "shop"})
	assert.Equal(t, []string{"jobs/shop-proxy-credentials", "shop/shop-proxy-credentials"}, result.Secrets,
		"one Secret in every namespace with an injected container, named after the instance label")
	m := parse(t, out, "shop")
	e := env(t, m, "CronJob/backup", "backup")
	require.NotNil(t, e["http_proxy"].ValueFrom)
	assert.Equal(t, "shop-proxy-credentials", e["http_proxy"].ValueFrom.SecretKeyRef.Name)
	assert.Equal(t, withEntries(noProxy, "api,api.shop,api.shop.svc"), e["NO_PROXY"].Value, "NO_PROXY holds no credential: a plain value with the Services")
	for _, o := range m.Objects {
		if o.Kind != "Secret" {
			assert.NotContains(t, o.Raw, "Zq", "%s carries the password", o.ID())
		}
	}
	for _, f := range proxytest.Check(m, proxytest.WithCluster(proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}})) {
		assert.NotEqual(t, proxytest.RuleMissingSecret, f.Rule, "%s", f)
		assert.NotEqual(t, proxytest.RuleCredentialsExposed, f.Rule, "%s", f)
	}

	// --release names the Secret; without it and without a common label, the error says so
	out, result = once(t, creds, workloads, Options{Namespace: "shop", Release: "web"})
	assert.Equal(t, []string{"jobs/web-proxy-credentials", "shop/web-proxy-credentials"}, result.Secrets)
	assert.Contains(t, out, "name: web-proxy-credentials")
	_, _, err := Stream([]byte(strings.ReplaceAll(workloads, "app.kubernetes.io/instance", "x")), Options{Values: values(t, creds), Namespace: "shop"})
	assert.ErrorContains(t, err, "set Options.Release")
	assert.NotContains(t, err.Error(), "Zq")

	// the release namespace unknown: the Secret has none either, so Helm puts it beside the objects
	out, _ = once(t, creds, workloads, Options{})
	assert.Contains(t, out, "# Source: proxykit inject\napiVersion: v1\ndata:")
	assert.Contains(t, out, "namespace: \"jobs\"")
}

func TestStreamExistingSecret(t *testing.T) {
	v := "proxy: {existingSecret: corp-proxy}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n"
	out, result := run(t, v, service+"---\n"+workloads, Options{Namespace: "shop"})
	assert.Empty(t, result.Secrets, "the user's Secret is theirs to create")
	e := env(t, parse(t, out, "shop"), "Deployment/web", "metrics")
	assert.Equal(t, "corp-proxy", e["HTTPS_PROXY"].ValueFrom.SecretKeyRef.Name)
	assert.Contains(t, e["NO_PROXY"].Value, ",api,api.shop,api.shop.svc,[::1]", "the Services before the bracketed entries")
	// without Services every variable reads the Secret, as in the policies
	out, _ = run(t, v, workloads, Options{Namespace: "shop"})
	assert.Equal(t, "corp-proxy", env(t, parse(t, out, "shop"), "Deployment/web", "metrics")["NO_PROXY"].ValueFrom.SecretKeyRef.Name)
}

func TestStreamTrustedCA(t *testing.T) {
	v := strings.Replace(plainValues, `proxy: {http: "http://proxy.corp:3128", https: "http://proxy.corp:3129"}`,
		"proxy:\n  http: http://proxy.corp:3128\n  trustedCA: |\n"+indent(newCA(t), "    "), 1)
	mounted := strings.Replace(workloads, "        - name: metrics\n          image: x\n",
		"        - name: metrics\n          image: x\n          volumeMounts: [{name: certs, mountPath: /etc/proxykit/ca}]\n", 1)
	out, _ := run(t, v, mounted, Options{Namespace: "shop"})
	m := parse(t, out, "shop")
	spec, ok := m.Find("Deployment", "web").PodSpec()
	require.True(t, ok)
	require.Len(t, spec.Volumes, 1)
	assert.Equal(t, "proxykit-ca-bundle", spec.Volumes[0].ConfigMap.Name)
	assert.Equal(t, "/etc/proxykit/ca/ca-certificates.crt", env(t, m, "Deployment/web", "web")["SSL_CERT_FILE"].Value)
	assert.Equal(t, []corev1.VolumeMount{{Name: "proxykit-ca-bundle", MountPath: "/etc/proxykit/ca", ReadOnly: true}}, m.Container(t, "Deployment/web", "web").VolumeMounts)
	assert.Equal(t, []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/proxykit/ca"}}, m.Container(t, "Deployment/web", "metrics").VolumeMounts,
		"an own mount at the same path is kept, as the policies keep it")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix) + "\n"
}

// newCA is a self-signed CA certificate as PEM, such as a TLS-intercepting proxy signs with.
func newCA(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "corp-ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestStreamRuntimes(t *testing.T) {
	v := strings.Replace(plainValues, `https: "http://proxy.corp:3129"}`, `https: "http://proxy.corp:3129", runtimes: [java, node]}`, 1)
	own := strings.Replace(workloads, "            - {name: TZ, value: UTC}\n", "            - {name: TZ, value: UTC}\n            - {name: JAVA_TOOL_OPTIONS, value: \"-Xmx64m -Dhttp.proxyPort=8080\"}\n", 1)
	out, _ := run(t, v, service+"---\n"+own, Options{Namespace: "shop"})
	m := parse(t, out, "shop")
	web := m.Container(t, "Deployment/web", "web").Env
	assert.Equal(t, "JAVA_TOOL_OPTIONS", web[1].Name, "the own entry stays where it was")
	assert.True(t, strings.HasSuffix(web[1].Value, "|api|*.api|api.shop|*.api.shop|api.shop.svc|*.api.shop.svc|[::1] -Xmx64m -Dhttp.proxyPort=8080"), web[1].Value)
	e := env(t, m, "Deployment/web", "metrics")
	assert.Equal(t, "1", e["NODE_USE_ENV_PROXY"].Value)
	assert.Contains(t, e["NO_PROXY"].Value, ",api,.api,api.shop,.api.shop,")
}

func TestStreamRefuses(t *testing.T) {
	for _, c := range []struct{ values, stream, opt, want string }{
		{plainValues, service, "", "the release namespace is unknown: NO_PROXY needs the name.namespace form Pods call it by; set Options.Namespace"},
		{plainValues, "a: [", "shop", "document 1 is not YAML"},
		{plainValues, "- a\n- b\n", "shop", "not a Kubernetes object"},
		{plainValues + "proxy: {noProxy: \"*\"}\n", workloads, "shop", "proxy.noProxy"},
		{"cluster: {podCIDR: [10.0.0.0/8]}\nproxy: {http: http://p:1}\n", workloads, "shop", "cluster.podCIDRs"},
		{plainValues, "apiVersion: v1\nkind: Service\nmetadata: {name: Bad_Name, namespace: x}\n", "", "Bad_Name"},
		{plainValues, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [a]}\n", "", "Pod p: spec.containers[0] is not a container"},
	} {
		_, _, err := Stream([]byte(c.stream), Options{Values: values(t, c.values), Namespace: c.opt})
		assert.ErrorContains(t, err, c.want, c.stream)
	}
}

func TestStreamProxyOff(t *testing.T) {
	in := configMap + "---\n" + workloads
	out, result := run(t, "cluster: {podCIDRs: [10.244.0.0/16]}\n", in, Options{Namespace: "shop"})
	assert.Zero(t, result.Containers)
	docs, err := manifest.SplitDocuments(in)
	require.NoError(t, err)
	for _, doc := range docs {
		assert.Contains(t, out, "---\n"+strings.Trim(doc, "\n")+"\n", "the proxy off: every document as it was")
	}
}

// withEntries adds entries to a NO_PROXY as the library does: every bracketed
// IPv6 entry after all the others.
func withEntries(noProxy, entries string) string {
	var plain, bracketed []string
	for _, e := range strings.Split(noProxy+","+entries, ",") {
		if strings.HasPrefix(e, "[") {
			bracketed = append(bracketed, e)
		} else {
			plain = append(plain, e)
		}
	}
	return strings.Join(append(plain, bracketed...), ",")
}

// Every pod template inject gives the proxy carries the record of that
// configuration, and the Secret it emits the same: right after an install
// nothing is stale; after a password rotation every injected Pod is.
func TestStreamRecord(t *testing.T) {
	t.Parallel() // with credentials: a scrypt key per render, seconds under the race detector
	record := func(valuesYAML string) string {
		out, err := proxykit.Ask(values(t, valuesYAML), "", "", proxykit.Call{Helper: "proxykit.proxy.record"})
		require.NoError(t, err)
		require.NotEmpty(t, out["proxykit.proxy.record"])
		return out["proxykit.proxy.record"]
	}
	out, _ := run(t, plainValues, workloads, Options{Namespace: "shop"})
	m := parse(t, out, "shop")
	for _, c := range m.Containers() {
		if c.Object == "Pod/debug" {
			assert.Empty(t, c.Record(), "the Pod opts out: nothing given, nothing recorded")
			continue
		}
		assert.Equal(t, record(plainValues), c.Record(), "%s/%s", c.Object, c.Name)
	}
	assert.Empty(t, rules.CheckStale(m.Manifests, rules.Now{Record: record(plainValues)}), "injected now: nothing stale")
	assert.Len(t, rules.CheckStale(m.Manifests, rules.Now{Record: record(strings.Replace(plainValues, "3129", "3130", 1))}), 5,
		"the values moved on: every container that got the proxy (web, with its own HTTP_PROXY kept on purpose, got the rest), not the skipped envoy")

	creds := strings.Replace(plainValues, "http://proxy.corp:3128", "http://svc-user:Zq%40w@proxy.corp:3128", 1)
	out, _ = once(t, creds, workloads, Options{Namespace: "shop"})
	m = parse(t, out, "shop")
	secret := m.FindIn("Secret", "shop-proxy-credentials", "shop")
	require.NotNil(t, secret)
	assert.Equal(t, record(creds), secret.Annotation(manifest.AnnotationProxyConfig))
	assert.Empty(t, rules.CheckStale(m.Manifests, rules.Now{}), "the Pods and their Secret agree")
	rotated, _ := once(t, strings.Replace(creds, "Zq%40w", "n3w", 1), workloads, Options{Namespace: "shop"})
	// the rotated Secret beside the Pods injected before it (Helm's upgrade of the Secret alone)
	old := parse(t, out, "shop")
	rotatedSecret := parse(t, rotated, "shop").FindIn("Secret", "shop-proxy-credentials", "shop")
	old.Objects = slices.DeleteFunc(old.Objects, func(o manifest.Object) bool { return o.Kind == "Secret" })
	require.NoError(t, old.Add("rotated", rotatedSecret.Raw))
	stale := rules.CheckStale(old.Manifests, rules.Now{})
	assert.NotEmpty(t, stale)
	for _, f := range stale {
		assert.Contains(t, f.Message, "(from Secret/shop-proxy-credentials)")
		assert.NotContains(t, f.Message, "Zq")
		assert.NotContains(t, f.Message, "n3w")
	}
}

// A Helm hook that reads the proxy Secret (Helm 4 post-renders hooks) gets it
// as a hook of its own, weighted before the chart's, so it exists before the
// first hook runs; a stream without hooks keeps an ordinary Secret.
func TestStreamSecretForHooks(t *testing.T) {
	t.Parallel() // with credentials: a scrypt key per render, seconds under the race detector
	creds := strings.Replace(plainValues, "http://proxy.corp:3128", "http://svc-user:Zq%40w@proxy.corp:3128", 1)
	hook := `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  labels: {app.kubernetes.io/instance: shop}
  annotations: {helm.sh/hook: "pre-install,pre-upgrade", helm.sh/hook-weight: "0"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: x}]
`
	out, _ := run(t, creds, service+"---\n"+hook, Options{Namespace: "shop"})
	secret := parse(t, out, "shop").FindIn("Secret", "shop-proxy-credentials", "shop")
	require.NotNil(t, secret)
	assert.Equal(t, "pre-install,pre-upgrade,pre-rollback", secret.Annotation("helm.sh/hook"))
	assert.Equal(t, "-1000", secret.Annotation("helm.sh/hook-weight"), "before any hook of the chart")
	assert.Equal(t, "before-hook-creation", secret.Annotation("helm.sh/hook-delete-policy"), "written afresh on each upgrade")
	assert.NotEmpty(t, secret.Annotation(manifest.AnnotationProxyConfig), "and the record, as every proxy Secret")

	// a hook weighted lower than -1000 still runs after the Secret
	early := strings.Replace(strings.Replace(hook, `helm.sh/hook-weight: "0"`, `helm.sh/hook-weight: "-5000"`, 1), "name: migrate\n", "name: early\n", 1)
	out, _ = once(t, creds, service+"---\n"+hook+"---\n"+early, Options{Namespace: "shop"})
	secret = parse(t, out, "shop").FindIn("Secret", "shop-proxy-credentials", "shop")
	require.NotNil(t, secret)
	assert.Equal(t, "-5001", secret.Annotation("helm.sh/hook-weight"), "before the lowest hook that reads it")

	out, _ = once(t, creds, service+"---\n"+workloads, Options{Namespace: "shop"})
	secret = parse(t, out, "shop").FindIn("Secret", "shop-proxy-credentials", "shop")
	require.NotNil(t, secret)
	assert.Empty(t, secret.Annotation("helm.sh/hook"), "no hook reads it: an object of the release")
}
