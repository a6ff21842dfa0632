//go:build integration

package clients

import (
	"bufio"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// realClientTargets are reached inside the namespace: addresses on its lo and
// names in its own /etc/hosts.
var realClientTargets = []string{
	"http://127.0.0.1:8080/", "http://localhost:8080/", "http://[::1]:8080/",
	"http://10.96.0.1:8080/", "http://10.244.3.7:8080/", "http://[fd00:10:96::1]:8080/", "http://[fd00:10:244::5]:8080/",
	"http://web.shop.svc.cluster.local:8080/", "http://web.shop.svc.cluster.local.:8080/",
	"http://api.corp.example:8080/", "http://corp.example:8080/", "http://badcorp.example:8080/",
	"http://registry.local:5000/", "http://registry.local:8080/",
	// the API server as Jenkins' JCasC calls it, another release's Service by its short name
	"http://kubernetes.default:8080/", "http://elasticsearch-master:8080/",
}

const realClientHosts = `127.0.0.1 localhost
::1 localhost
10.96.0.10 web.shop.svc.cluster.local web.shop.svc.cluster.local.
10.96.0.11 api.corp.example corp.example badcorp.example registry.local
10.96.0.12 kubernetes.default elasticsearch-master
`

// realClients are the HTTP clients the suite runs: every client but the ones
// modelled from source (no registry ships their runtime) and gRPC's, which
// TestGRPCModelsMatchRealClients runs.
var realClients = func() []noproxy.Client {
	var out []noproxy.Client
	for _, c := range noproxy.AllClients() {
		if !c.FromSource() && !slices.Contains(grpcClients, c) {
			out = append(out, c)
		}
	}
	return out
}()

// grpcClients are gRPC's implementations, which call host:port targets.
var grpcClients = []noproxy.Client{noproxy.GRPCCore, noproxy.GRPCGo, noproxy.GRPCGo170}

// hostsAddr is the first address of each name in realClientHosts, as a lookup gives it.
var hostsAddr = func() map[string]netip.Addr {
	m := map[string]netip.Addr{}
	for _, line := range strings.Split(strings.TrimSpace(realClientHosts), "\n") {
		fields := strings.Fields(line)
		for _, name := range fields[1:] {
			if _, seen := m[name]; !seen {
				m[name] = netip.MustParseAddr(fields[0])
			}
		}
	}
	return m
}()

// targetHost is a target URL's host name.
func targetHost(t *testing.T, target string) string {
	u, err := url.Parse(target)
	require.NoError(t, err)
	return u.Hostname()
}

// realClientNoProxy: the library's NO_PROXY for a dual-stack cluster with
// installation entries, and two hand-written values with the forms the
// clients disagree on (*., bare and bracketed IPv6, CIDRs, a port).
func realClientNoProxy(t *testing.T) []string {
	rendered := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(`
proxy: {http: "http://proxy:3128", noProxy: ".corp.example,registry.local:5000"}
cluster: {podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"], serviceCIDRs: [10.96.0.0/12, "fd00:10:96::/112"], apiServer: "fd00:10:96::1", metadataEndpoints: false}
`)))["noProxy"]
	return []string{rendered, "*.corp.example,10.96.0.1,::1,fd00:10:96::/112,cluster.local", "corp.example,[fd00:10:96::1],[::1]:8080,web.shop.svc.cluster.local.,10.244.0.0/16"}
}

// runtimesEnv is the environment the library renders for realClientNoProxy's
// cluster with proxy.runtimes java and node: JAVA_TOOL_OPTIONS with the JVM's
// flags, NODE_USE_ENV_PROXY, and NO_PROXY with the ".name" forms for Node.js.
func runtimesEnv(t *testing.T) map[string]string {
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(`
proxy: {http: "http://127.0.0.1:3128", noProxy: ".corp.example,registry.local:5000", runtimes: [java, node]}
cluster: {podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"], serviceCIDRs: [10.96.0.0/12, "fd00:10:96::/112"], apiServer: "fd00:10:96::1", metadataEndpoints: false}
`))

	env := r.Environment(r.Container(t, "Deployment/"+fixture.Release+"-app", "app"))
	require.Contains(t, env["JAVA_TOOL_OPTIONS"], "-Dhttp.nonProxyHosts=")
	require.Equal(t, "1", env["NODE_USE_ENV_PROXY"])
	return env
}

