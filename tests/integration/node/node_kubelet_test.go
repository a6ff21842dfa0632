//go:build integration

package node

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/harness/systemdenv"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// The node's network namespace, besides the registry's address (node_test.go):
// the API server as the node sees it (a relay to the loopback kube-apiserver),
// the corporate proxy, the node's own address, a host outside the cluster that
// only the proxy can resolve, and an address inside the cluster's Service CIDR.
// The echo server answers on all of them.
const (
	nodeAPIAddr       = "10.77.0.1"
	nodeProxyAddr     = "10.77.0.3"
	nodeIP            = "10.77.0.4"
	nodeOutsideAddr   = "10.77.0.9"
	nodeOutsideName   = "www.outside.test"
	nodeIntranetName  = "intranet.corp.internal"
	nodeInClusterAddr = "10.96.0.50"
	nodePodCIDR       = "10.244.0.0/24"
	nodeName          = "proxykit-node"
)

// kubeletNode is a Kubernetes node of the test's own: containerd, runc, the CNI
// bridge and a kubelet registered with the loopback API server, in network,
// mount and PID namespaces the test made, with the corporate proxy (tinyproxy),
// a registry and an echo server beside them. containerd and the kubelet run
// with exactly the environment systemd gives them from the drop-ins
// cluster-proxy renders (containerdProxy, kubeletProxy).
type kubeletNode struct {
	dir        string
	cgroupRoot string
	// startContainerd is the shell's command that starts containerd with the
	// environment in containerd.env.json
	startContainerd string
	runs            int
	// ProxyLog is tinyproxy's log: the judge of what went through the proxy
	ProxyLog string
}

