package inject

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/rules"
)

// calling keeps its calls where Temporal's and Jenkins' charts keep theirs:
// another release's Services by short name in a mounted config file (scheme and
// host on neighbouring keys), the API server as JCasC names it, a Service of a
// namespace the stream creates, and an env URL with $(VAR).
const calling = `apiVersion: v1
kind: Namespace
metadata: {name: search}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: config, namespace: temporal}
data:
  config.yaml: |
    elasticsearch: {url: {scheme: http, host: "elasticsearch-master:9200"}}
    sql: {connectAddr: "postgres-postgresql:5432"}
    kubernetes: {serverUrl: "https://kubernetes.default"}
    search: "http://opensearch.search:9200"
    public: "https://api.github.com"
    fqdn: "http://vault.vault.svc:8200"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: history, namespace: temporal}
spec:
  template:
    spec:
      volumes: [{name: config, configMap: {name: config}}]
      containers:
        - name: history
          image: x
          env:
            - {name: REGISTRY, value: schema-registry}
            - {name: REGISTRY_URL, value: "http://$(REGISTRY):8081"}
          volumeMounts: [{name: config, mountPath: /etc/temporal}]
`

func TestStreamCoversCalls(t *testing.T) {
	out, result := run(t, plainValues, calling, Options{Namespace: "temporal"})
	assert.Equal(t, []string{"elasticsearch-master", "kubernetes.default", "opensearch.search", "postgres-postgresql", "schema-registry"}, result.Called,
		"single labels and name.namespace: not the public host, not a .svc name (the library's .svc covers it)")
	m := parse(t, out, "temporal")
	got := env(t, m, "Deployment/history", "history")["NO_PROXY"].Value
	for _, host := range result.Called {
		assert.Contains(t, strings.Split(got, ","), host)
	}
	assert.Equal(t, 1, strings.Count(got, ",kubernetes.default,"), "the library's own entry is not repeated")
	assert.NotContains(t, got, "github")
	for _, f := range rules.Check(m.Manifests, rules.WithCluster(m.Cluster)) {
		assert.NotEqual(t, rules.RuleInClusterCallProxied, f.Rule, "%s", f)
	}

	// without the calls in NO_PROXY check finds them, and names the file
	handWritten := strings.NewReplacer(",elasticsearch-master", "", ",opensearch.search", "", ",schema-registry", "").Replace(out)
	m = parse(t, handWritten, "temporal")
	var msgs []string
	for _, f := range rules.Check(m.Manifests) {
		if f.Rule == rules.RuleInClusterCallProxied {
			msgs = append(msgs, f.Message)
		}
	}
	require.Len(t, msgs, 1)
	for _, want := range []string{"elasticsearch-master:9200 (ConfigMap/config key config.yaml, mounted at /etc/temporal)", "opensearch.search:9200 (ConfigMap/config key config.yaml", "schema-registry:8081 (env REGISTRY_URL)"} {
		assert.Contains(t, msgs[0], want)
	}
}

// No public suffix reaches NO_PROXY, however the stream names it: a Service's
// bare name, a called host, a namespace some object sits in. Each host left out
// is named with where it was found; Go's own matcher still proxies the public
// hosts under them.
func TestStreamKeepsPublicSuffixesOutOfNoProxy(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join("testdata", "public-names.yaml"))
	require.NoError(t, err)
	out, result := run(t, plainValues, string(stream), Options{Namespace: "shop"})
	m := parse(t, out, "shop")
	noProxy := env(t, m, "Deployment/web", "web")["NO_PROXY"].Value
	entries := strings.Split(noProxy, ",")
	for _, entry := range entries {
		assert.Equal(t, cluster.SuffixNone, cluster.PublicSuffix(entry), "a public suffix in NO_PROXY: %s", entry)
	}
	assert.Contains(t, entries, "app.shop")
	assert.Contains(t, entries, "app.shop.svc")
	assert.Contains(t, entries, "github.io.svc")
	proxied := noproxy.GoProxied(noProxy)
	for _, public := range []string{"https://myproject.web.app", "https://ghcr.io", "https://quay.io", "https://octo.github.io", "https://github.com", "https://vault.security"} {
		u, err := url.Parse(public)
		require.NoError(t, err)
		assert.True(t, proxied(u), "%s goes through the proxy", public)
	}
	notes := strings.Join(result.Notes, "\n")
	for _, want := range []string{
		"Deployment/web container web calls io:443 (env REGISTRY): left out of NO_PROXY, since io is a public suffix",
		"calls vault.security:8200 (env VAULT_ADDR): left out of NO_PROXY, since .security is a top-level domain, so vault.security may be a public host: if it is Service vault in namespace security, list security in cluster.namespaces (proxykit discover does) or call it as vault.security.svc",
	} {
		assert.Contains(t, notes, want)
	}
	// github.com is outside the cluster (manifest.PlaceOutside): nobody calls a
	// namespace com, and a note on every public host would be read by nobody
	assert.NotContains(t, notes, "calls github.com")
}

