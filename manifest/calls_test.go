package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/cluster"
)

// callsStream keeps its calls where published charts keep theirs: a config file
// with the scheme and host on neighbouring keys (Temporal), a JCasC-style YAML
// with the API server's URL (Jenkins), an envFrom ConfigMap (Harbor), env with
// $(VAR), args, an INI and a properties file; and text that names no call.
const callsStream = `
apiVersion: v1
kind: ConfigMap
metadata: {name: server-config, namespace: temporal}
data:
  config.yaml: |
    persistence:
      visibilityStore: es
      datastores:
        es:
          elasticsearch:
            url:
              scheme: http
              host: "elasticsearch-master:9200"
        sql:
          sql:
            connectAddr: "postgres-postgresql:5432"
            connectProtocol: tcp
    publicClient:
      hostPort: "temporal-frontend:7233"
    image: "temporalio/server:1.25"
    schedule: "12:30"
  jcasc.yaml: |
    jenkins:
      clouds:
        - kubernetes:
            serverUrl: "https://kubernetes.default"
            jenkinsUrl: "http://jenkins:8080"
            templates:
              - containers:
                  - image: "jenkins/inbound-agent:3261.v9c670a_4748a_9-1"
  app.ini: |
    [database]
    host = mysql-primary
    port = 3306
    [cache]
    server = redis
    [search]
    server = nginx
  app.properties: |
    registry.url=https://harbor-core.registry.svc:443/api
    listen.address=:8080
---
apiVersion: v1
kind: ConfigMap
metadata: {name: core-env, namespace: temporal}
data:
  HTTP_PROXY: http://corp-proxy:3128
  NO_PROXY: .internal,core
  TOKEN_SERVICE_URL: http://harbor-core:80/service/token
  PORTAL_TITLE: Harbor
---
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: temporal}
stringData:
  url: postgres://app:s3cret@pg-cluster-rw.databases:5432/app
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: history, namespace: temporal}
spec:
  template:
    spec:
      volumes:
        - name: config
          configMap:
            name: server-config
            items: [{key: config.yaml, path: config_template.yaml}, {key: jcasc.yaml, path: casc.yaml}, {key: app.ini, path: app.ini}, {key: app.properties, path: app.properties}]
      containers:
        - name: history
          image: temporalio/server:1.25.1
          envFrom: [{configMapRef: {name: core-env}}]
          env:
            - {name: HTTPS_PROXY, value: "http://corp-proxy:3128"}
            - {name: ES_HOST, value: opensearch}
            - {name: ES_URL, value: "https://$(ES_HOST):9200/_bulk"}
            - {name: DATABASE_URL, valueFrom: {secretKeyRef: {name: db, key: url}}}
            - {name: GREETING, value: "hello: world, at 10:30"}
          command: ["/bin/sh", "-c", "until nc -z temporal-frontend.temporal 7233; do sleep 1; done"]
          args: ["--peer=http://matching.temporal.svc.cluster.local:7235", "--port=8080", "--bind=:9090"]
          volumeMounts:
            - {name: config, mountPath: /etc/temporal/config}
        - name: checker
          image: x
          args: [check-http, --service-name=kyverno-svc-metrics, --namespace=kyverno, --port=8000, --path=metrics, --https]
        - name: certs
          image: x
          args: [--service-name=webhook, --service-namespace=es, --secret-name=webhook-tls, --dns-name=webhook.es.svc]
`

