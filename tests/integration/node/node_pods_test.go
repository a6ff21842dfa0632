//go:build integration

package node

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// nodeClusterValues are the cluster's facts as the node suite's values give
// them: the API server as the node reaches it.
const nodeClusterValues = `cluster:
  podCIDRs: [10.244.0.0/16]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: ` + nodeAPIAddr + `
  metadataEndpoints: false
`

// nodeValues give cluster-proxy (the drop-ins) and inject (the Pods) the proxy
// on its address in the namespace.
const nodeValues = "clusterName: node\nproxy:\n  http: http://" + nodeProxyAddr + ":3128\n  https: http://" + nodeProxyAddr + ":3128\n" + nodeClusterValues

// nodePolicyValues are proxy-policies' values for the node with the native
// engine: the proxy's URL as given (credentials and all), the CA of a
// TLS-intercepting proxy when there is one, and NO_PROXY entries of the user's.
func nodePolicyValues(proxyURL, trustedCA string, noProxy ...string) string {
	proxy := fmt.Sprintf("proxy:\n  http: %q\n  https: %q\n", proxyURL, proxyURL)
	if len(noProxy) > 0 {
		proxy += "  noProxy: [" + strings.Join(noProxy, ", ") + "]\n"
	}
	if trustedCA != "" {
		proxy += "  trustedCA: " + fixture.YAMLQuote(trustedCA) + "\n"
	}
	return proxy + nodeClusterValues + itest.AdmissionEngines[0].Values
}

// useEngine upgrades the policies' release to engine, through none: no engine
// until new Pods get nothing, then (after between, when given) engine until they
// get the proxy.
func useEngine(t *testing.T, cp *harness.ControlPlane, policies *itest.E2ERelease, engine itest.AdmissionEngine, between func()) {
	t.Helper()
	set := func(name, values string) {
		policies.Values = policies.Values[:strings.Index(policies.Values, "kyverno:")] + values
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, *policies), policies.Chart, policies.Name), "helm upgrade to %s", name)
	}
	set("no engine", "kyverno: {enabled: false}\nnative: {enabled: false}\n")
	itest.WaitForNoInjection(t, cp)
	if between != nil {
		between()
	}
	set(engine.Name, engine.Values)
	itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool { _, ok := fixture.EnvMap(c.Env)["HTTPS_PROXY"]; return ok })
}

// The URLs the Pods call: a host outside the cluster, which only the proxy can
// resolve, a Service-like name (the Pod resolves it through hostAliases), and an
// address inside the Service CIDR.
var (
	nodeOutsideURL   = fmt.Sprintf("http://%s:8080/", nodeOutsideName)
	nodeServiceURL   = "http://echo.apps.svc:8080/"
	nodeInClusterURL = fmt.Sprintf("http://%s:8080/", nodeInClusterAddr)
	// HTTPS, with a certificate of its own that only an intercepting proxy told to
	// skip verifying it reaches (mitmproxy's ssl_insecure)
	nodeOutsideTLSURL = fmt.Sprintf("https://%s:8443/", nodeOutsideName)
	// a host of the corporate network, which the Pods and the proxy both resolve:
	// NO_PROXY decides which way it goes
	nodeIntranetURL = fmt.Sprintf("http://%s:8080/", nodeIntranetName)
)