// javaOptionEnv is the JVM's environment with an own flag outside JAVA_TOOL_OPTIONS.
type javaOptionEnv struct {
	mode string // "<variable>-own" or "<variable>-merged"
	env  map[string]string
}

// javaOptionEnvs are libraryEnv with an own -Dhttp.nonProxyHosts in each of the
// variables that beat JAVA_TOOL_OPTIONS, as the container sets it and as
// inject.MergeEnv merges it with policy.mergeNoProxy.
func javaOptionEnvs(t *testing.T, libraryEnv map[string]string) []javaOptionEnv {
	var proxy []corev1.EnvVar
	for _, name := range slices.Sorted(maps.Keys(libraryEnv)) {
		proxy = append(proxy, corev1.EnvVar{Name: name, Value: libraryEnv[name]})
	}
	var out []javaOptionEnv
	for _, name := range noproxy.JavaOptionVariables[1:] {
		own := []corev1.EnvVar{{Name: name, Value: "-Xss1m -Dhttp.nonProxyHosts=*.corp.example"}}
		merged, _ := inject.MergeEnv(own, proxy, inject.MergeOptions{MergeNoProxy: true})
		require.Contains(t, fixture.EnvMap(merged)[name].Value, "|kubernetes.default|", "the merge adds the cluster's patterns")
		kept := maps.Clone(libraryEnv)
		kept[name] = own[0].Value
		out = append(out, javaOptionEnv{name + "-own", kept})
		env := map[string]string{}
		for _, e := range merged {
			env[e.Name] = e.Value
		}
		out = append(out, javaOptionEnv{name + "-merged", env})
	}
	return out
}

// javaNonProxyHosts is the library's translation of a NO_PROXY for the JVM.
func javaNonProxyHosts(t *testing.T, noProxy string) string {
	hosts, _, err := noproxy.JavaNonProxyHosts(noProxy)
	require.NoError(t, err)
	return hosts
}

// batchResults reads the outcomes a namespace script printed ("direct",
// "proxy" or "error", one line per request) by batch, each batch after its
// "=== N" line.
func batchResults(out string) map[int][]string {
	results := map[int][]string{}
	current := -1
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if n, ok := strings.CutPrefix(line, "=== "); ok {
			fmt.Sscan(n, &current)
			continue
		}
		if current >= 0 && (line == "direct" || line == "proxy" || line == "error") {
			results[current] = append(results[current], line)
		}
	}
	return results
}

// tally counts outcomes by client.
type tally map[noproxy.Client]map[string]int

func (t tally) add(c noproxy.Client, outcome string) {
	if t[c] == nil {
		t[c] = map[string]int{}
	}
	t[c][outcome]++
}

// assertBothWays checks every client went direct and through the proxy at least once.
func (t tally) assertBothWays(tt *testing.T, clients []noproxy.Client) {
	tt.Helper()
	for _, c := range clients {
		assert.Positive(tt, t[c]["direct"], "%s went direct at least once: %v", c, t[c])
		assert.Positive(tt, t[c]["proxy"], "%s went through the proxy at least once: %v", c, t[c])
	}
}