func TestCalls(t *testing.T) {
	m, err := Parse(callsStream)
	require.NoError(t, err)
	ctrs := m.Containers()
	require.Len(t, ctrs, 3)
	// a readiness checker's flags name a Service, its namespace and port (Kyverno's chart tests)
	assert.Equal(t, []HostCall{{Host: "kyverno-svc-metrics.kyverno", Port: "8000", Scheme: "https", Where: "args"}}, m.Calls(ctrs[1]))
	// a certificate controller's flags name a Service without a port, and a DNS name: no calls
	assert.Empty(t, m.Calls(ctrs[2]))
	got := map[string]HostCall{}
	for _, c := range m.Calls(ctrs[0]) {
		got[c.HostPort()] = c
	}
	mounted := "ConfigMap/server-config key "
	want := map[string]HostCall{
		"harbor-core:80":                           {Scheme: "http", Where: "ConfigMap/core-env key TOKEN_SERVICE_URL (envFrom)"},
		"opensearch:9200":                          {Scheme: "https", Where: "env ES_URL"},
		"pg-cluster-rw.databases:5432":             {Scheme: "postgres", Where: "env DATABASE_URL (Secret/db)"},
		"matching.temporal.svc.cluster.local:7235": {Scheme: "http", Where: "args"},
		"elasticsearch-master:9200":                {Scheme: "http", Where: mounted + "config.yaml, mounted at /etc/temporal/config"},
		"postgres-postgresql:5432":                 {Where: mounted + "config.yaml, mounted at /etc/temporal/config"},
		"temporal-frontend:7233":                   {Where: mounted + "config.yaml, mounted at /etc/temporal/config"},
		"kubernetes.default":                       {Scheme: "https", Where: mounted + "jcasc.yaml, mounted at /etc/temporal/config"},
		"jenkins:8080":                             {Scheme: "http", Where: mounted + "jcasc.yaml, mounted at /etc/temporal/config"},
		"mysql-primary:3306":                       {Where: mounted + "app.ini, mounted at /etc/temporal/config"},
		"harbor-core.registry.svc:443":             {Scheme: "https", Where: mounted + "app.properties, mounted at /etc/temporal/config"},
		// nc's host and port: the readiness wait names what the program calls next (gRPC reads the proxy variables)
		"temporal-frontend.temporal:7233": {Where: "command"},
	}
	for hostPort, c := range want {
		g, ok := got[hostPort]
		if assert.True(t, ok, "%s not found; found %v", hostPort, got) {
			assert.Equal(t, c.Scheme, g.Scheme, hostPort)
			assert.Equal(t, c.Where, g.Where, hostPort)
		}
	}
	// nothing else: the proxy variables, image tags, times, a bare word
	// without a port (server = nginx, ES_HOST before its expansion), listen
	// addresses and flags are no calls
	for hostPort := range got {
		_, ok := want[hostPort]
		assert.True(t, ok, "%s is no call (%s)", hostPort, got[hostPort].Where)
	}
	// the password of DATABASE_URL is nowhere in a call
	for _, c := range got {
		assert.NotContains(t, c.Host+c.Where, "s3cret")
	}
}

func TestCallHTTPAndPlace(t *testing.T) {
	facts := cluster.Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "172.18.0.2"}
	const in, unknown, outside, loopback, notHTTP = PlaceInCluster, PlaceUnknown, PlaceOutside, PlaceLoopback, PlaceNotHTTP
	for _, tc := range []struct {
		call      HostCall
		http      bool
		place     Place
		namespace []string
	}{
		{HostCall{Host: "elasticsearch-master", Port: "9200"}, true, in, nil},
		{HostCall{Host: "postgres-postgresql", Port: "5432"}, false, in, nil},
		{HostCall{Host: "pgsql", Port: "5432", Scheme: "http"}, true, in, nil},
		// a single label that is a top-level domain: a Service or not, NO_PROXY
		// cannot hold it without sending every host under it (.pg, .app) around the proxy
		{HostCall{Host: "pg", Port: "5432", Scheme: "http"}, true, unknown, nil},
		{HostCall{Host: "app", Scheme: "http"}, true, unknown, nil},
		{HostCall{Host: "app.", Scheme: "http"}, true, unknown, nil},
		// a Service of the stream by any of its names (web in shop)
		{HostCall{Host: "web", Scheme: "http"}, true, in, nil},
		{HostCall{Host: "web.shop.svc.cluster.local.", Scheme: "http"}, true, in, nil},
		{HostCall{Host: "github.io", Scheme: "https"}, true, outside, nil},
		{HostCall{Host: "vercel.app", Scheme: "https"}, true, unknown, nil},
		{HostCall{Host: "vercel.app", Scheme: "https"}, true, in, []string{"app"}},
		// nobody calls a namespace com: the world's, and never noted
		{HostCall{Host: "github.com", Scheme: "https"}, true, outside, nil},
		{HostCall{Host: "kubernetes.default", Scheme: "https"}, true, in, nil},
		{HostCall{Host: "es.search"}, true, in, []string{"search"}},
		{HostCall{Host: "es.search"}, true, unknown, nil}, // .search is a top-level domain
		{HostCall{Host: "vault.security", Scheme: "postgres"}, false, notHTTP, nil},
		{HostCall{Host: "es.databases"}, true, in, nil},
		{HostCall{Host: "api.example.com", Scheme: "https"}, true, outside, nil},
		{HostCall{Host: "db.example.com", Scheme: "postgres"}, false, notHTTP, nil},
		{HostCall{Host: "a.b.svc", Scheme: "grpc"}, true, in, nil},
		{HostCall{Host: "a.b.svc.cluster.local"}, true, in, nil},
		{HostCall{Host: "10.96.0.1", Port: "443"}, true, in, nil},
		{HostCall{Host: "10.244.3.7", Port: "8080"}, true, in, nil},
		{HostCall{Host: "172.18.0.2", Port: "6443"}, true, in, nil},
		{HostCall{Host: "192.168.7.1", Port: "8080"}, true, outside, nil},
		{HostCall{Host: "localhost", Port: "8080"}, true, loopback, nil},
		{HostCall{Host: "grafana.localhost", Port: "3000"}, true, loopback, nil},
		{HostCall{Host: "127.0.0.53", Port: "53"}, false, loopback, nil},
		{HostCall{Host: "::1", Port: "8080"}, true, loopback, nil},
		{HostCall{Host: "redis", Scheme: "redis"}, false, in, nil},
	} {
		f := facts
		f.Namespaces = tc.namespace
		places := NewPlaces(f, []string{"shop/web"})
		assert.Equal(t, tc.http, tc.call.HTTP(), "%+v HTTP", tc.call)
		assert.Equal(t, tc.place, places.Of(tc.call), "%+v: %s, not %s", tc.call, tc.place, places.Of(tc.call))
	}
	// the app Service of the stream: its bare name is in the cluster
	assert.Equal(t, PlaceInCluster, NewPlaces(facts, []string{"shop/app"}).Of(HostCall{Host: "app", Scheme: "http"}))
	assert.Equal(t, "http://[fd00::1]:80", HostCall{Host: "fd00::1", Port: "80"}.Target())
	assert.Equal(t, "https://kubernetes.default", HostCall{Host: "kubernetes.default", Scheme: "https"}.Target())
	assert.Equal(t, "http://pg:5432", HostCall{Host: "pg", Port: "5432", Scheme: "postgres"}.Target())
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"HOST": "es", "PORT": "9200", "BIG": strings.Repeat("x", 50<<10)}
	lookup := func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
	for text, want := range map[string]string{
		"http://$(HOST):$(PORT)": "http://es:9200",
		"$(UNKNOWN)":             "$(UNKNOWN)",
		"$$(HOST)":               "$(HOST)",
		"$(BIG)$(BIG)":           strings.Repeat("x", 100<<10),
	} {
		got, ok := expand(text, lookup)
		assert.True(t, ok, text)
		assert.Equal(t, want, got, text)
	}
	// three times 50 KiB is past what one environment string can hold: the
	// container never starts, and the text stays as written
	got, ok := expand("$(BIG)$(BIG)$(BIG)", lookup)
	assert.False(t, ok)
	assert.Equal(t, "$(BIG)$(BIG)$(BIG)", got)
}