// TestKubeletRunsPodsThroughTheDropIns is the node suite's node (issue 38): a
// kubelet and containerd started with the drop-ins cluster-proxy renders,
// registered with the loopback API server, run Pods given the proxy by inject
// and by the native policy. containerd pulls the images (and the sandbox's)
// through the proxy, the kubelet's own API traffic goes direct, and inside the
// Pod network the Go client sends the outside host through the proxy and the
// Service name and the in-cluster address direct, while BusyBox's wget (which
// reads no NO_PROXY) sends the outside host through it; an opted-out Pod sends
// nothing. Then a proxy that demands credentials: a Pod's come from the
// policy's Secret at container start, containerd's from its drop-in, and a wrong
// password shows in the kubelet's event. The echo server, which tells proxied
// requests by the proxy's Via header, and the proxies' logs are the judges.
func TestKubeletRunsPodsThroughTheDropIns(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	cp.EnsureNamespace(t, "apps")
	began := time.Now()
	node := startNode(t, cp, nodeValues)
	t.Logf("the node was Ready %s after it started", time.Since(began).Round(time.Millisecond))

	calls := fmt.Sprintf("podclient %s %s %s; echo \"wget $(timeout 5 wget -q -O- %s 2>&1)\"", nodeOutsideURL, nodeServiceURL, nodeInClusterURL, nodeOutsideURL)
	want := map[string]string{nodeOutsideURL: "proxy", nodeServiceURL: "direct", nodeInClusterURL: "direct", "wget": "proxy"}

	t.Run("a Pod given the proxy by inject", func(t *testing.T) {
		pod := nodePod("calls", "apps", calls)
		var values map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(nodeValues), &values))
		injected := itest.InjectPod(t, inject.New(inject.Options{Values: values, Release: "node"}), pod)
		require.NotEmpty(t, injected.Spec.Containers[0].Env, "inject gave the Pod the proxy")

		assert.Equal(t, want, runPod(t, cp, injected), "what each client in the Pod reached, and how")

		requests := node.ProxyRequests(t)
		assert.Contains(t, requests, "HEAD http://"+nodeRegistryName+":5000/v2/app/manifests/1", "containerd pulled the Pod's image through the proxy")
		assert.Contains(t, requests, "HEAD http://"+nodeRegistryName+":5000/v2/pause/manifests/1", "and the sandbox's")
		assert.Empty(t, requestsTo(requests, nodeAPIAddr), "the kubelet reaches the API server direct: its address is in NO_PROXY")
		assert.Empty(t, requestsTo(requests, nodeInClusterAddr), "the Pod's in-cluster calls never reached the proxy")
		assert.Empty(t, requestsTo(requests, "echo.apps.svc"))
		assert.Len(t, requestsTo(requests, nodeOutsideName), 2, "the outside host, once by each client")
	})

	// the native MutatingAdmissionPolicy admits the Pods from here on, but for
	// the Kyverno engines' turns (Kyverno's admission and background controllers)
	itest.StartKyverno(t, cp, itest.NewObjectClient(t, cp))
	cp.EnsureNamespace(t, fixture.Namespace)
	policies := itest.E2ERelease{Name: "node-policies", Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: nodePolicyValues("http://"+nodeProxyAddr+":3128", "")}
	require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, policies), policies.Chart, policies.Name), "helm install")
	itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool { return fixture.EnvMap(c.Env)["HTTPS_PROXY"].Value != "" })

	// a Pod the engine in place admits makes the calls: the outside host once by
	// each client through the proxy, nothing else
	admittedCalls := func(t *testing.T, name string) {
		before := len(node.ProxyRequests(t))
		assert.Equal(t, want, runPod(t, cp, nodePod(name, "apps", calls)), "what each client in the Pod reached, and how")
		requests := node.ProxyRequests(t)[before:]
		assert.Len(t, requestsTo(requests, nodeOutsideName), 2, "the outside host, once by each client, and nothing else")
		assert.Len(t, requests, 2)
	}
	t.Run("a Pod admitted by the native policy", func(t *testing.T) { admittedCalls(t, "native-calls") })

	t.Run("an opted-out Pod", func(t *testing.T) {
		before := len(node.ProxyRequests(t))
		pod := nodePod("opted-out", "apps", "podclient "+nodeOutsideURL+" "+nodeServiceURL)
		pod.Annotations = map[string]string{"proxykit.io/inject": "false"}
		result := runPod(t, cp, pod)
		assert.Contains(t, result[nodeOutsideURL], "error: ", "without the proxy the outside host does not even resolve")
		assert.Equal(t, "direct", result[nodeServiceURL])
		assert.Empty(t, node.ProxyRequests(t)[before:], "an opted-out Pod sends nothing to the proxy")
	})

	// each Kyverno engine takes over from none, so that its Pod is its alone
	for _, engine := range itest.AdmissionEngines[1:] {
		t.Run("a Pod admitted by Kyverno's "+engine.Name, func(t *testing.T) {
			useEngine(t, cp, &policies, engine, nil)
			admittedCalls(t, strings.ToLower(engine.Name)+"-calls")
		})
	}
	useEngine(t, cp, &policies, itest.AdmissionEngines[0], nil)

	// a proxy that demands credentials (mitmproxy's: tinyproxy's BasicAuth takes no
	// %, & or +) in place of tinyproxy
	password := "Zq%40w%25&+"
	secret, err := url.PathUnescape(password)
	require.NoError(t, err)
	node.useMitmproxy(t, "mitmproxy.log", "proxyauth=svc-user:"+secret)
	withPassword := func(password string) string {
		return strings.ReplaceAll(nodeValues, "http://"+nodeProxyAddr, "http://svc-user:"+password+"@"+nodeProxyAddr)
	}

	// every engine's Pods read the URL from the Secret (the native engine's copy in
	// native.secretNamespaces, Kyverno's generated into every namespace)
	policies.Values = nodePolicyValues("http://svc-user:"+password+"@"+nodeProxyAddr+":3128", "")
	itest.GrantKyvernoSecrets(t, cp)
	for _, engine := range append(itest.AdmissionEngines[1:], itest.AdmissionEngines[0]) {
		t.Run("a Pod with credentials from the Secret, admitted by "+engine.Name, func(t *testing.T) {
			var between func()
			if engine.Native {
				// from Kyverno to the native engine: the copies Kyverno left in
				// native.secretNamespaces stop Helm from rendering its own there, until
				// they are deleted (the README's step, once Kyverno is off)
				between = func() {
					blocked := policies
					blocked.Values = blocked.Values[:strings.Index(blocked.Values, "kyverno:")] + engine.Values
					err := helm.UpgradeE(t, itest.HelmOptions(cp, blocked), blocked.Chart, blocked.Name)
					require.ErrorContains(t, err, `Secret "node-policies-proxy-credentials" in namespace "apps" exists and cannot be imported into the current release`)
					require.NoError(t, cp.Client.CoreV1().Secrets("apps").DeleteCollection(context.Background(), metav1.DeleteOptions{},
						metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=kyverno", FieldSelector: "metadata.name=node-policies-proxy-credentials"}))
				}
			}
			useEngine(t, cp, &policies, engine, between)
			pod := nodePod(strings.ToLower(engine.Name)+"-credentials", "apps", "podclient "+nodeOutsideURL+" "+nodeServiceURL+" "+nodeInClusterURL)
			result := runPod(t, cp, pod)
			assert.Equal(t, map[string]string{nodeOutsideURL: "proxy", nodeServiceURL: "direct", nodeInClusterURL: "direct"}, result,
				"the kubelet resolved the Secret's URL at container start; the proxy took its credentials")
			stored, err := cp.Client.CoreV1().Pods("apps").Get(context.Background(), pod.Name, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Contains(t, fmt.Sprint(stored.Spec.Containers[0].Env), "node-policies-proxy-credentials", "the URL comes from the Secret")
			assert.NotContains(t, fmt.Sprint(stored.Spec), "svc-user", "and is only there")
		})
	}

	t.Run("credentials in the drop-in", func(t *testing.T) {
		node.restartContainerd(t, withPassword(password))
		pod := nodePod("pull-credentials", "apps", "echo pulled yes")
		pod.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
		assert.Equal(t, map[string]string{"pulled": "yes"}, runPod(t, cp, pod))
		assert.Contains(t, itest.ReadFile(t, node.path("mitmproxy.log")), "HEAD http://"+nodeRegistryName+":5000/v2/app/manifests/1", "the pull went through the proxy, which took the credentials")
	})

	t.Run("a wrong password", func(t *testing.T) {
		node.restartContainerd(t, withPassword("nope"))
		pod := nodePod("pull-wrong-password", "apps", "echo pulled yes")
		pod.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
		_, err := cp.Client.CoreV1().Pods(pod.Namespace).Create(context.Background(), &pod, metav1.CreateOptions{})
		require.NoError(t, err)
		event := waitForPodEvent(t, cp, pod, "Failed", "407")
		assert.Contains(t, event, "Proxy Authentication Required", "the kubelet's event names the proxy's refusal")
		assert.NotContains(t, event, "nope", "and never the password")
		t.Logf("the kubelet's event: %s", event)
		require.NoError(t, cp.Client.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{}))
	})

	// a TLS-intercepting proxy (mitmproxy signing with the corporate CA) in place
	// of the one that demanded credentials; the CA given to cluster-proxy, whose
	// Bundle trust-manager turns into ConfigMap proxykit-ca-bundle (public roots and
	// the CA) in every namespace, and to the policy, which mounts it and points
	// the clients at it
	t.Run("a TLS-intercepting proxy, its CA from trust-manager", func(t *testing.T) {
		ca, key := fixture.NewCA(t, "corp intercepting proxy")
		require.NoError(t, os.MkdirAll(node.path("mitmproxy-ca"), 0o700))
		require.NoError(t, os.WriteFile(node.path("mitmproxy-ca/mitmproxy-ca.pem"), []byte(key+ca), 0o600))
		node.useMitmproxy(t, "mitmproxy-tls.log", "confdir=mitmproxy-ca", "ssl_insecure=true")
		startTrustManager(t, cp)
		trustValues := "proxy:\n  https: http://" + nodeProxyAddr + ":3128\n  trustedCA: " + fixture.YAMLQuote(ca) + "\n" + nodeClusterValues
		clusterProxy := itest.E2ERelease{Name: "node", Chart: fixture.ClusterProxy, Namespace: fixture.Namespace, Values: "clusterName: node\n" + trustValues}
		require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, clusterProxy), clusterProxy.Chart, clusterProxy.Name), "helm install cluster-proxy")
		policies.Values = nodePolicyValues("http://"+nodeProxyAddr+":3128", ca)
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, policies), policies.Chart, policies.Name), "helm upgrade")
		itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool { return fixture.EnvMap(c.Env)["SSL_CERT_FILE"].Value != "" })
		waitForConfigMapKey(t, cp, "apps", "proxykit-ca-bundle", "ca-certificates.crt")

		result := runPod(t, cp, nodePod("trusts-the-proxy", "apps", "podclient "+nodeOutsideTLSURL))
		assert.Equal(t, map[string]string{nodeOutsideTLSURL: "secure"}, result, "the Go client read the mounted bundle and trusted the proxy's certificate")
		assert.Contains(t, itest.ReadFile(t, node.path("mitmproxy-tls.log")), "GET "+nodeOutsideTLSURL, "mitmproxy intercepted the request")

		untrusting := nodePod("does-not-trust", "apps", "podclient "+nodeOutsideTLSURL)
		untrusting.Annotations = map[string]string{"proxykit.io/skip-containers": "app"}
		untrusting.Spec.Containers[0].Env = []corev1.EnvVar{fixture.Val("HTTPS_PROXY", "http://"+nodeProxyAddr+":3128")}
		assert.Contains(t, runPod(t, cp, untrusting)[nodeOutsideTLSURL], "certificate signed by unknown authority", "without the bundle the same client refuses the proxy")

		// the same CA as a ClusterTrustBundle of cluster-proxy's, with a public root
		// after it, and the policy mounting the bundles through a projected volume:
		// the kubelet joins them into the file, with no trust-manager in the path
		t.Run("its CA from ClusterTrustBundles", func(t *testing.T) {
			root, _ := fixture.NewCA(t, "a public root")
			clusterProxy.Values += "trust:\n  clusterTrustBundle: true\n  publicRoots: " + fixture.YAMLQuote(root) + "\n"
			require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, clusterProxy), clusterProxy.Chart, clusterProxy.Name), "helm upgrade cluster-proxy")
			policies.Values = strings.Replace(nodePolicyValues("http://"+nodeProxyAddr+":3128", ca), "proxy:\n", "proxy:\n  trustBundle: clusterTrustBundle\n", 1)
			require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, policies), policies.Chart, policies.Name), "helm upgrade")
			itest.WaitForRecord(t, cp, "apps", fixture.Record(t, policies.Values)) // the record names the bundle

			pod := nodePod("trusts-the-bundles", "apps", "podclient "+nodeOutsideTLSURL+"; echo \"certificates $(grep -c 'BEGIN CERTIFICATE' "+fixture.BundleFile+")\"")
			result := runPod(t, cp, pod)
			assert.Equal(t, map[string]string{nodeOutsideTLSURL: "secure", "certificates": "2"}, result,
				"the Go client read the joined bundle (the CA and the public root) and trusted the proxy's certificate")
			stored, err := cp.Client.CoreV1().Pods("apps").Get(context.Background(), pod.Name, metav1.GetOptions{})
			require.NoError(t, err)
			var projected bool
			for _, v := range stored.Spec.Volumes {
				projected = projected || (v.Name == "proxykit-ca-bundle" && v.Projected != nil && v.ConfigMap == nil)
			}
			assert.True(t, projected, "the bundle came from the projected volume, not trust-manager's ConfigMap")
		})
	})

	// day 2 on real Pods: a Deployment's Pod (kube-controller-manager makes it; the
	// template binds it to the node) runs on a password and a NO_PROXY that change
	t.Run("day 2: a rotated password and a new NO_PROXY reach a Deployment through rollout", func(t *testing.T) {
		startControllerManager(t, cp)
		node.useMitmproxy(t, "mitmproxy-day2.log", "proxyauth=svc-user:0ld-pass")
		policies.Values = nodePolicyValues("http://svc-user:0ld-pass@"+nodeProxyAddr+":3128", "")
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, policies), policies.Chart, policies.Name), "helm upgrade")
		itest.WaitForRecord(t, cp, "apps", fixture.Record(t, policies.Values))

		web := node.deployment(t, cp, "web", nodeOutsideURL, nodeIntranetURL)
		first, results := node.deploymentResults(t, cp, web, "")
		assert.Equal(t, map[string]string{nodeOutsideURL: "proxy", nodeIntranetURL: "proxy"}, results, "before: both through the proxy, with the old password")

		// the proxy's password rotates, and the values follow with a NO_PROXY for the intranet
		node.useMitmproxy(t, "mitmproxy-day2.log", "proxyauth=svc-user:n3w-pass")
		policies.Values = nodePolicyValues("http://svc-user:n3w-pass@"+nodeProxyAddr+":3128", "", ".corp.internal")
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, policies), policies.Chart, policies.Name), "helm upgrade")
		itest.WaitForRecord(t, cp, "apps", fixture.Record(t, policies.Values))
		_, results = node.deploymentResults(t, cp, web, "")
		assert.NotEqual(t, "proxy", results[nodeOutsideURL], "the running Pod still sends the old password, which the proxy refuses")

		stale := func() []string {
			_, text, stderr := itest.CLI(t, itest.ProxykitCLI(t), "audit", "--kubeconfig", cp.Kubeconfig, "-n", "apps", "-o", "json")
			var rows []itest.AuditRow
			require.NoError(t, json.Unmarshal([]byte(text), &rows), "stdout:\n%s\nstderr:\n%s", text, stderr)
			var out []string
			for _, r := range rows {
				if r.Rule == proxytest.RuleStaleProxyEnv {
					out = append(out, r.Namespace+"/"+r.Object)
				}
				assert.NotContains(t, r.Message, "-pass", "a finding never carries a password")
			}
			return out
		}
		assert.Equal(t, []string{"apps/Pod/" + first}, stale(), "audit names exactly the running Pod that started before")

		code, text, stderr := itest.CLI(t, itest.ProxykitCLI(t), "rollout", "--kubeconfig", cp.Kubeconfig, "-n", "apps", "--apply", "--timeout", "90s")
		require.Equal(t, 0, code, "%s\n%s", text, stderr)
		assert.Contains(t, text, "apps/Deployment/web: 1 Pod (stale-proxy-env)")
		second, results := node.deploymentResults(t, cp, web, first)
		assert.Equal(t, map[string]string{nodeOutsideURL: "proxy", nodeIntranetURL: "direct"}, results, "after: the new password through the proxy, the intranet direct")
		assert.Empty(t, stale(), "nothing runs on the old configuration: %s replaced %s", second, first)
	})
}