// startNode starts a node for values (cluster-proxy's) on cp and waits until
// it is Ready. Everything it started ends with the PID namespace when the test
// ends; the node's cgroups are removed.
func startNode(t *testing.T, cp *harness.ControlPlane, values string) *kubeletNode {
	t.Helper()
	for _, tool := range []string{"containerd", "containerd-shim-runc-v2", "runc", "tinyproxy", "systemd-analyze", "unshare", "ip", "busybox"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	_, err := os.Stat("/usr/lib/cni/bridge")
	require.NoError(t, err, "the CNI plugins are missing: `make debian-packages` installs containernetworking-plugins")
	kubelet := fixture.Path("bin", "kubelet")
	_, err = os.Stat(kubelet)
	require.NoError(t, err, "bin/kubelet is missing: run `make tools`")

	n := &kubeletNode{dir: t.TempDir(), cgroupRoot: fmt.Sprintf("/proxykit-node-%d", time.Now().UnixNano())}
	n.ProxyLog = n.path("tinyproxy.log")
	write := func(name, text string) string {
		path := n.path(name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}

	// the drop-ins as cluster-proxy delivers them, read back as systemd reads them
	for unit, dropIn := range nodeDropIns(t, values) {
		n.writeUnitEnv(t, unit, dropIn)
	}

	// the API server, reached from inside the namespace through a Unix socket
	api, err := url.Parse(cp.Config.Host)
	require.NoError(t, err)
	socket := n.path("api.sock")
	l, err := net.Listen("unix", socket)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go itest.Relay(c, func() (net.Conn, error) { return net.Dial("tcp", api.Host) })
		}
	}()

	// the Pods' image: BusyBox (its wget is a client of its own) and a static Go client
	podClient := n.path("podclient")
	// -trimpath and no cgo, as the CLI the suites build: one standard library build for both
	build := exec.Command("go", "build", "-trimpath", "-o", podClient, itest.Testdata("podclient"))
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	busybox, err := exec.LookPath("busybox")
	require.NoError(t, err)
	entries := []string{"bin/busybox=" + busybox, "bin/podclient=" + podClient}
	for _, applet := range []string{"sh", "wget", "sleep", "cat", "timeout", "mv", "grep"} {
		entries = append(entries, "bin/"+applet+"->busybox")
	}
	for _, lib := range sharedLibraries(t, busybox) { // Debian's BusyBox with its own libc
		entries = append(entries, strings.TrimPrefix(lib, "/")+"="+lib)
	}
	var image []string
	for _, entry := range entries {
		image = append(image, itest.ShellQuote(entry))
	}

	write("certs.d/"+nodeRegistryName+":5000/hosts.toml", registryHostsTOML("http://"+nodeRegistryName+":5000"))
	// containerd with the Pods' sandbox image from the registry, and the CNI bridge
	write("containerd.toml", containerdConfig(n.dir, n.path("certs.d"), nodeRegistryName+":5000/pause:1"))
	write("cni/10-proxykit.conflist", nodeCNIConfig(n.dir))
	write("kubelet.yaml", nodeKubeletConfig(n.dir, n.cgroupRoot))
	write("kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: node, cluster: {server: "https://%s:6443", insecure-skip-tls-verify: true}}]
users: [{name: node, user: {token: %q}}]
contexts: [{name: node, context: {cluster: node, user: node}}]
current-context: node
`, nodeAPIAddr, harness.AdminToken))
	write("tinyproxy.conf", fmt.Sprintf("Port 3128\nListen %s\nTimeout 10\nMaxClients 50\nAllow 10.0.0.0/8\nAllow 127.0.0.1\nLogLevel Info\nLogFile %q\n", nodeProxyAddr, n.ProxyLog))
	write("tinyproxy.log", "")
	hosts := write("hosts", "127.0.0.1 localhost\n"+nodeRegistryAddr+" "+nodeRegistryName+"\n"+nodeOutsideAddr+" "+nodeOutsideName+" "+nodeIntranetName+"\n")

	// the kubelet's cgroups live under a root of the test's own, made beforehand
	for _, controller := range nodeCgroupControllers(t) {
		require.NoError(t, os.MkdirAll(filepath.Join("/sys/fs/cgroup", controller, n.cgroupRoot), 0o755))
	}
	t.Cleanup(func() { n.removeCgroups(t) })

	self, err := os.Executable()
	require.NoError(t, err)
	role := func(name string) string { return fmt.Sprintf("%s=%s %q --", harness.RoleVar, name, self) }
	var s strings.Builder
	s.WriteString("set -e\nip link set lo up\n")
	for _, a := range []string{nodeAPIAddr, nodeRegistryAddr, nodeProxyAddr, nodeIP, nodeOutsideAddr, nodeInClusterAddr} {
		fmt.Fprintf(&s, "ip addr add %s/32 dev lo\n", a)
	}
	fmt.Fprintf(&s, "mount --bind %q /etc/hosts\n", hosts)
	// containerd keeps Pods' network namespaces in /run/netns: a /run of the node's own
	s.WriteString("mount -t tmpfs tmpfs /run\n")
	// the sysctls the kubelet sets are not per namespace: it writes to files of its own
	for _, sysctl := range []string{"kernel/panic", "kernel/panic_on_oops", "vm/overcommit_memory"} {
		file := n.path("sysctl-" + strings.ReplaceAll(sysctl, "/", "-"))
		fmt.Fprintf(&s, "cat /proc/sys/%s >%q\nmount --bind %q /proc/sys/%s\n", sysctl, file, file, sysctl)
	}
	fmt.Fprintf(&s, "cd %q\nmkfifo control\n", n.dir)
	s.WriteString("mkdir results\n") // where Deployments' Pods write (kubeletNode.deployment)
	fmt.Fprintf(&s, "%s %s:5000 >registry.log 2>&1 &\n%s", itest.ShellQuote(itest.FilepathBin("registry")), nodeRegistryAddr, harness.WaitForPort(nodeRegistryAddr, 5000))
	fmt.Fprintf(&s, "%s %s:5000 pause:1 %s cmd=/bin/sleep,2147483647\n", role("push-image"), nodeRegistryAddr, strings.Join(image, " "))
	fmt.Fprintf(&s, "%s %s:5000 app:1 %s cmd=/bin/sh\n", role("push-image"), nodeRegistryAddr, strings.Join(image, " "))
	fmt.Fprintf(&s, "tinyproxy -d -c tinyproxy.conf >/dev/null 2>&1 & proxy=$!\n%s", harness.WaitForPort(nodeProxyAddr, 3128))
	fmt.Fprintf(&s, "%s=echo-server %s=8080 %q >echo.log 2>&1 &\n", harness.RoleVar, harness.EchoPortsVar, self)
	fmt.Fprintf(&s, "%s=tls-echo-server %q >tls-echo.log 2>&1 &\n", harness.RoleVar, self)
	fmt.Fprintf(&s, "%s %s:6443 %q >relay.log 2>&1 &\n", role("api-relay"), nodeAPIAddr, socket)
	n.startContainerd = fmt.Sprintf("%s containerd.env.json -- containerd --config containerd.toml >>containerd.log 2>&1 & containerd=$!\n", role("exec-env")) +
		"for i in $(seq 100); do [ -S containerd.sock ] && break; sleep 0.1; done\n"
	s.WriteString(n.startContainerd)
	fmt.Fprintf(&s, "%s kubelet.env.json -- %q --config=kubelet.yaml --kubeconfig=kubeconfig --root-dir=%q --hostname-override=%s --node-ip=%s --v=2 >kubelet.log 2>&1 &\n",
		role("exec-env"), kubelet, n.path("kubelet"), nodeName, nodeIP)
	// then the node's shell runs what the test hands it (kubeletNode.run), where
	// $containerd and $proxy are the PIDs of containerd and the proxy
	s.WriteString("set +e\nwhile :; do read -r line <control && eval \"$line\"; done\n")

	// unshare's child is PID 1 of a namespace of its own: when it dies (unshare
	// kills it as it dies itself), the kernel ends every process the node started,
	// containerd's shims and the Pods' containers included
	cmd := exec.Command("unshare", "--net", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child", "bash", "-c", s.String())
	logFile, err := os.Create(n.path("node.log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			for _, name := range []string{"node.log", "containerd.log", "kubelet.log"} {
				raw, _ := os.ReadFile(n.path(name))
				t.Logf("last output of %s:\n%s", name, tail(string(raw), 3000))
			}
		}
	})

	// Ready: the kubelet registered, and the runtime's network (the CNI bridge) is up
	deadline := time.Now().Add(120 * time.Second)
	for {
		node, err := cp.Client.CoreV1().Nodes().Get(context.Background(), nodeName, metav1.GetOptions{})
		if err == nil && nodeReady(node) {
			return n
		}
		if err != nil && !apierrors.IsNotFound(err) {
			require.NoError(t, err)
		}
		if time.Now().After(deadline) {
			require.FailNow(t, "the node never became Ready", "%s", nodeName) // the cleanup prints the logs
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// sharedLibraries lists the libraries a program loads, its loader included, as ldd finds them.
func sharedLibraries(t *testing.T, program string) []string {
	t.Helper()
	out, err := exec.Command("ldd", program).Output()
	require.NoError(t, err, "ldd %s", program)
	var libs []string
	for _, line := range strings.Split(string(out), "\n") {
		for _, field := range strings.Fields(line) {
			if strings.HasPrefix(field, "/") {
				libs = append(libs, field)
				break
			}
		}
	}
	return libs
}

// nodeDropIns renders cluster-proxy with values and returns its systemd
// drop-ins by unit: "containerd" and "kubelet".
func nodeDropIns(t *testing.T, values string) map[string]string {
	t.Helper()
	var clusterName struct {
		ClusterName string `json:"clusterName"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(values), &clusterName))
	dropIns := proxytest.Get[corev1.Secret](t, fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values)), clusterName.ClusterName+"-systemd-proxy")
	return map[string]string{"containerd": string(dropIns.Data["containerdProxy"]), "kubelet": string(dropIns.Data["kubeletProxy"])}
}