// passwordStream plants passwords where charts keep them: a URL whose password
// holds "@" (read by Go and Python to the last "@"), one built from a
// secretKeyRef through $(VAR), and password keys whose values look like host:port.
const passwordStream = `
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: app}
stringData:
  url: "postgres://app:P@ssw0rd@db:5432/app"
  ES_PASS: "Xy@zz9:9200"
  password: "hunter2.corp:2020"
  config.ini: |
    [db]
    password = swordfish.io:8443
    url = http://admin:a@b@c@search-api:9200/x
  proxy.yaml: "http: http://svc-user:Zq%40w%25&'+!*$(;=,)~:9@proxy.corp.example:3128\\nhttps: x"
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: app}
spec:
  volumes: [{name: s, secret: {secretName: db}}]
  containers:
    - name: c
      image: x
      envFrom: [{secretRef: {name: db}}]
      env:
        - {name: ES_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: ES_PASS}}}
        - {name: ES_URL, value: "https://elastic:$(ES_PASSWORD)@es-master:9200"}
        - {name: DB_URL, valueFrom: {secretKeyRef: {name: db, key: url}}}
      volumeMounts: [{name: s, mountPath: /etc/db}]
`

func TestCallsNeverHoldAPassword(t *testing.T) {
	m, err := Parse(passwordStream)
	require.NoError(t, err)
	calls := m.Calls(m.Containers()[0])
	var hosts []string
	for _, c := range calls {
		hosts = append(hosts, c.HostPort())
		// a password with RFC 3986 sub-delims (' , ; ( ) and more) ends at the last "@" too
		for _, secret := range []string{"ssw0rd", "Xy", "zz9", "hunter2", "swordfish", "@b", "c@", "svc-user", "Zq", "~:9"} {
			assert.NotContains(t, c.Host+" "+c.Where+" "+c.Target(), secret)
		}
	}
	// each host as Go's url.Parse reads it
	assert.ElementsMatch(t, []string{"db:5432", "es-master:9200", "search-api:9200", "proxy.corp.example:3128"}, hosts)
}