// nodePod is a Pod bound to the node (no scheduler runs here) that runs script
// in the app image and ends. It resolves only the Service-like name, through
// /etc/hosts: the outside host only the proxy resolves.
func nodePod(name, ns, script string) corev1.Pod {
	no := false
	return corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			NodeName:                     nodeName,
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: &no,
			HostAliases:                  []corev1.HostAlias{{IP: nodeInClusterAddr, Hostnames: []string{"echo.apps.svc"}}, {IP: nodeOutsideAddr, Hostnames: []string{nodeIntranetName}}},
			// no DNS server answers in the namespace: a name not in /etc/hosts fails at once
			DNSPolicy: corev1.DNSNone,
			DNSConfig: &corev1.PodDNSConfig{Nameservers: []string{"127.0.0.1"}},
			Containers: []corev1.Container{{
				Name: "app", Image: nodeRegistryName + ":5000/app:1",
				Command: []string{"/bin/sh", "-c", "{ " + script + "; } >/dev/termination-log 2>&1"},
			}},
		},
	}
}

// runPod creates the Pod, waits until it ends, and reads what its container
// wrote to its termination log: one "WHAT RESULT" line per call.
func runPod(t *testing.T, cp *harness.ControlPlane, pod corev1.Pod) map[string]string {
	t.Helper()
	ctx := context.Background()
	_, err := cp.Client.CoreV1().Pods(pod.Namespace).Create(ctx, &pod, metav1.CreateOptions{})
	require.NoError(t, err)
	deadline := time.Now().Add(90 * time.Second)
	for {
		got, err := cp.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		require.NoError(t, err)
		if got.Status.Phase == corev1.PodSucceeded || got.Status.Phase == corev1.PodFailed {
			require.NotEmpty(t, got.Status.ContainerStatuses)
			terminated := got.Status.ContainerStatuses[0].State.Terminated
			require.NotNil(t, terminated)
			return callResults(terminated.Message)
		}
		require.True(t, time.Now().Before(deadline), "Pod %s/%s never ended: %s", pod.Namespace, pod.Name, podEvents(t, cp, pod))
		time.Sleep(250 * time.Millisecond)
	}
}

