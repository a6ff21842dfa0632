package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

// temporalLike keeps its calls in a mounted config file, as Temporal's chart
// does: another release's Elasticsearch and PostgreSQL by their short names
// (scheme and host on neighbouring keys), and the API server as Jenkins' JCasC
// names it; its own frontend is a Service of the render.
func temporalLike(noProxy string) string {
	config := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config, namespace: temporal}\ndata:\n  config.yaml: |\n" +
		"    elasticsearch: {url: {scheme: http, host: \"elasticsearch-master:9200\"}}\n" +
		"    sql: {connectAddr: \"postgres-postgresql:5432\"}\n" +
		"    frontend: \"http://temporal-frontend:7233\"\n" +
		"    kubernetes: {serverUrl: \"https://kubernetes.default\"}\n" +
		"    search: \"http://opensearch.search:9200\"\n" +
		"    public: \"https://api.github.com\"\n"
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: history, namespace: temporal}\nspec:\n  template:\n    spec:\n" +
		"      volumes: [{name: config, configMap: {name: config}}]\n      containers:\n        - name: history\n          image: x\n" +
		"          volumeMounts: [{name: config, mountPath: /etc/temporal}]\n          env:\n" + indent(plainEnv("http://proxy:3128", noProxy), "            ")
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: temporal-frontend, namespace: temporal}\nspec: {ports: [{port: 7233}]}\n"
	search := "apiVersion: v1\nkind: Namespace\nmetadata: {name: search}\n"
	return strings.Join([]string{config, deploy, svc, search}, "---\n")
}

func inClusterFindings(t *testing.T, stream string, opts ...Option) []Finding {
	t.Helper()
	m, err := manifest.Parse(stream)
	require.NoError(t, err)
	var out []Finding
	for _, f := range Check(m, append([]Option{WithCluster(testCluster)}, opts...)...) {
		if f.Rule == RuleInClusterCallProxied {
			out = append(out, f)
		}
	}
	return out
}

func TestInClusterCallProxied(t *testing.T) {
	ownServices := ",temporal-frontend,temporal-frontend.temporal,temporal-frontend.temporal.svc"
	findings := inClusterFindings(t, temporalLike(goodNoProxy+ownServices))
	require.Len(t, findings, 1)
	msg := findings[0].Message
	where := " (ConfigMap/config key config.yaml, mounted at /etc/temporal): "
	assert.Contains(t, msg, "elasticsearch-master:9200"+where+"go, curl, wget", "another release's Service, called from a mounted file")
	assert.Contains(t, msg, "opensearch.search:9200"+where, "name.namespace of a namespace the render creates")
	assert.NotContains(t, msg, "postgres", "PostgreSQL's client reads no proxy variable")
	assert.NotContains(t, msg, "kubernetes.default", "the library's NO_PROXY names the API server so")
	assert.NotContains(t, msg, "temporal-frontend", "the render's own Service is release-service-proxied's")
	assert.NotContains(t, msg, "github", "a public host goes through the proxy, as it should")
	assert.NotContains(t, msg, "proxy:3128", "the proxy itself is no call")
	assert.Contains(t, msg, "proxykit inject")

	// a NO_PROXY without the API server's short names: Jenkins' default URL is proxied
	handWritten := strings.Replace(goodNoProxy, "kubernetes,kubernetes.default,kubernetes.default.svc,", "", 1)
	findings = inClusterFindings(t, temporalLike(handWritten+ownServices+",elasticsearch-master,opensearch.search"))
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Message, "kubernetes.default (ConfigMap/config key config.yaml, mounted at /etc/temporal): ")
	assert.NotContains(t, findings[0].Message, "elasticsearch-master")

	// every call named: nothing left
	assert.Empty(t, inClusterFindings(t, temporalLike(goodNoProxy+ownServices+",elasticsearch-master,opensearch.search")))

	// on a live cluster the advice is an operator's
	findings = inClusterFindings(t, temporalLike(goodNoProxy+ownServices), OnLiveCluster())
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Message, "proxy.noProxy in the values of the policy")
}

// A container that shows no proxy variable is missing-proxy-env's, not judged here.
func TestInClusterCallProxiedNeedsProxyVariables(t *testing.T) {
	stream := strings.Replace(temporalLike(goodNoProxy), "          env:\n", "          env: []\n          x-env:\n", 1)
	assert.Empty(t, inClusterFindings(t, stream))
}