// A few bytes of manifest that expand to megabytes are read within the kernel's
// bounds: a variable of 50 KiB referenced 2,000 times in one value stays as
// written (it would be 100 MB, past one environment string), and 2,000 values
// of one reference each stop expanding past the 2 MiB of a whole environment.
// (TestInjectAndCheckBoundedWork in tests/ measures the time, without the race
// detector.)
func TestCallsExpansionIsBounded(t *testing.T) {
	stream := func(refs, vars int) string {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: app}\nspec:\n  containers:\n    - name: c\n      image: x\n      env:\n")
		fmt.Fprintf(&b, "        - {name: V, value: %q}\n", "http://big:8080/"+strings.Repeat("a", 50<<10))
		for i := range vars {
			fmt.Fprintf(&b, "        - {name: A%d, value: %q}\n", i, strings.Repeat("$(V)", refs))
		}
		return b.String()
	}
	read := func(text string) (Env, []HostCall) {
		m, err := Parse(text)
		require.NoError(t, err)
		ctr := m.Containers()[0]
		calls := m.Calls(ctr)
		require.NotEmpty(t, calls)
		assert.Equal(t, "big:8080", calls[0].HostPort())
		return m.ResolveEnv(ctr), calls
	}
	env, _ := read(stream(2000, 1))
	assert.Equal(t, strings.Repeat("$(V)", 2000), env.Vars["A0"].Value, "100 MB is never built")
	env, _ = read(stream(1, 2000))
	total := 0
	for _, v := range env.Vars {
		total += len(v.Value)
	}
	assert.Less(t, total, maxEnvironment+MaxEnvString, "expansion stops past a whole environment")
	assert.Equal(t, "$(V)", env.Vars["A1999"].Value)
}

// The reader reads what calls and nothing else: a commented-out line in a
// config file calls nothing (# in YAML and Python, ; in INI, // in JavaScript);
// a host variable or key beside its own port variable or key is one call
// (POSTGRES_HOST with POSTGRES_PORT, KC_DB_URL_HOST with KC_DB_URL_PORT, a
// statsd section's host and port), each host with its own port.
func TestCallsSkipCommentsAndPairHostsWithTheirPorts(t *testing.T) {
	m, err := Parse(`apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: app}
data:
  settings.py: |
    CACHES = {
        # "LOCATION": ["memcached:11211"],
        "LOCATION": ["redis-master:6379"],
    }
    // fetch("http://old-api:8080")
  app.ini: |
    [statsd]
    ; host = legacy-statsd
    STATSD_HOST = statsd-exporter
    STATSD_PORT = 9125
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: app}
spec:
  volumes: [{name: s, configMap: {name: settings}}]
  containers:
    - name: c
      image: x
      volumeMounts: [{name: s, mountPath: /etc/app}]
      env:
        - {name: POSTGRES_HOST, value: postgresql}
        - {name: POSTGRES_PORT, value: "5432"}
        - {name: KC_DB_URL_HOST, value: keycloak-db}
        - {name: KC_DB_URL_PORT, value: "5433"}
        - {name: COLOR, value: "#fff"}
`)
	require.NoError(t, err)
	var got []string
	for _, c := range m.Calls(m.Containers()[0]) {
		got = append(got, c.HostPort()+" ("+c.Where+")")
	}
	for _, want := range []string{"postgresql:5432 (env POSTGRES_HOST)", "keycloak-db:5433 (env KC_DB_URL_HOST)", "statsd-exporter:9125 (ConfigMap/settings key app.ini, mounted at /etc/app)", "redis-master:6379 (ConfigMap/settings key settings.py, mounted at /etc/app)"} {
		assert.Contains(t, got, want)
	}
	for _, never := range []string{"memcached", "old-api", "legacy-statsd"} {
		assert.NotContains(t, strings.Join(got, " "), never, "a comment calls nothing")
	}
}

// Reader precision and recall (issue 45, item 8): a key specification and a
// bucket are no hosts; a host variable's default in code is one.
func TestScanTextPrecisionAndRecall(t *testing.T) {
	hosts := func(text string) []string {
		var out []string
		for _, f := range scanText(text) {
			out = append(out, f.host)
		}
		return out
	}
	assert.Empty(t, hosts("openssl req -x509 -newkey rsa:4096 -keyout key.pem -nodes"), "rsa:4096 is a key, not a host")
	assert.Empty(t, hosts("openssl req -newkey ec:secp384r1"))
	assert.Empty(t, hosts("aws s3 cp s3://my-bucket.logs/x /tmp && gsutil cp gs://backups.example/y ."), "buckets, not hosts")
	assert.Equal(t, []string{"clickhouse"}, hosts(`CLICKHOUSE = env("CLICKHOUSE_HOST", "clickhouse")`))
	assert.Equal(t, []string{"redis"}, hosts(`r = redis.Redis(host=os.getenv('REDIS_HOST', 'redis'))`))
	assert.Equal(t, []string{"db.data"}, hosts(`DB = os.environ.get("DB_HOST", default="db.data")`))
	assert.Equal(t, []string{"nats"}, hosts(`const url = process.env.NATS_HOST || "nats"`))
	assert.Equal(t, []string{"rsa-signer"}, hosts("--url http://rsa-signer:8080/"), "a host named like an algorithm in a URL is still one")
	assert.Equal(t, []string{"minio.storage"}, hosts("endpoint: minio.storage:9000"))
}