// deployment creates a Deployment of one Pod, bound to the node, whose
// container calls the URLs every second and writes what it got to
// results/POD_NAME in the node's directory (a hostPath).
func (n *kubeletNode) deployment(t *testing.T, cp *harness.ControlPlane, name string, urls ...string) *appsv1.Deployment {
	t.Helper()
	spec := nodePod(name, "apps", "").Spec
	spec.RestartPolicy = corev1.RestartPolicyAlways
	spec.Volumes = []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: n.path("results")}}}}
	c := &spec.Containers[0]
	c.Command = []string{"/bin/sh", "-c", "while :; do podclient " + strings.Join(urls, " ") + " >/results/$POD_NAME.new 2>&1; mv /results/$POD_NAME.new /results/$POD_NAME; sleep 1; done"}
	c.Env = []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "results", MountPath: "/results"}}
	labels := map[string]string{"app": name}
	replicas := int32(1)
	d, err := cp.Client.AppsV1().Deployments("apps").Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	return d
}

// deploymentResults waits for a running Pod of the Deployment other than not,
// and for what its container wrote last (written after the wait began).
func (n *kubeletNode) deploymentResults(t *testing.T, cp *harness.ControlPlane, d *appsv1.Deployment, not string) (string, map[string]string) {
	t.Helper()
	began := time.Now()
	deadline := began.Add(90 * time.Second)
	for {
		pods, err := cp.Client.CoreV1().Pods(d.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + d.Name})
		require.NoError(t, err)
		for _, p := range pods.Items {
			if p.Name == not || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
				continue
			}
			file := n.path(filepath.Join("results", p.Name))
			if info, err := os.Stat(file); err == nil && info.ModTime().After(began) {
				return p.Name, callResults(itest.ReadFile(t, file))
			}
		}
		require.True(t, time.Now().Before(deadline), "no running Pod of Deployment %s wrote its results", d.Name)
		time.Sleep(250 * time.Millisecond)
	}
}

