package inject

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/proxytest"
)

// harborLike hands its own proxy settings to core through an envFrom ConfigMap,
// and its scanner carries empty placeholders for them, as Harbor's chart does;
// a JVM container sets its own -Dhttp.nonProxyHosts.
const harborLike = `apiVersion: v1
kind: ConfigMap
metadata: {name: core-env, namespace: harbor}
data:
  HTTP_PROXY: http://own-proxy.corp:8080
  NO_PROXY: .internal,.local,sso.corp.internal
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: core, namespace: harbor}
spec:
  template:
    spec:
      containers:
        - name: core
          image: x
          envFrom: [{configMapRef: {name: core-env}}]
        - name: trivy
          image: x
          env:
            - {name: SCANNER_LOG_LEVEL, value: info}
            - {name: HTTP_PROXY, value: ""}
            - {name: HTTPS_PROXY, value: ""}
            - {name: NO_PROXY, value: ""}
        - name: jvm
          image: x
          env:
            - {name: JAVA_TOOL_OPTIONS, value: "-Xmx1g -Dhttp.nonProxyHosts=*.internal|sso.corp.internal"}
`

// With policy.mergeNoProxy switched off an own NO_PROXY and -Dhttp.nonProxyHosts
// are kept as they are, and reported.
func TestStreamOwnSettingsKeptWithoutMerge(t *testing.T) {
	values := strings.Replace(plainValues, "proxy: {", "proxy: {runtimes: [java], ", 1) + "policy: {mergeNoProxy: false}\n"
	out, result := run(t, values, harborLike, Options{Namespace: "harbor"})
	m := parse(t, out, "harbor")

	// envFrom counts as the container's own: nothing replaces it, and the twins read it
	core := env(t, m, "Deployment/core", "core")
	_, set := core["HTTP_PROXY"]
	assert.False(t, set, "the own HTTP_PROXY from envFrom is not overridden by env")
	assert.Equal(t, "core-env", core["http_proxy"].ValueFrom.ConfigMapKeyRef.Name, "the twin reads the own value")
	assert.Equal(t, "HTTP_PROXY", core["http_proxy"].ValueFrom.ConfigMapKeyRef.Key)
	assert.Equal(t, "NO_PROXY", core["no_proxy"].ValueFrom.ConfigMapKeyRef.Key)
	assert.Equal(t, "http://proxy.corp:3129", core["HTTPS_PROXY"].Value, "what the chart does not set comes from the cluster")
	coreEnv := m.Environment(m.Container(t, "Deployment/core", "core"))
	assert.Equal(t, coreEnv["HTTP_PROXY"], coreEnv["http_proxy"])
	assert.Equal(t, coreEnv["NO_PROXY"], coreEnv["no_proxy"])
	assert.Contains(t, result.Notes, "Deployment/core container core: its own NO_PROXY (ConfigMap/core-env key NO_PROXY, envFrom) kept without the cluster's entries (its Services, networks, the API server): policy.mergeNoProxy: true merges them")

	// an empty placeholder is unset: replaced in place, and both cases agree
	trivy := m.Container(t, "Deployment/core", "trivy").Env
	assert.Equal(t, []string{"SCANNER_LOG_LEVEL", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "JAVA_TOOL_OPTIONS"}, names(trivy))
	trivyEnv := m.Environment(m.Container(t, "Deployment/core", "trivy"))
	assert.Equal(t, "http://proxy.corp:3128", trivyEnv["HTTP_PROXY"])
	assert.Equal(t, trivyEnv["NO_PROXY"], trivyEnv["no_proxy"])
	assert.Contains(t, trivyEnv["NO_PROXY"], "kubernetes.default")

	// the JVM's own nonProxyHosts is kept, and reported
	jvm := env(t, m, "Deployment/core", "jvm")["JAVA_TOOL_OPTIONS"].Value
	assert.True(t, strings.HasSuffix(jvm, " -Xmx1g -Dhttp.nonProxyHosts=*.internal|sso.corp.internal"), jvm)
	assert.Contains(t, strings.Join(result.Notes, "\n"), "Deployment/core container jvm: its own JAVA_TOOL_OPTIONS keeps its own -Dhttp.nonProxyHosts")

	for _, f := range proxytest.Check(m, proxytest.WithCluster(testFacts)) {
		assert.NotEqual(t, proxytest.RuleCaseMismatch, f.Rule, "twins agree: %s", f)
		assert.NotEqual(t, "trivy", f.Container, "the placeholders are filled: %s", f)
	}
}

