package rules

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

// argoLike is a render in the shape of Argo CD's: a server that calls the repo
// server and Dex by their bare Service names, in env and in args.
func argoLike(noProxy string) string {
	server := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: argocd-server, namespace: argocd}\nspec:\n  template:\n    spec:\n      containers:\n" +
		"        - name: server\n          image: x\n          args: [--repo-server, argocd-repo-server:8081, \"--dex-server=https://argocd-dex-server:5556\"]\n" +
		"          env:\n" + indent(plainEnv("http://proxy:3128", noProxy)+"\n- {name: REDIS, value: \"redis://argocd-redis.argocd.svc.cluster.local.:6379\"}", "            ")
	svc := func(name string, port int) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: argocd}\nspec:\n  ports: [{port: " + strconv.Itoa(port) + "}]\n"
	}
	return strings.Join([]string{server, svc("argocd-repo-server", 8081), svc("argocd-dex-server", 5556), svc("argocd-redis", 6379)}, "---\n")
}

func TestReleaseServiceProxied(t *testing.T) {
	services := "argocd-repo-server,argocd-repo-server.argocd,argocd-repo-server.argocd.svc," +
		"argocd-dex-server,argocd-dex-server.argocd,argocd-dex-server.argocd.svc,argocd-redis,argocd-redis.argocd,argocd-redis.argocd.svc"

	m, err := manifest.Parse(argoLike(goodNoProxy))
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.Len(t, findings, 1, "one finding per container and rule: %v", findings)
	f := findings[0]
	assert.Equal(t, RuleReleaseServiceProxied, f.Rule)
	assert.Equal(t, "Deployment/argocd-server", f.Object)
	for _, want := range []string{
		"Service argocd-repo-server (argocd-repo-server, argocd-repo-server.argocd, argocd-repo-server:8081 (args): go, curl, wget, python-requests, python-urllib, python-httpx, deno, bun, php-guzzle, dotnet, grpc-core, grpc-go)",
		"argocd-dex-server:5556 (args)",
		"Service argocd-redis (argocd-redis, argocd-redis.argocd: go, curl, wget, python-requests, python-urllib, python-httpx, deno, bun, php-guzzle, dotnet, grpc-core, grpc-go)",
		"proxykit inject",
	} {
		assert.Contains(t, f.Message, want)
	}
	// the FQDN with its trailing dot is covered by cluster.local.: named in env, but not proxied
	assert.NotContains(t, f.Message, "env REDIS")

	// a client that reads no proxy variable is not judged: this container runs no
	// JVM flags and no NODE_USE_ENV_PROXY, so java and node go direct
	assert.NotContains(t, f.Message, "node")

	// with the Services' forms in NO_PROXY, nothing is left
	m, err = manifest.Parse(argoLike(goodNoProxy + "," + services))
	require.NoError(t, err)
	assert.Empty(t, Check(m, WithCluster(testCluster)))

	// without cluster.local. and .cluster.local. the FQDN named in env goes through the proxy too
	m, err = manifest.Parse(argoLike(strings.Replace(goodNoProxy, "cluster.local.,.cluster.local.,", "", 1) + "," + services))
	require.NoError(t, err)
	var msgs []string
	for _, f := range Check(m, WithCluster(testCluster)) {
		if f.Rule == RuleReleaseServiceProxied {
			msgs = append(msgs, f.Message)
		}
	}
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0], "argocd-redis.argocd.svc.cluster.local.:6379 (env REDIS)")

	// Node.js with NODE_USE_ENV_PROXY matches a bare entry only exactly: svc does
	// not cover name.namespace.svc for it (nor for .NET), the library's .svc does
	withoutDotSvc := strings.Replace(goodNoProxy, ",.svc,", ",", 1)
	m, err = manifest.Parse(strings.Replace(argoLike(withoutDotSvc), "          env:\n", "          env:\n            - {name: NODE_USE_ENV_PROXY, value: \"1\"}\n", 1))
	require.NoError(t, err)
	findings = Check(m, WithCluster(testCluster))
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Message, "argocd-repo-server.argocd.svc: node-http, dotnet)", ".NET too matches a bare entry only exactly")
	m, err = manifest.Parse(strings.Replace(argoLike(goodNoProxy), "          env:\n", "          env:\n            - {name: NODE_USE_ENV_PROXY, value: \"1\"}\n", 1))
	require.NoError(t, err)
	for _, f := range Check(m, WithCluster(testCluster)) {
		assert.NotContains(t, f.Message, ".argocd.svc: node-http", "the library's .svc covers it")
	}
}