// name.namespace where the namespace is a top-level domain too may be a
// Service or a public host (manifest.PlaceUnknown): judged, and the finding
// says how to tell. A namespace the facts declare (cluster.namespaces) places
// it in the cluster; github.com is outside it, never judged.
func TestInClusterCallIntoADeclaredNamespace(t *testing.T) {
	m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", goodNoProxy)+"\n- {name: VAULT_ADDR, value: \"http://vault.security:8200\"}\n- {name: UPSTREAM, value: \"https://github.com\"}", ""))
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.Len(t, findings, 1)
	assert.Equal(t, RuleInClusterCallProxied, findings[0].Rule)
	assert.Contains(t, findings[0].Message, "vault.security:8200 (env VAULT_ADDR): go, curl")
	assert.Contains(t, findings[0].Message, "grpc-go, since .security is a top-level domain, so vault.security may be a public host: if it is Service vault in namespace security, list security in cluster.namespaces (proxykit discover does) or call it as vault.security.svc;")
	assert.NotContains(t, findings[0].Message, "github.com")
	declared := testCluster
	declared.Namespaces = []string{"security"}
	findings = Check(m, WithCluster(declared))
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Message, "vault.security:8200 (env VAULT_ADDR): go, curl")
	assert.NotContains(t, findings[0].Message, "if it is Service vault", "placed: in the cluster")
}

// A call to the Pod itself (a sidecar's reload URL) goes through the proxy for
// the clients that proxy loopback (curl, requests) when a hand-written
// NO_PROXY lacks localhost; Go never proxies it. A call kept in a ConfigMap no
// container reads (which a sidecar loads by label) is judged on every container.
func TestInClusterCallProxiedLoopbackAndLooseCalls(t *testing.T) {
	noLocalhost := strings.Replace(goodNoProxy, "localhost,127.0.0.1,", "", 1)
	require.NotEqual(t, goodNoProxy, noLocalhost)
	m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", noLocalhost)+"\n- {name: RELOAD_URL, value: \"http://localhost:3000/api/admin/provisioning/datasources/reload\"}", "",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: datasources, labels: {grafana_datasource: \"1\"}}\ndata:\n  loki.yaml: |\n    url: http://loki-gateway.logging\n"))
	require.NoError(t, err)
	findings := inClusterOnly(Check(m, WithCluster(testCluster)))
	require.Len(t, findings, 1)
	msg := findings[0].Message
	assert.Regexp(t, `localhost:3000 \(env RELOAD_URL\): [^;]*curl[^;]*, the Pod itself`, msg)
	assert.NotRegexp(t, `localhost:3000 \(env RELOAD_URL\): [^;]*\bgo\b`, msg, "Go never proxies loopback")
	assert.Contains(t, msg, "loki-gateway.logging (ConfigMap/datasources key loki.yaml, which no container reads): go, curl")
	assert.Contains(t, msg, "NO_PROXY needs localhost, 127.0.0.1 and ::1")

	m, err = manifest.Parse(pod(plainEnv("http://proxy:3128", goodNoProxy+",loki-gateway.logging")+"\n- {name: RELOAD_URL, value: \"http://localhost:3000/reload\"}", ""))
	require.NoError(t, err)
	assert.Empty(t, inClusterOnly(Check(m, WithCluster(testCluster))), "the library's NO_PROXY lets both through")
}

func inClusterOnly(findings []Finding) []Finding {
	var out []Finding
	for _, f := range findings {
		if f.Rule == RuleInClusterCallProxied {
			out = append(out, f)
		}
	}
	return out
}

// Keycloak's own client, judged where the container runs Keycloak: it matches
// an entry as the pattern (?:.+\.)?<entry> of the whole host, so a NO_PROXY
// written with ".svc" alone sends dex.auth.svc to the proxy for it, while every
// other client goes direct; the library's "svc,.svc" lets all of them through.
func TestInClusterCallProxiedForKeycloak(t *testing.T) {
	keycloak := func(noProxy string) []Finding {
		stream := strings.Replace(pod(plainEnv("http://proxy:3128", noProxy)+"\n- {name: KC_SPI_BROKER_URL, value: \"http://dex.auth.svc:5556\"}", ""), "image: x", "image: quay.io/keycloak/keycloak:26.4", 1)
		m, err := manifest.Parse(stream)
		require.NoError(t, err)
		return inClusterOnly(Check(m, WithCluster(testCluster)))
	}
	findings := keycloak("localhost,127.0.0.1,.svc,.cluster.local,10.96.0.0/12,10.244.0.0/16")
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Message, "dex.auth.svc:5556 (env KC_SPI_BROKER_URL): keycloak;")
	assert.Empty(t, keycloak(goodNoProxy), "the library writes svc beside .svc")

	// the same NO_PROXY in a container that shows no Keycloak: nothing to judge
	m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", "localhost,127.0.0.1,.svc,.cluster.local")+"\n- {name: URL, value: \"http://dex.auth.svc:5556\"}", ""))
	require.NoError(t, err)
	assert.Empty(t, inClusterOnly(Check(m, WithCluster(testCluster))))
}