// policy.mergeNoProxy is on unless switched off: an own NO_PROXY (from envFrom
// too) and -Dhttp.nonProxyHosts get the cluster's entries.
func TestStreamMergeNoProxyByDefault(t *testing.T) {
	values := strings.Replace(plainValues, "proxy: {", "proxy: {runtimes: [java], ", 1)
	out, result := run(t, values, harborLike, Options{Namespace: "harbor"})
	m := parse(t, out, "harbor")
	coreEnv := m.Environment(m.Container(t, "Deployment/core", "core"))
	entries := strings.Split(coreEnv["NO_PROXY"], ",")
	for _, want := range []string{".internal", ".local", "sso.corp.internal", "kubernetes.default", "10.96.0.0/12", "svc"} {
		assert.Contains(t, entries, want, "the chart's entries and the cluster's")
	}
	assert.Equal(t, coreEnv["NO_PROXY"], coreEnv["no_proxy"])
	assert.Equal(t, "http://own-proxy.corp:8080", coreEnv["HTTP_PROXY"], "merging NO_PROXY keeps the own proxy")
	assert.Empty(t, result.Notes, "nothing replaced, nothing kept without the cluster's entries")

	jvm := env(t, m, "Deployment/core", "jvm")["JAVA_TOOL_OPTIONS"].Value
	own := jvm[strings.LastIndex(jvm, "-Dhttp.nonProxyHosts="):]
	assert.True(t, strings.HasPrefix(own, "-Dhttp.nonProxyHosts=*.internal|sso.corp.internal|localhost|"), own)
	assert.Contains(t, own, "|kubernetes.default|")
	assert.Contains(t, jvm, " -Xmx1g -Dhttp.nonProxyHosts=*.internal|sso.corp.internal -Dhttp.nonProxyHosts=", "its own flag kept, the merged one last")

	for _, f := range proxytest.Check(m, proxytest.WithCluster(testFacts)) {
		assert.NotEqual(t, "core", f.Container, "%s", f)
	}
}

func TestStreamOverrideReportsReplaced(t *testing.T) {
	_, result := run(t, plainValues+"policy: {overrideExisting: true}\n", harborLike, Options{Namespace: "harbor"})
	assert.Contains(t, result.Notes, "Deployment/core container core: its own HTTP_PROXY (ConfigMap/core-env key HTTP_PROXY, envFrom) replaced (policy.overrideExisting)")
	assert.Contains(t, result.Notes, "Deployment/core container core: its own NO_PROXY (ConfigMap/core-env key NO_PROXY, envFrom) replaced (policy.overrideExisting)")
}

func TestMergeJava(t *testing.T) {
	flags := "-Dhttp.proxyHost=p -Dhttp.nonProxyHosts=localhost|*.svc"
	for own, want := range map[string]javaMerge{
		"-Xmx1g":                          {},
		"-Dhttp.nonProxyHosts=*.internal": {suffix: " -Dhttp.nonProxyHosts=*.internal|localhost|*.svc", lacking: true},
		`-Dhttp.nonProxyHosts="*.internal|localhost"`:          {suffix: " -Dhttp.nonProxyHosts=*.internal|localhost|*.svc", lacking: true},
		"-Dhttp.nonProxyHosts=a -Dhttp.nonProxyHosts=b -Xss1m": {suffix: " -Dhttp.nonProxyHosts=b|localhost|*.svc", lacking: true},
		// appended even when nothing is missing, as every engine does
		"-Dhttp.nonProxyHosts=localhost|*.svc|x": {suffix: " -Dhttp.nonProxyHosts=localhost|*.svc|x"},
		// wide patterns and empty ones are left out
		"-Dhttp.nonProxyHosts=localhost||*.svc|*":       {suffix: " -Dhttp.nonProxyHosts=localhost|*.svc", dropped: []string{"*"}},
		"-Dhttp.nonProxyHosts=*.com|10.*|1*|*.internal": {suffix: " -Dhttp.nonProxyHosts=10.*|*.internal|localhost|*.svc", lacking: true, dropped: []string{"*.com", "1*"}},
	} {
		assert.Equal(t, want, mergeJava(own, flags), own)
	}
	assert.Equal(t, javaMerge{}, mergeJava("-Dhttp.nonProxyHosts=*", "-Dhttp.proxyHost=p"), "the proxy's flags name no pattern")
}