// The release namespace is one the cluster has, even when it is a top-level
// domain too (prod, search, security): a call to db.prod from a release in prod
// is into the cluster. A namespace some object merely names is not.
func TestStreamTrustsTheReleaseNamespace(t *testing.T) {
	stream := `apiVersion: v1
kind: ConfigMap
metadata: {name: elsewhere, namespace: dev}
data: {x: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  template:
    spec:
      containers:
        - name: api
          image: x
          env:
            - {name: DB, value: "http://db.prod:8080"}
            - {name: DOCS, value: "https://web.dev"}
`
	_, result := run(t, plainValues, stream, Options{Namespace: "prod"})
	assert.Equal(t, []string{"db.prod"}, result.Called)
	assert.Contains(t, strings.Join(result.Notes, "\n"), "calls web.dev (env DOCS): left out of NO_PROXY, since .dev is a top-level domain")
}

// cluster.namespaces declares the namespaces another release lives in: a call
// to vault.security is then into the cluster, though .security is a top-level
// domain, and joins NO_PROXY.
func TestStreamReadsTheClustersNamespaces(t *testing.T) {
	stream := "apiVersion: v1\nkind: Pod\nmetadata: {name: worker}\nspec:\n  containers:\n    - name: worker\n      image: x\n      env: [{name: VAULT_ADDR, value: \"http://vault.security:8200\"}]\n"
	_, result := run(t, plainValues, stream, Options{Namespace: "airflow"})
	assert.Empty(t, result.Called, "without the fact, vault.security may be a public host")
	_, result = run(t, strings.Replace(plainValues, "cluster: {", "cluster: {namespaces: [security], ", 1), stream, Options{Namespace: "airflow"})
	assert.Equal(t, []string{"vault.security"}, result.Called)
}

// Grafana's data sources live in a ConfigMap a sidecar loads by label: no
// container reads it, yet Grafana calls loki-gateway.logging and
// tempo.tracing. inject puts them in NO_PROXY, and leaves a public host out.
func TestStreamCoversCallsNoContainerReads(t *testing.T) {
	stream := `apiVersion: v1
kind: ConfigMap
metadata: {name: datasources, namespace: monitoring, labels: {grafana_datasource: "1"}}
data:
  ds.yaml: |
    datasources:
      - {name: Loki, url: "http://loki-gateway.logging"}
      - {name: Tempo, url: "http://tempo.tracing:3200"}
      - {name: Shop, url: "http://api.shop"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: grafana, namespace: monitoring}
spec:
  template:
    spec:
      containers: [{name: grafana, image: x}, {name: sidecar, image: x}]
`
	out, result := run(t, plainValues, stream, Options{Namespace: "monitoring"})
	assert.Equal(t, []string{"loki-gateway.logging", "tempo.tracing"}, result.Called)
	assert.Contains(t, strings.Join(result.Notes, "\n"), "the release calls api.shop (ConfigMap/datasources key ds.yaml, which no container reads): left out of NO_PROXY, since .shop is a top-level domain")
	m := parse(t, out, "monitoring")
	noProxy := env(t, m, "Deployment/grafana", "grafana")["NO_PROXY"].Value
	assert.Contains(t, strings.Split(noProxy, ","), "tempo.tracing")
}