// run runs a bash script in the node's shell, inside its namespaces, and waits
// until it ends; its output is appended to run.log.
func (n *kubeletNode) run(t *testing.T, script string) {
	t.Helper()
	n.runs++
	file, done := n.path(fmt.Sprintf("run-%d.sh", n.runs)), n.path(fmt.Sprintf("run-%d.done", n.runs))
	require.NoError(t, os.WriteFile(file, []byte(script), 0o644))
	control, err := os.OpenFile(n.path("control"), os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(control, "{ source %q; } >>run.log 2>&1; touch %q\n", file, done)
	control.Close()
	require.NoError(t, err)
	// a step may start daemons (the relay's squids and KDC) while every suite and
	// package test runs beside it on two cores
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(done); err == nil {
			return
		}
		require.True(t, time.Now().Before(deadline), "the node's shell never finished:\n%s", script)
		time.Sleep(50 * time.Millisecond)
	}
}

// restartContainerd restarts containerd with the environment of the drop-in
// cluster-proxy renders for values, as
// systemd does after a new drop-in and a daemon-reload; running Pods go on.
func (n *kubeletNode) restartContainerd(t *testing.T, values string) {
	t.Helper()
	n.writeUnitEnv(t, "containerd", nodeDropIns(t, values)["containerd"])
	n.run(t, "kill $containerd; wait $containerd; rm -f containerd.sock\n"+n.startContainerd)
}

// writeUnitEnv writes UNIT.env.json, the environment systemd gives the unit
// from the drop-in, which the exec-env role starts it with.
func (n *kubeletNode) writeUnitEnv(t *testing.T, unit, dropIn string) {
	t.Helper()
	env, _ := systemdenv.Environment(t, dropIn)
	raw, err := json.Marshal(env)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(n.path(unit+".env.json"), raw, 0o644))
}