// policy.mergeNoProxy never carries an own entry that sends public hosts around
// the proxy: each is dropped with a note naming the container and the entry,
// in NO_PROXY, its twin and the JVM's flags; Go's matcher and the JVM's then
// proxy a public host.
func TestStreamMergeDropsWideEntries(t *testing.T) {
	stream := `apiVersion: apps/v1
kind: Deployment
metadata: {name: wide, namespace: shop}
spec:
  template:
    spec:
      containers:
        - name: app
          image: x
          env:
            - {name: NO_PROXY, value: "localhost,*,.com,0.0.0.0/0,::/0,.corp.example"}
            - {name: no_proxy, value: "*"}
            - {name: JAVA_TOOL_OPTIONS, value: "-Dhttp.nonProxyHosts=*|*.corp.example"}
`
	values := strings.Replace(plainValues, "proxy: {", "proxy: {runtimes: [java], ", 1) + "policy: {mergeNoProxy: true}\n"
	out, result := run(t, values, stream, Options{Namespace: "shop"})
	m := parse(t, out, "shop")
	got := env(t, m, "Deployment/wide", "app")
	assert.Contains(t, strings.Split(got["NO_PROXY"].Value, ","), ".corp.example")
	for _, name := range []string{"NO_PROXY", "no_proxy"} {
		entries := strings.Split(got[name].Value, ",")
		for _, wide := range []string{"*", ".com", "0.0.0.0/0", "::/0"} {
			assert.NotContains(t, entries, wide, name)
		}
	}
	java := got["JAVA_TOOL_OPTIONS"].Value
	last := java[strings.LastIndex(java, "-Dhttp.nonProxyHosts="):]
	assert.NotContains(t, strings.Split(strings.TrimPrefix(last, "-Dhttp.nonProxyHosts="), "|"), "*", java)
	notes := strings.Join(result.Notes, "\n")
	assert.Contains(t, notes, "Deployment/wide container app: its own NO_PROXY merged without entries *, .com, 0.0.0.0/0, ::/0, which would send public hosts around the proxy")
	assert.Contains(t, notes, "Deployment/wide container app: its own no_proxy merged without entry *")
	assert.Contains(t, notes, "Deployment/wide container app: its own JAVA_TOOL_OPTIONS merged without -Dhttp.nonProxyHosts pattern *")
	for _, f := range proxytest.Check(m, proxytest.WithCluster(testFacts)) {
		assert.NotEqual(t, proxytest.RuleProxyBypassedForPublicHosts, f.Rule, "%s", f)
	}
}

var testFacts = proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1"}

// ownFromSecret gives a JVM container its own JAVA_TOOL_OPTIONS (a trust
// store's password among the flags) and NO_PROXY through an envFrom Secret.
const ownFromSecret = `apiVersion: v1
kind: Secret
metadata: {name: jvm-opts, namespace: shop}
stringData:
  JAVA_TOOL_OPTIONS: "-Djavax.net.ssl.trustStorePassword=Sup3rS3cret -Dhttp.nonProxyHosts=*.internal"
  NO_PROXY: ".internal,Sup3rZone.corp"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  template:
    spec:
      containers:
        - name: api
          image: x
          envFrom: [{secretRef: {name: jvm-opts}}]
`

// What a Secret gives a container stays in the Secret in every mode: inject
// references it ($(JAVA_TOOL_OPTIONS), which the kubelet expands, or a
// secretKeyRef), never copies it into a plain value, and says so in a note
// that names the Secret's key, not its text.
func TestStreamOwnSettingsFromASecretStayInIt(t *testing.T) {
	for _, mode := range []string{"{mergeNoProxy: false}", "{}", "{overrideExisting: true, mergeNoProxy: false}", "{overrideExisting: true}"} {
		t.Run(mode, func(t *testing.T) {
			values := strings.Replace(plainValues, "proxy: {", "proxy: {runtimes: [java], ", 1) + "policy: " + mode + "\n"
			out, result := run(t, values, ownFromSecret, Options{Namespace: "shop"})
			for _, doc := range strings.Split(out, "\n---\n") {
				if !strings.Contains(doc, "kind: Secret") {
					assert.NotContains(t, doc, "Sup3r", "a Secret's value outside the Secret")
				}
			}
			assert.NotContains(t, strings.Join(result.Notes, "\n"), "Sup3r")
			m := parse(t, out, "shop")
			own := env(t, m, "Deployment/api", "api")["JAVA_TOOL_OPTIONS"].Value
			assert.Contains(t, own, "$(JAVA_TOOL_OPTIONS)")
			// the container still gets its own flags and the proxy's, as the kubelet expands them
			got := m.Environment(m.Container(t, "Deployment/api", "api"))
			assert.Contains(t, got["JAVA_TOOL_OPTIONS"], "-Djavax.net.ssl.trustStorePassword=Sup3rS3cret")
			assert.Contains(t, got["JAVA_TOOL_OPTIONS"], "-Dhttp.proxyHost=proxy.corp")
			assert.Equal(t, got["NO_PROXY"], got["no_proxy"], "the twins agree")
		})
	}
}