// fetchRuntimes are the real deno and bun binaries that testdata/node/package-lock.json
// pins (npm's @deno/linux-x64-glibc and @oven/bun-linux-x64), and
// testdata/node/fetch.js, which requests URLs with their fetch.
func fetchRuntimes(t *testing.T) (deno, bun, script string) {
	dir, err := filepath.Abs(itest.Testdata("node"))
	require.NoError(t, err)
	deno = filepath.Join(dir, "node_modules", "deno", "deno")
	bun = filepath.Join(dir, "node_modules", "bun", "bin", "bun")
	for _, bin := range []string{deno, bun} {
		_, err := os.Stat(bin)
		require.NoError(t, err, "%s is missing: `make node-modules` installs it from testdata/node/package-lock.json", bin)
	}
	return deno, bun, filepath.Join(dir, "fetch.js")
}

// TestNoProxyModelsMatchRealClients runs curl, wget, Python's urllib and
// requests (Debian's), Go's net/http, the JVM (Debian's OpenJDK: HttpURLConnection
// and java.net.http.HttpClient, configured by JAVA_TOOL_OPTIONS) and Node.js
// (http.request and fetch, on the real node of each LTS line) through a real tinyproxy, inside a
// private network namespace, and asserts that package noproxy predicts for
// every client, target and NO_PROXY exactly what the proxy saw. The JVM and
// Node.js also run with the environment the library renders for proxy.runtimes.
func TestNoProxyModelsMatchRealClients(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	for _, tool := range []string{"tinyproxy", "wget", "/usr/bin/python3", "ruby", "busybox", "php", "php-cgi"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	proxyLog := filepath.Join(dir, "tinyproxy.log")
	urllibScript := write("urllib_client.py", "import sys, urllib.request\nfor u in sys.argv[1:]:\n    try: print(urllib.request.urlopen(u, timeout=5).read().decode(), end='')\n    except Exception: print('error')\n")
	requestsScript := write("requests_client.py", "import sys, requests\nfor u in sys.argv[1:]:\n    try: print(requests.get(u, timeout=5).text, end='')\n    except Exception: print('error')\n")
	httpxScript := write("httpx_client.py", "import sys, httpx\nfor u in sys.argv[1:]:\n    try: print(httpx.get(u, timeout=5).text, end='')\n    except Exception: print('error')\n")
	rubyScript := write("net_http_client.rb", "require 'net/http'\nARGV.each do |u|\n  uri = URI(u)\n  begin\n"+
		"    print Net::HTTP.start(uri.hostname, uri.port, open_timeout: 5, read_timeout: 5) { |http| http.get(uri.path).body }\n"+
		"  rescue StandardError\n    puts 'error'\n  end\nend\n")
	conf := write("tinyproxy.conf", fmt.Sprintf("Port 3128\nListen 127.0.0.1\nTimeout 10\nLogFile %q\nLogLevel Info\nMaxClients 50\nAllow 127.0.0.1\n", proxyLog))

	javaClasses := itest.CompileJavaClient(t)
	nodeBinaries, nodeClient := itest.NodeRuntimes(t)
	deno, bun, fetchClient := fetchRuntimes(t)
	phpClient, err := filepath.Abs(itest.Testdata("php", "guzzle_client.php"))
	require.NoError(t, err)
	home := t.TempDir() // Deno's cache and Bun's home: env -i leaves them no HOME

	type batch struct {
		client noproxy.Client
		mode   string // which variables are set: lower, upper, library (the env the library renders for the runtimes); for java also the JDK client
		np     string
		env    map[string]string
	}
	var batches []batch
	values := realClientNoProxy(t)
	libraryEnv := runtimesEnv(t)
	for _, c := range realClients {
		for i, np := range values {
			lower := map[string]string{"http_proxy": "http://127.0.0.1:3128", "no_proxy": np}
			switch c {
			case noproxy.Java:
				jvm := map[string]string{"JAVA_TOOL_OPTIONS": "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 -Dhttp.nonProxyHosts=" + javaNonProxyHosts(t, np)}
				mode := "flags"
				if i == 0 {
					jvm, mode = libraryEnv, "library"
				}
				for _, jdk := range []string{"urlconnection", "httpclient"} {
					batches = append(batches, batch{c, mode + " " + jdk, np, jvm})
				}
				continue
			case noproxy.NodeHTTP22, noproxy.NodeFetch22, noproxy.NodeHTTP, noproxy.NodeFetch, noproxy.NodeHTTP26, noproxy.NodeFetch26:
				lower["NODE_USE_ENV_PROXY"] = "1"
				if i == 0 {
					batches = append(batches, batch{c, "library", libraryEnv["NO_PROXY"], libraryEnv})
					continue
				}
			}
			batches = append(batches, batch{c, "lower", np, lower})
		}
		upper := map[string]string{"HTTP_PROXY": "http://127.0.0.1:3128", "NO_PROXY": values[0]}
		if slices.Contains(noproxy.NodeClients, c) {
			upper["NODE_USE_ENV_PROXY"] = "1"
		}
		if c != noproxy.Java {
			batches = append(batches, batch{c, "upper", values[0], upper})
		}
		if c == noproxy.PHPGuzzle || c == noproxy.PHPGuzzleWeb { // Guzzle reads the upper case, curl underneath the lower: both, as proxykit writes them
			both := map[string]string{"HTTP_PROXY": "http://127.0.0.1:3128", "http_proxy": "http://127.0.0.1:3128"}
			for _, np := range values {
				both["NO_PROXY"], both["no_proxy"] = np, np
				batches = append(batches, batch{c, "both", np, maps.Clone(both)})
			}
		}
	}
	// the JVM's own flags where they beat JAVA_TOOL_OPTIONS, as a container sets
	// them, and as inject and the policies merge them (inject.MergeEnv)
	for _, jvm := range javaOptionEnvs(t, libraryEnv) {
		batches = append(batches, batch{noproxy.Java, jvm.mode + " urlconnection", libraryEnv["NO_PROXY"], jvm.env})
	}
	var script strings.Builder
	fmt.Fprintf(&script, "tinyproxy -d -c %q &\n%s", conf, harness.WaitForPort("127.0.0.1", 3128))
	for i, b := range batches {
		var env []string
		for k, v := range b.env {
			env = append(env, fmt.Sprintf("%s=%q", k, v))
		}
		vars := "env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin " + strings.Join(env, " ")
		urls := strings.Join(realClientTargets, " ")
		fmt.Fprintf(&script, "echo '=== %d'\n", i)
		switch b.client {
		case noproxy.Go:
			fmt.Fprintf(&script, "%s %s=go-client %q -- %s\n", vars, harness.RoleVar, self, urls)
		case noproxy.Curl:
			fmt.Fprintf(&script, "for u in %s; do %s curl -q -s -m 5 \"$u\" || echo error; done\n", urls, vars)
		case noproxy.Wget:
			fmt.Fprintf(&script, "for u in %s; do %s wget -q -O - -T 5 -t 1 \"$u\" || echo error; done\n", urls, vars)
		case noproxy.PythonURLLib:
			fmt.Fprintf(&script, "%s /usr/bin/python3 %q %s\n", vars, urllibScript, urls)
		case noproxy.PythonRequests:
			fmt.Fprintf(&script, "%s /usr/bin/python3 %q %s\n", vars, requestsScript, urls)
		case noproxy.PythonHTTPX:
			fmt.Fprintf(&script, "%s /usr/bin/python3 %q %s\n", vars, httpxScript, urls)
		case noproxy.Ruby:
			fmt.Fprintf(&script, "%s ruby %q %s\n", vars, rubyScript, urls)
		case noproxy.Java:
			// as a launch script (Keycloak's kc.sh) starts it: JAVA_OPTS and JAVA_OPTS_APPEND
			// on the command line; the launcher reads JDK_JAVA_OPTIONS, the JVM _JAVA_OPTIONS
			fmt.Fprintf(&script, "%s sh -c 'exec java $JAVA_OPTS $JAVA_OPTS_APPEND \"$@\"' java -cp %q ProxyClient %s %s\n", vars, javaClasses, strings.Fields(b.mode)[1], urls)
		case noproxy.Deno:
			fmt.Fprintf(&script, "%s HOME=%q DENO_DIR=%q DENO_NO_UPDATE_CHECK=1 %q run --allow-net --allow-env --no-config --quiet %q %s\n", vars, home, filepath.Join(home, "deno"), deno, fetchClient, urls)
		case noproxy.Bun:
			fmt.Fprintf(&script, "%s HOME=%q %q %q %s\n", vars, home, bun, fetchClient, urls)
		case noproxy.PHPGuzzle:
			fmt.Fprintf(&script, "%s php %q %s\n", vars, phpClient, urls)
		case noproxy.PHPGuzzleWeb: // the CGI SAPI: Guzzle's httpoxy guard as under php-fpm
			fmt.Fprintf(&script, "%s TARGETS=%q php-cgi -q %q\n", vars, urls, phpClient)
		case noproxy.BusyBoxWget: // no -T: Debian's busybox 1.35 crashes with it
			fmt.Fprintf(&script, "for u in %s; do %s timeout 5 busybox wget -q -O - \"$u\" || echo error; done\n", urls, vars)
		default: // Node.js: one process for every target; it reads tinyproxy's log itself
			api := map[bool]string{true: "fetch", false: "http"}[strings.HasPrefix(string(b.client), "node-fetch")]
			fmt.Fprintf(&script, "%s %q %q %s %q %s\n", vars, nodeBinaries[b.client], nodeClient, api, proxyLog, urls)
		}
	}
	out := harness.Netns{
		Addrs:     []string{"10.96.0.1", "10.96.0.10", "10.96.0.11", "10.96.0.12", "10.244.3.7", "fd00:10:96::1", "fd00:10:244::5"},
		Hosts:     realClientHosts,
		EchoPorts: []string{"8080", "5000"},
	}.Run(t, script.String())

	results := batchResults(out)
	viaProxy := 0
	seen := tally{}
	for i, b := range batches {
		got := results[i]
		require.Len(t, got, len(realClientTargets), "client %s, %s case, NO_PROXY=%s:\n%s", b.client, b.mode, b.np, out)
		for j, target := range realClientTargets {
			// Ruby looks the host up in the namespace's /etc/hosts
			d, err := noproxy.Decide(b.client, target, noproxy.Env(b.env), noproxy.ResolvedTo(hostsAddr[targetHost(t, target)]))
			require.NoError(t, err)
			want := map[bool]string{true: "direct", false: "proxy"}[d.Direct]
			assert.Equal(t, want, got[j], "%s (%s case variables) %s with NO_PROXY=%s: the model says %s (entry %q), the real client went %s",
				b.client, b.mode, target, b.np, want, d.Entry, got[j])
			if got[j] == "proxy" {
				viaProxy++
			}
			seen.add(b.client, got[j])
		}
	}
	seen.assertBothWays(t, realClients)
	// merged, an own flag in any of them sends every target where the library's
	// flags alone do; kept as it is, it sends some in-cluster target to the proxy
	var library []string
	for i, b := range batches {
		if b.client == noproxy.Java && b.mode == "library urlconnection" {
			library = results[i]
		}
	}
	for i, b := range batches {
		if mode := strings.Fields(b.mode)[0]; b.client == noproxy.Java && strings.HasSuffix(mode, "-merged") {
			assert.Equal(t, library, results[i], "%s: a merged own flag", mode)
		} else if b.client == noproxy.Java && strings.HasSuffix(mode, "-own") {
			assert.NotEqual(t, library, results[i], "%s: an own flag the JVM reads instead of JAVA_TOOL_OPTIONS's", mode)
		}
	}
	t.Logf("requests per client and outcome: %v", seen)
	// the proxy's own log agrees: one request line per request it carried
	logText, err := os.ReadFile(proxyLog)
	require.NoError(t, err)
	assert.Equal(t, viaProxy, strings.Count(string(logText), "Request (file descriptor"), "tinyproxy's log")
}