// Ruby looks the name up: a Service's address in a NO_PROXY CIDR takes it around
// the proxy where no name entry does (the other clients still go through it).
func TestReleaseServiceProxiedRubyResolves(t *testing.T) {
	for _, tc := range []struct{ spec, ruby string }{
		{"{clusterIP: 10.96.5.5}", "not proxied: the clusterIP is in 10.96.0.0/12"},
		{"{}", "not proxied: an address the service network gives"},
		{"{clusterIP: 10.200.0.9}", "proxied: the clusterIP is outside NO_PROXY"},
		{"{clusterIP: None}", "proxied: a headless Service's names give Pod addresses"},
	} {
		svc := "apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\nspec: " + tc.spec + "\n"
		m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", "10.96.0.0/12"), "") + "\n---\n" + svc)
		require.NoError(t, err)
		m.Namespace = "shop"
		var msgs []string
		for _, f := range Check(m, WithCluster(testCluster)) {
			if f.Rule == RuleReleaseServiceProxied {
				msgs = append(msgs, f.Message)
			}
		}
		require.Len(t, msgs, 1, tc.spec)
		assert.Contains(t, msgs[0], "python-httpx", tc.spec)
		assert.Equal(t, strings.HasPrefix(tc.ruby, "proxied"), strings.Contains(msgs[0], "ruby"), "%s: Ruby %s\n%s", tc.spec, tc.ruby, msgs[0])
	}
}

func TestReleaseServiceProxiedAcrossNamespaces(t *testing.T) {
	// a Pod in another namespace cannot call the bare name: only name.namespace and
	// name.namespace.svc are judged for it
	client := "apiVersion: v1\nkind: Pod\nmetadata: {name: client, namespace: other}\nspec:\n  containers:\n    - name: c\n      image: x\n      env:\n" +
		indent(plainEnv("http://proxy:3128", goodNoProxy+",api.shop,api.shop.svc"), "        ")
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\n"
	m, err := manifest.Parse(client + "---\n" + svc)
	require.NoError(t, err)
	assert.Empty(t, Check(m, WithCluster(testCluster)))

	// after Parse, a Service without a namespace is judged by its bare name only,
	// until the release namespace is known
	m, err = manifest.Parse(pod(plainEnv("http://proxy:3128", goodNoProxy+",api"), "") + "\n---\napiVersion: v1\nkind: Service\nmetadata: {name: api}\n")
	require.NoError(t, err)
	assert.Empty(t, Check(m, WithCluster(testCluster)))
	m.Namespace = "shop"
	findings := Check(m, WithCluster(testCluster))
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].Message, "Service api (api.shop: go, curl, wget, python-requests, python-urllib, python-httpx, deno, bun, php-guzzle, dotnet, grpc-core, grpc-go)")
}

// A Service called app, whose bare name is a top-level domain, is covered by its
// other forms (the library leaves app out of NO_PROXY); a container is named
// only when it calls the bare name, with how to call it instead.
func TestServiceNamedLikeAPublicSuffix(t *testing.T) {
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: app, namespace: shop}\nspec:\n  ports: [{port: 8080}]\n"
	render := func(extraEnv string) string {
		env := plainEnv("http://proxy:3128", goodNoProxy+",app.shop,app.shop.svc") + extraEnv
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers:\n    - name: c\n      image: x\n      env:\n" + indent(env, "        ") + "---\n" + svc
	}
	m, err := manifest.Parse(render(""))
	require.NoError(t, err)
	assert.Empty(t, Check(m, WithCluster(testCluster)), "the forms NO_PROXY can hold are there")

	m, err = manifest.Parse(render("\n- {name: API, value: \"http://app:8080/v1\"}\n- {name: OTHER, value: \"http://dev:9000\"}"))
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.Equal(t, []string{RuleInClusterCallProxied, RuleReleaseServiceProxied}, rules(findings), "%v", findings)
	for _, f := range findings {
		switch f.Rule {
		case RuleReleaseServiceProxied:
			assert.Contains(t, f.Message, "app:8080 (env API) (a public suffix, which NO_PROXY cannot hold without sending every host under it around the proxy: call it as app.shop.svc)")
		case RuleInClusterCallProxied:
			assert.Contains(t, f.Message, "dev:9000 (env OTHER)")
			assert.Contains(t, f.Message, "dev is a public suffix, which NO_PROXY cannot hold without sending every host under .dev around the proxy: if it is a Service, call it as dev.<namespace>.svc")
		}
	}
}
