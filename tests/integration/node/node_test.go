//go:build integration

package node

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/harness/systemdenv"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// The node suite's network: a registry on an address of the namespace's own (Go
// never proxies loopback, so a registry on 127.0.0.1 could not show the proxied
// case), reached by name through the namespace's /etc/hosts; tinyproxy on loopback.
const (
	nodeRegistryAddr = "10.77.0.2"
	nodeRegistryName = "registry.corp.test"
)

// nodePull is one pull: the NO_PROXY entries the values give, the image
// reference containerd is asked for, and whether the request must go through
// the proxy; password is the proxy's, in the URL (tinyproxy then demands it),
// wrong a password tinyproxy does not accept.
type nodePull struct {
	name, noProxy, ref string
	proxied            bool
	password, wrong    string
	// intercepted: the registry is HTTPS and the proxy mitmproxy, which signs with
	// the corporate CA; trusted: the node trusts that CA as cluster-proxy installs it
	intercepted, trusted bool
}

// TestContainerdPullsThroughTheDropIn is the first slice of the node suite
// (issue 38): Debian's containerd, started by hand with its own root, state and
// socket and exactly the environment systemd gives it from the library's
// drop-in (proxykit.systemd.dropIn, which cluster-proxy delivers as
// containerdProxy; read back by systemd-analyze), pulls an image through the CRI
// image service, as the kubelet does, from a registry inside a private network
// namespace. The proxy's log is the judge: the registry's requests are there when
// the registry is not in NO_PROXY, absent when it is (by name, by address, by
// CIDR, as the image reference writes the host); a proxy that demands Basic
// credentials (mitmproxy's) gets them from the drop-in's percent-encoded URL, its
// % doubled for systemd, and a wrong password fails the pull with the proxy's 407;
// through a TLS-intercepting proxy the pull from an HTTPS registry succeeds once
// the node trusts the proxy's CA as cluster-proxy installs it, and fails on the
// certificate before.
func TestContainerdPullsThroughTheDropIn(t *testing.T) {
	harness.Parallel(t)
	for _, tool := range []string{"containerd", "runc", "tinyproxy", "systemd-analyze"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	byName, byAddr := nodeRegistryName+":5000/app:1", nodeRegistryAddr+":5000/app:1"
	pulls := []nodePull{
		{name: "registry not in NO_PROXY", ref: byName, proxied: true},
		{name: "by name", noProxy: nodeRegistryName, ref: byName},
		{name: "by address", noProxy: nodeRegistryAddr, ref: byAddr},
		{name: "by CIDR", noProxy: "10.77.0.0/16", ref: byAddr},
		{name: "an address entry does not cover the name", noProxy: nodeRegistryAddr, ref: byName, proxied: true},
		{name: "a host:port entry covers only its port", noProxy: nodeRegistryName + ":5001", ref: byName, proxied: true},
		{name: "credentials", ref: byName, proxied: true, password: "Zq%40w%25&+"},
		{name: "wrong password", ref: byName, proxied: true, password: "Zq%40w%25&+", wrong: "nope"},
		{name: "an intercepting proxy, its CA trusted", ref: nodeRegistryName + ":5443/app:1", proxied: true, intercepted: true, trusted: true},
		{name: "an intercepting proxy, its CA not trusted", ref: nodeRegistryName + ":5443/app:1", proxied: true, intercepted: true},
	}

	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	// containerd reaches the registry over plain HTTP, under either name, and over
	// HTTPS on 5443
	for host, scheme := range map[string]string{nodeRegistryName + ":5000": "http", nodeRegistryAddr + ":5000": "http", nodeRegistryName + ":5443": "https"} {
		write("certs.d/"+host+"/hosts.toml", registryHostsTOML(scheme+"://"+host))
	}
	// the node's trust store as update-ca-certificates leaves it after cluster-proxy's
	// files put the corporate CA in /usr/local/share/ca-certificates: Debian's bundle
	// and the CA; bind-mounted over it inside the test's mount namespace only
	ca, caKey := fixture.NewCA(t, "corp")
	roots, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	require.NoError(t, err, "ca-certificates is missing: `make debian-packages` installs it")
	bundle := write("trust/ca-certificates.crt", string(roots)+ca)
	confdir := filepath.Join(dir, "mitmproxy")
	write("mitmproxy/mitmproxy-ca.pem", caKey+ca)
	role := func(name string) string { return fmt.Sprintf("%s=%s %q --", harness.RoleVar, name, self) }

	var script strings.Builder
	fmt.Fprintf(&script, "%s %s:5000 >%q 2>&1 &\n%s", itest.ShellQuote(itest.FilepathBin("registry")), nodeRegistryAddr, filepath.Join(dir, "registry.log"), harness.WaitForPort(nodeRegistryAddr, 5000))
	fmt.Fprintf(&script, "%s %s:5000 app:1 || echo push failed\n", role("push-image"), nodeRegistryAddr)
	fmt.Fprintf(&script, "%s %s:5443 %s:5000 & %s", role("tls-front"), nodeRegistryAddr, nodeRegistryAddr, harness.WaitForPort(nodeRegistryAddr, 5443))
	for i, p := range pulls {
		c := filepath.Join(dir, fmt.Sprintf("c%d", i))
		proxyURL := "http://127.0.0.1:3128"
		tiny := fmt.Sprintf("Port 3128\nListen 127.0.0.1\nTimeout 10\nMaxClients 20\nAllow 127.0.0.1\nLogLevel Info\nLogFile %q\n", filepath.Join(c, "tinyproxy.log"))
		// tinyproxy's BasicAuth takes no password with %, & or +: a proxy that demands
		// credentials is mitmproxy's, which answers a wrong one with 407
		start := fmt.Sprintf("tinyproxy -d -c %q >/dev/null 2>&1 & tp=$!\n", filepath.Join(c, "tinyproxy.conf"))
		if p.intercepted {
			start = fmt.Sprintf("mitmdump --listen-host 127.0.0.1 --listen-port 3128 --set confdir=%q --set ssl_insecure=true >%q 2>&1 & tp=$!\n", confdir, filepath.Join(c, "tinyproxy.log"))
			if p.trusted {
				start += fmt.Sprintf("mount --bind %q /etc/ssl/certs/ca-certificates.crt\n", bundle)
			}
		}
		if p.password != "" {
			secret, err := url.PathUnescape(p.password)
			require.NoError(t, err)
			start = fmt.Sprintf("mitmdump --listen-host 127.0.0.1 --listen-port 3128 --set proxyauth=%s >%q 2>&1 & tp=$!\n", itest.ShellQuote("svc-user:"+secret), filepath.Join(c, "tinyproxy.log"))
			password := p.password
			if p.wrong != "" {
				password = p.wrong
			}
			proxyURL = "http://svc-user:" + password + "@127.0.0.1:3128"
		}
		values := map[string]any{
			"proxy":   map[string]any{"http": proxyURL, "https": proxyURL, "noProxy": p.noProxy},
			"cluster": map[string]any{"podCIDRs": []any{"10.244.0.0/16"}, "serviceCIDRs": []any{"10.96.0.0/12"}, "apiServer": "10.96.0.1", "metadataEndpoints": false},
		}
		dropIn := fixture.Include(t, values, proxykit.Call{Helper: "proxykit.systemd.dropIn"})
		env, _ := systemdenv.Environment(t, dropIn)
		require.Equal(t, proxyURL, env["HTTP_PROXY"], "systemd gives containerd the URL byte for byte:\n%s", dropIn)
		raw, err := json.Marshal(env)
		require.NoError(t, err)
		envFile := write(fmt.Sprintf("c%d/env.json", i), string(raw))
		write(fmt.Sprintf("c%d/tinyproxy.conf", i), tiny)
		config := write(fmt.Sprintf("c%d/config.toml", i), containerdConfig(c, filepath.Join(dir, "certs.d"), ""))
		socket := filepath.Join(c, "containerd.sock")
		fmt.Fprintf(&script, "touch %q\n%s%s", filepath.Join(c, "tinyproxy.log"), start, harness.WaitForPort("127.0.0.1", 3128))
		fmt.Fprintf(&script, "%s %q -- containerd --config %q >%q 2>&1 & ctd=$!\n", role("exec-env"), envFile, config, filepath.Join(c, "containerd.log"))
		fmt.Fprintf(&script, "for i in $(seq 100); do [ -S %q ] && break; sleep 0.1; done\n", socket)
		fmt.Fprintf(&script, "echo \"pull %d: $(%s %q %q)\"\n", i, role("cri-pull"), socket, p.ref)
		fmt.Fprintf(&script, "kill $ctd $tp; wait $ctd $tp 2>/dev/null\n")
		if p.trusted {
			script.WriteString("umount /etc/ssl/certs/ca-certificates.crt\n")
		}
		fmt.Fprintf(&script, "echo \"proxy %d: $(grep -c '/v2/' %q)\"\n", i, filepath.Join(c, "tinyproxy.log"))
	}
	out := harness.Netns{Addrs: []string{nodeRegistryAddr}, Hosts: "127.0.0.1 localhost\n" + nodeRegistryAddr + " " + nodeRegistryName + "\n", EchoPorts: []string{"8080"}}.Run(t, script.String())
	require.NotContains(t, out, "push failed", out)
	for i, p := range pulls {
		t.Run(p.name, func(t *testing.T) {
			pulled := lineAfter(out, fmt.Sprintf("pull %d: ", i))
			requests := lineAfter(out, fmt.Sprintf("proxy %d: ", i))
			if p.wrong != "" {
				assert.Contains(t, pulled, "407 Proxy Authentication Required", "the proxy refuses the wrong password, and containerd says so")
				return
			}
			if p.intercepted && !p.trusted {
				assert.Contains(t, pulled, "x509: certificate signed by unknown authority", "without the CA the node refuses the proxy's certificate")
				return
			}
			assert.Equal(t, "pulled", pulled, "%s\ncontainerd: %s", out, itest.ReadFile(t, filepath.Join(dir, fmt.Sprintf("c%d", i), "containerd.log")))
			if p.proxied {
				assert.NotEqual(t, "0", requests, "the registry's requests went through tinyproxy")
			} else {
				assert.Equal(t, "0", requests, "NO_PROXY %q keeps %s off the proxy", p.noProxy, p.ref)
			}
		})
	}
}

// containerdConfig runs containerd under dir, with its own root, state and
// socket, the native snapshotter, and the CRI plugin: restrict_oom_score_adj,
// since this machine's root lacks CAP_SYS_RESOURCE, the registries' hosts.toml,
// the CNI plugins of Debian's package with their configuration in dir/cni, and
// the Pods' sandbox image (containerd's default when empty).
func containerdConfig(dir, certs, sandboxImage string) string {
	sandbox := ""
	if sandboxImage != "" {
		sandbox = fmt.Sprintf("  sandbox_image = %q\n", sandboxImage)
	}
	return fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = %q
[plugins."io.containerd.internal.v1.opt"]
  path = %q
[plugins."io.containerd.grpc.v1.cri"]
  restrict_oom_score_adj = true
%s  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %q
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %q
`, filepath.Join(dir, "root"), filepath.Join(dir, "state"), filepath.Join(dir, "containerd.sock"), filepath.Join(dir, "opt"), sandbox, filepath.Join(dir, "cni"), certs)
}

// registryHostsTOML is containerd's hosts.toml for a registry at url (a scheme
// and host:port): how to reach it, for pulls and resolving tags.
func registryHostsTOML(url string) string {
	return fmt.Sprintf("server = %q\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", url, url)
}

func lineAfter(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