// callResults reads what a Pod's calls printed, one "WHAT RESULT" line each
// (podclient's "URL proxy", the script's "wget proxy").
func callResults(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		what, result, _ := strings.Cut(line, " ")
		out[what] = result
	}
	return out
}

// waitForConfigMapKey waits until the ConfigMap has the key.
func waitForConfigMapKey(t *testing.T, cp *harness.ControlPlane, ns, name, key string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cm, err := cp.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && cm.Data[key] != "" {
			return
		}
		require.True(t, time.Now().Before(deadline), "ConfigMap %s/%s never got key %s", ns, name, key)
		time.Sleep(250 * time.Millisecond)
	}
}

// waitForPodEvent waits for an event of the Pod with reason whose message
// contains text, and returns the message.
func waitForPodEvent(t *testing.T, cp *harness.ControlPlane, pod corev1.Pod, reason, text string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		events, err := cp.Client.CoreV1().Events(pod.Namespace).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod.Name})
		require.NoError(t, err)
		for _, e := range events.Items {
			if e.Reason == reason && strings.Contains(e.Message, text) {
				return e.Message
			}
		}
		require.True(t, time.Now().Before(deadline), "no %s event with %q for Pod %s/%s: %s", reason, text, pod.Namespace, pod.Name, podEvents(t, cp, pod))
		time.Sleep(250 * time.Millisecond)
	}
}

// podEvents lists the events of a Pod, as `kubectl describe` shows them.
func podEvents(t *testing.T, cp *harness.ControlPlane, pod corev1.Pod) string {
	t.Helper()
	events, err := cp.Client.CoreV1().Events(pod.Namespace).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod.Name})
	require.NoError(t, err)
	var b strings.Builder
	for _, e := range events.Items {
		fmt.Fprintf(&b, "\n%s %s: %s", e.Type, e.Reason, e.Message)
	}
	return b.String()
}