// useMitmproxy replaces the node's proxy with mitmproxy on the same address,
// started with options (--set ...), its output appended to log. It adds a Via
// header as tinyproxy does, which the echo server tells proxied requests by.
func (n *kubeletNode) useMitmproxy(t *testing.T, log string, options ...string) {
	t.Helper()
	options = append(options, "modify_headers=/~q/Via/1.1 mitmproxy")
	var set strings.Builder
	for _, o := range options {
		set.WriteString(" --set " + itest.ShellQuote(o))
	}
	n.run(t, fmt.Sprintf("kill $proxy; wait $proxy\nmitmdump --listen-host %s --listen-port 3128%s >>%s 2>&1 & proxy=$!\n%s", nodeProxyAddr, set.String(), log, harness.WaitForPort(nodeProxyAddr, 3128)))
}

func (n *kubeletNode) path(name string) string { return filepath.Join(n.dir, name) }

// ProxyRequests lists the requests tinyproxy served, as "METHOD TARGET"
// ("GET http://registry.corp.test:5000/v2/app/manifests/1", "CONNECT 10.77.0.1:6443").
func (n *kubeletNode) ProxyRequests(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(itest.ReadFile(t, n.ProxyLog), "\n") {
		if _, request, ok := strings.Cut(line, "Request (file descriptor "); ok {
			if _, request, ok = strings.Cut(request, "): "); ok {
				out = append(out, strings.TrimSuffix(strings.TrimSuffix(request, " HTTP/1.1"), " HTTP/1.0"))
			}
		}
	}
	return out
}

// requestsTo lists the requests whose target names host (a name or an address).
func requestsTo(requests []string, host string) []string {
	var out []string
	for _, r := range requests {
		if strings.Contains(r, " "+host+":") || strings.Contains(r, "//"+host+":") || strings.Contains(r, "//"+host+"/") {
			out = append(out, r)
		}
	}
	return out
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// nodeCgroupControllers lists the cgroup v1 hierarchies the kubelet uses.
func nodeCgroupControllers(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/sys/fs/cgroup")
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", e.Name(), "cgroup.procs")); err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

// removeCgroups removes the node's cgroups, deepest first, once the processes
// in them have ended.
func (n *kubeletNode) removeCgroups(t *testing.T) {
	for _, controller := range nodeCgroupControllers(t) {
		root := filepath.Join("/sys/fs/cgroup", controller, n.cgroupRoot)
		var dirs []string
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			for try := 0; try < 50; try++ {
				if err := syscall.Rmdir(dirs[i]); err == nil || os.IsNotExist(err) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
}

// nodeCNIConfig is the Pod network: a bridge whose gateway is the node, so that
// a Pod reaches the node's addresses, with host-local addresses kept under dir.
func nodeCNIConfig(dir string) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "proxykit-node",
  "plugins": [{
    "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false,
    "ipam": {"type": "host-local", "dataDir": %q, "ranges": [[{"subnet": %q}]], "routes": [{"dst": "0.0.0.0/0"}]}
  }]
}
`, filepath.Join(dir, "cni-ipam"), nodePodCIDR)
}

// nodeKubeletConfig is the kubelet's configuration for this machine: cgroup v1
// allowed, the cgroupfs driver under a root of the test's own, no eviction
// thresholds (the disk may be nearly full), and nothing written outside dir.
func nodeKubeletConfig(dir, cgroupRoot string) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: %q
containerRuntimeEndpoint: unix://%s
address: %s
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
failSwapOn: false
oomScoreAdj: 0
evictionHard: {}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
podLogsDir: %q
registerNode: true
staticPodPath: ""
resolvConf: /etc/resolv.conf
serializeImagePulls: false
nodeStatusUpdateFrequency: 4s
# a changed Secret reaches mounted volumes within a sync: 10s, not the default
# minute, so the relay's rotation test waits less (it logs what it measured)
syncFrequency: 10s
# beta and off before 1.37: Pods mount the proxy's CA from ClusterTrustBundles
# (proxy.trustBundle), which the kubelet reads and joins
featureGates: {ClusterTrustBundle: true, ClusterTrustBundleProjection: true}
`, cgroupRoot, filepath.Join(dir, "containerd.sock"), nodeIP, filepath.Join(dir, "pod-logs"))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// startControllerManager runs kube-controller-manager's Deployment and
// ReplicaSet controllers against cp: what makes a Deployment's Pods, and what
// a rollout restart rolls (the node suite binds the Pods in their templates, so
// no scheduler is needed).
func startControllerManager(t *testing.T, cp *harness.ControlPlane) {
	t.Helper()
	harness.StartProcess(t, t.TempDir(), "kube-controller-manager", "--kubeconfig="+cp.Kubeconfig,
		"--controllers=deployment-controller,replicaset-controller", "--leader-elect=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", harness.FreePort(t)))
}