// keycloakLike sets its own -Dhttp.nonProxyHosts where Keycloak's kc.sh takes
// flags (JAVA_OPTS_APPEND, on the java command line: it beats
// JAVA_TOOL_OPTIONS) and calls its own Service; a second container sets the
// flag on its command line.
const keycloakLike = `apiVersion: v1
kind: Service
metadata: {name: kc-http, namespace: auth}
spec: {ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: kc, namespace: auth}
spec:
  template:
    spec:
      containers:
        - name: keycloak
          image: x
          env:
            - {name: KC_HOSTNAME_URL, value: "http://kc-http.auth:80/"}
            - {name: JAVA_OPTS_APPEND, value: "-Djgroups.dns.query=kc-headless -Dhttp.nonProxyHosts=*.corp.example"}
        - name: launcher
          image: x
          args: [java, -Dhttp.nonProxyHosts=localhost, -jar, app.jar]
`

// The JVM's own flags outside JAVA_TOOL_OPTIONS: kept and reported with
// policy.mergeNoProxy switched off (check then finds the release's Service
// sent to the proxy by the JVM), merged by default (and check finds nothing);
// a command line is reported, never rewritten.
func TestStreamJavaOptionsOutsideJavaToolOptions(t *testing.T) {
	values := strings.Replace(plainValues, "proxy: {", "proxy: {runtimes: [java], ", 1)
	jvmFindings := func(m *proxytest.Manifests) []string {
		var out []string
		for _, f := range proxytest.Check(m, proxytest.WithCluster(testFacts)) {
			if f.Container == "keycloak" && strings.Contains(f.Message, "java") {
				out = append(out, f.String())
			}
		}
		return out
	}

	out, result := run(t, values+"policy: {mergeNoProxy: false}\n", keycloakLike, Options{Namespace: "auth"})
	m := parse(t, out, "auth")
	assert.Equal(t, "-Djgroups.dns.query=kc-headless -Dhttp.nonProxyHosts=*.corp.example", env(t, m, "StatefulSet/kc", "keycloak")["JAVA_OPTS_APPEND"].Value)
	notes := strings.Join(result.Notes, "\n")
	assert.Contains(t, notes, "StatefulSet/kc container keycloak: its own JAVA_OPTS_APPEND sets -Dhttp.nonProxyHosts, which the JVM reads instead of JAVA_TOOL_OPTIONS's, without the cluster's entries: policy.mergeNoProxy: true merges them")
	assert.Contains(t, notes, "StatefulSet/kc container launcher: its command line sets -Dhttp.nonProxyHosts")
	found := jvmFindings(m)
	if assert.NotEmpty(t, found, "check sees the JVM send the release's own Service to the proxy") {
		assert.Contains(t, found[0], "the JVM reads -Dhttp.nonProxyHosts from the container's own JAVA_OPTS_APPEND, which lacks those names: policy.mergeNoProxy: true merges", "the advice names the cause, not NO_PROXY")
	}

	out, result = run(t, values, keycloakLike, Options{Namespace: "auth"})
	m = parse(t, out, "auth")
	merged := env(t, m, "StatefulSet/kc", "keycloak")["JAVA_OPTS_APPEND"].Value
	assert.True(t, strings.HasPrefix(merged, "-Djgroups.dns.query=kc-headless -Dhttp.nonProxyHosts=*.corp.example -Dhttp.nonProxyHosts=*.corp.example|localhost|"), merged)
	assert.Contains(t, merged, "|kc-http.auth|")
	assert.Empty(t, jvmFindings(m))
	assert.Contains(t, strings.Join(result.Notes, "\n"), "container launcher: its command line sets -Dhttp.nonProxyHosts")
	assert.Equal(t, []string{"java", "-Dhttp.nonProxyHosts=localhost", "-jar", "app.jar"}, m.Container(t, "StatefulSet/kc", "launcher").Args, "a command line is never rewritten")

	again, _ := run(t, values, out, Options{Namespace: "auth"})
	assert.Equal(t, out, again, "injecting twice equals injecting once")
}
