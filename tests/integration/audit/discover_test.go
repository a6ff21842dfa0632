//go:build integration

package audit

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// discoverJSON runs `proxykit discover -o json` against the control plane.
func discoverJSON(t *testing.T, kubeconfig string, args ...string) (int, discover.Result, string) {
	t.Helper()
	code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), append([]string{"discover", "--kubeconfig", kubeconfig, "-o", "json"}, args...)...)
	var res discover.Result
	if code == 0 || strings.HasPrefix(strings.TrimSpace(out), "{") {
		require.NoError(t, json.Unmarshal([]byte(out), &res), "stdout:\n%s\nstderr:\n%s", out, stderr)
	}
	return code, res, stderr
}

// hasWarning tells whether some warning contains every part.
func hasWarning(res discover.Result, parts ...string) bool {
	for _, w := range res.Warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestDiscover seeds every source `proxykit discover` reads into a loopback
// kube-apiserver, one after the other, most exact last, and compares what it
// prints with the truth at each step: conflicting, missing, malformed and
// forbidden sources included. The values it prints go through `proxykit noproxy`
// and the NO_PROXY is judged with Go's httpproxy.
func TestDiscover(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	ctx := context.Background()
	objects := itest.NewObjectClient(t, cp)
	itest.ApplyModuleCRDs(t, objects, "sigs.k8s.io/cluster-api", "crds", "core/config/crd/bases/cluster.x-k8s.io_clusters.yaml",
		schema.GroupVersionKind{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Cluster"})
	itest.ApplyModuleCRDs(t, objects, "github.com/projectcalico/calico", "crds", "libcalico-go/config/crd/crd.projectcalico.org_ippools.yaml",
		schema.GroupVersionKind{Group: "crd.projectcalico.org", Version: "v1", Kind: "IPPool"})
	kubeconfig := cp.Kubeconfig

	t.Run("a bare cluster: the ServiceCIDRs and the kubernetes Service; the domain assumed", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"10.96.0.0/12", "fd00:10:96::/112"}, res.Cluster.ServiceCIDRs, "the API server's --service-cluster-ip-range, dual-stack")
		assert.Equal(t, "10.96.0.1", res.Cluster.APIServer)
		assert.Equal(t, []string{"Service default/kubernetes"}, res.Sources["apiServer"])
		assert.Equal(t, "cluster.local", res.Cluster.Domain)
		assert.True(t, hasWarning(res, "cluster.domain", "cluster.local assumed"), "%v", res.Warnings)
		assert.Empty(t, res.Cluster.PodCIDRs)
	})

	// a second ServiceCIDR: the service network grew
	_, err := cp.Client.NetworkingV1().ServiceCIDRs().Create(ctx, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "extra"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.200.0.0/16"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for i, n := range []struct{ name, provider string }{{"node-a", "aws:///eu-west-1a/i-0a"}, {"node-b", "aws:///eu-west-1b/i-0b"}} {
		_, err := cp.Client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name},
			Spec: corev1.NodeSpec{PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", i), fmt.Sprintf("fd00:10:244:%d::/64", i)}, ProviderID: n.provider}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	t.Run("Nodes only: the pod network inferred from their ranges, with a warning", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"10.96.0.0/12", "fd00:10:96::/112", "10.200.0.0/16"}, res.Cluster.ServiceCIDRs)
		assert.Equal(t, []string{"10.244.0.0/24", "fd00:10:244::/64", "10.244.1.0/24", "fd00:10:244:1::/64"}, res.Cluster.PodCIDRs)
		assert.True(t, hasWarning(res, "cluster.podCIDRs", "inferred", "2 Node(s)"), "%v", res.Warnings)
		assert.Equal(t, []string{"Node node-a (aws)"}, res.Sources["metadataEndpoints"])
	})

	createConfigMap := func(name string, data map[string]string) {
		t.Helper()
		_, err := cp.Client.CoreV1().ConfigMaps("kube-system").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	createConfigMap("cilium-config", map[string]string{"cluster-pool-ipv4-cidr": "10.244.0.0/16", "cluster-pool-ipv6-cidr": "fd00:10:244::/56"})
	t.Run("Cilium's cluster pool: the whole pod network, Nodes no longer needed", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"10.244.0.0/16", "fd00:10:244::/56"}, res.Cluster.PodCIDRs)
		assert.Equal(t, []string{"ConfigMap kube-system/cilium-config"}, res.Sources["podCIDRs"])
		assert.False(t, hasWarning(res, "inferred"), "%v", res.Warnings)
	})

	pool := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.projectcalico.org/v1", "kind": "IPPool", "metadata": map[string]any{"name": "default-ipv4-ippool"},
		"spec": map[string]any{"cidr": "192.168.0.0/16"}}}
	_, err = objects.Dynamic.Resource(schema.GroupVersionResource{Group: "crd.projectcalico.org", Version: "v1", Resource: "ippools"}).Create(ctx, pool, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Run("Calico and Cilium disagree: the first wins, the warning names both", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"192.168.0.0/16"}, res.Cluster.PodCIDRs)
		assert.True(t, hasWarning(res, "cluster.podCIDRs", "IPPool default-ipv4-ippool", "ConfigMap kube-system/cilium-config says 10.244.0.0/16,fd00:10:244::/56"), "%v", res.Warnings)
	})

	createConfigMap("kubeadm-config", map[string]string{"ClusterConfiguration": `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
networking:
  podSubnet: 10.244.0.0/16,fd00:10:244::/56
  serviceSubnet: 10.96.0.0/12,fd00:10:96::/112
  dnsDomain: k8s.internal
`})
	createConfigMap("kubelet-config", map[string]string{"kubelet": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDomain: k8s.internal\n"})
	t.Run("kubeadm-config, dual-stack: the pod network and the domain; kubelet-config agrees", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"10.244.0.0/16", "fd00:10:244::/56"}, res.Cluster.PodCIDRs)
		assert.Equal(t, "ConfigMap kube-system/kubeadm-config", res.Sources["podCIDRs"][0])
		assert.Contains(t, res.Sources["podCIDRs"], "ConfigMap kube-system/cilium-config", "an agreeing source is named too")
		assert.Equal(t, "k8s.internal", res.Cluster.Domain)
		assert.Equal(t, []string{"ConfigMap kube-system/kubeadm-config", "ConfigMap kube-system/kubelet-config"}, res.Sources["domain"])
		assert.True(t, hasWarning(res, "cluster.serviceCIDRs", "ServiceCIDR kubernetes,extra", "kubeadm-config says 10.96.0.0/12,fd00:10:96::/112"),
			"the added ServiceCIDR is not in kubeadm's configuration: %v", res.Warnings)

		// the values file it prints goes through the library as it is
		code, values, stderr := itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, values, "  podCIDRs:  # from ConfigMap kube-system/kubeadm-config; ConfigMap kube-system/cilium-config\n    - \"10.244.0.0/16\"\n")
		assert.Contains(t, stderr, "warning: cluster.podCIDRs:")
		t.Logf("$ proxykit discover\n%s%s", values, stderr)
		file := filepath.Join(t.TempDir(), "cluster.yaml")
		require.NoError(t, os.WriteFile(file, []byte(values), 0o600))
		code, noProxy, stderr := itest.CLI(t, itest.ProxykitCLI(t), "noproxy", "-f", file, "--set", "proxy.http=http://proxy.corp.example:3128")
		require.Equal(t, 0, code, stderr)
		fixture.AssertProxySelection(t, strings.TrimSpace(noProxy),
			[]string{"http://10.244.7.9:8080", "http://[fd00:10:244::9]:8080", "https://10.96.0.1", "http://10.200.3.4", "http://[fd00:10:96::a]",
				"http://web.shop.svc.k8s.internal:8080", "http://web.shop.svc.k8s.internal.:8080", "http://kubernetes.default.svc"},
			[]string{"https://api.github.com", "http://192.168.1.1", "http://web.shop.svc.cluster.local"})
	})

	// a kubeadm-config that does not parse: a warning naming it, the other sources answer
	_, err = cp.Client.CoreV1().ConfigMaps("kube-system").Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config"},
		Data: map[string]string{"ClusterConfiguration": "networking: [podSubnet"}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	t.Run("a malformed ClusterConfiguration: a warning naming the object", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.True(t, hasWarning(res, "ConfigMap kube-system/kubeadm-config", "does not parse"), "%v", res.Warnings)
		assert.Equal(t, []string{"192.168.0.0/16"}, res.Cluster.PodCIDRs, "Calico answers")
		assert.Equal(t, "k8s.internal", res.Cluster.Domain, "kubelet-config answers")
	})

	// a hostile kubeadm-config: 2,000 pod subnets with junk among them, a domain with a
	// quote and a newline, near the 1 MiB a ConfigMap holds
	var subnets []string
	for i := 0; i < 2000; i++ {
		subnets = append(subnets, fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256))
	}
	subnets = append(subnets, `$(touch x)`, "10.0.0.0/33")
	hostile := "networking:\n  podSubnet: " + strconv.Quote(strings.Join(subnets, ",")) + "\n  dnsDomain: \"evil\\\"\\ndomain\"\n# " + strings.Repeat("x", 900<<10) + "\n"
	_, err = cp.Client.CoreV1().ConfigMaps("kube-system").Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config"},
		Data: map[string]string{"ClusterConfiguration": hostile}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	t.Run("a hostile ClusterConfiguration: bounded, the junk named, the values file safe", func(t *testing.T) {
		began := time.Now()
		code, res, stderr := discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Less(t, time.Since(began), 30*time.Second)
		assert.Len(t, res.Cluster.PodCIDRs, 2000, "every valid subnet, nothing else")
		assert.True(t, hasWarning(res, "10.0.0.0/33"), "%v", res.Warnings)
		code, values, _ := itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig)
		require.Equal(t, 0, code)
		var parsed struct{ Cluster map[string]any }
		require.NoError(t, yaml.Unmarshal([]byte(values), &parsed), "the values file is YAML")
		assert.Len(t, parsed.Cluster, 6, "no key smuggled in by the domain: %v", parsed.Cluster)
		file := filepath.Join(t.TempDir(), "cluster.yaml")
		require.NoError(t, os.WriteFile(file, []byte(values), 0o600))
		code, noProxy, stderr := itest.CLI(t, itest.ProxykitCLI(t), "noproxy", "-f", file, "--set", "proxy.http=http://proxy.corp.example:3128")
		require.Equal(t, 0, code, "the library takes the file discover wrote: %s", stderr)
		assert.Contains(t, noProxy, "10.107.207.0/24,", "the last valid subnet")
		assert.True(t, hasWarning(res, "networking.dnsDomain", "is not a DNS domain"), "a domain with a quote and a line break is left out: %v", res.Warnings)
		assert.Equal(t, "k8s.internal", res.Cluster.Domain, "kubelet-config answers")
	})
	// as it was: the RBAC test below expects the malformed one
	_, err = cp.Client.CoreV1().ConfigMaps("kube-system").Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config"},
		Data: map[string]string{"ClusterConfiguration": "networking: [podSubnet"}}, metav1.UpdateOptions{})
	require.NoError(t, err)

	t.Run("the read-only RBAC the README states is enough; without ConfigMaps, warnings name them", func(t *testing.T) {
		// a proxy-relay release: the cluster's relay
		cp.EnsureNamespace(t, "proxy-relay")
		_, err := cp.Client.CoreV1().Services("proxy-relay").Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "relay", Labels: map[string]string{"app.kubernetes.io/name": "proxy-relay"}},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "proxy", Port: 3128}, {Name: "metrics", Port: 9090}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		// gone before the later steps, which hold the values file to the cluster key alone
		defer cp.Client.CoreV1().Services("proxy-relay").Delete(ctx, "relay", metav1.DeleteOptions{})
		full := boundServiceAccount(t, cp, "discover-full", discoverRules)
		code, res, stderr := discoverJSON(t, full)
		require.Equal(t, 0, code, stderr)
		assert.False(t, hasWarning(res, "not allowed"), "%v", res.Warnings)
		assert.Equal(t, []string{"192.168.0.0/16"}, res.Cluster.PodCIDRs)
		assert.Equal(t, "http://relay.proxy-relay.svc."+res.Cluster.Domain+":3128", res.Cluster.Relay, "the relay, from its Service, under the cluster's domain")

		var noConfigMaps []rbacv1.PolicyRule
		for _, r := range discoverRules {
			if !(len(r.Resources) == 1 && r.Resources[0] == "configmaps") {
				noConfigMaps = append(noConfigMaps, r)
			}
		}
		partial := boundServiceAccount(t, cp, "discover-partial", noConfigMaps)
		code, res, stderr = discoverJSON(t, partial)
		require.Equal(t, 0, code, stderr)
		assert.True(t, hasWarning(res, "ConfigMap kube-system/kubeadm-config", "not allowed to read it"), "%v", res.Warnings)
		assert.True(t, hasWarning(res, "ConfigMap kube-system/cilium-config", "not allowed to read it"), "%v", res.Warnings)
	})

	cp.EnsureNamespace(t, "org-a")
	wc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "metadata": map[string]any{"name": "wc1", "namespace": "org-a"},
		"spec": map[string]any{
			"clusterNetwork":       map[string]any{"pods": map[string]any{"cidrBlocks": []any{"100.64.0.0/16"}}, "services": map[string]any{"cidrBlocks": []any{"172.31.0.0/16"}}, "serviceDomain": "wc1.local"},
			"controlPlaneEndpoint": map[string]any{"host": "api.wc1.corp.example", "port": int64(6443)},
		}}}
	_, err = objects.Dynamic.Resource(schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}).Namespace("org-a").Create(ctx, wc, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Run("--capi-cluster: a workload cluster's facts from its Cluster object", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig, "--capi-cluster", "org-a/wc1")
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, discover.Facts{Domain: "wc1.local", PodCIDRs: []string{"100.64.0.0/16"}, ServiceCIDRs: []string{"172.31.0.0/16"}, NodeCIDRs: []string{},
			APIServer: "172.31.0.1", Metadata: true}, res.Cluster)
		assert.Equal(t, []string{"Cluster org-a/wc1"}, res.Sources["podCIDRs"])
		assert.True(t, hasWarning(res, "api.wc1.corp.example"), "%v", res.Warnings)

		code, _, stderr = itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig, "--capi-cluster", "org-a/nope")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "Cluster org-a/nope")
	})

	// names at Kubernetes' limits: a namespace and a Cluster of 63 characters, a
	// Node of 253 (a DNS subdomain), each named whole in the sources, the values
	// file still YAML the library reads
	longNS := "org-" + strings.Repeat("n", 59)
	longCluster := "wc-" + strings.Repeat("c", 60)
	longNode := strings.Repeat(strings.Repeat("a", 62)+".", 4)[:252] + "z"
	require.Len(t, longNS, 63)
	require.Len(t, longCluster, 63)
	require.Len(t, longNode, 253)
	cp.EnsureNamespace(t, longNS)
	long := wc.DeepCopy()
	long.SetNamespace(longNS)
	long.SetName(longCluster)
	_, err = objects.Dynamic.Resource(schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}).Namespace(longNS).Create(ctx, long, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cp.Client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: longNode},
		Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.9.0/24"}, ProviderID: "gce://p/z/" + longNode[:40]}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Run("names at the 63 and 253 character limits: named whole, the values file intact", func(t *testing.T) {
		code, res, stderr := discoverJSON(t, kubeconfig, "--capi-cluster", longNS+"/"+longCluster)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"Cluster " + longNS + "/" + longCluster}, res.Sources["podCIDRs"])
		assert.Equal(t, []string{"100.64.0.0/16"}, res.Cluster.PodCIDRs)
		code, values, stderr := itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig, "--capi-cluster", longNS+"/"+longCluster)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, values, "# from Cluster "+longNS+"/"+longCluster+"\n")
		var parsed struct{ Cluster map[string]any }
		require.NoError(t, yaml.Unmarshal([]byte(values), &parsed), "the values file is YAML:\n%s", values)
		assert.Equal(t, "wc1.local", parsed.Cluster["domain"])

		code, res, stderr = discoverJSON(t, kubeconfig)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, res.Sources["metadataEndpoints"], "Node node-a (aws)", "the first cloud Node named")
		code, values, stderr = itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig)
		require.Equal(t, 0, code, stderr)
		require.NoError(t, yaml.Unmarshal([]byte(values), &parsed), "the values file is YAML:\n%s", values)
	})

	// a Node's providerID is text any kubelet writes: with a line break (or
	// U+2028) and YAML after it, it must not add a key to the values file that
	// an operator installs with -f (issue 37)
	for i, id := range []string{"aws\nproxy:\n  http: http://evil.example:3128\n#://i-1", "aws\u2028proxy: {http: http://evil.example:3128}\u2028#://i-2"} {
		_, err = cp.Client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hostile-%d", i)},
			Spec: corev1.NodeSpec{PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", 20+i)}, ProviderID: id}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	t.Run("a Node's providerID reaches the values file as data, never as structure", func(t *testing.T) {
		code, values, stderr := itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig)
		require.Equal(t, 0, code, stderr)
		var parsed map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(values), &parsed), "the values file is YAML:\n%s", values)
		assert.Len(t, parsed, 1, "only the cluster key:\n%s", values)
		assert.Contains(t, parsed, "cluster")
		assert.NotContains(t, values, "\nproxy:")
		assert.Contains(t, stderr, `spec.providerID "aws\nproxy:`, "the warning quotes the text")
		// the library reads the file as Helm would: no proxy from the cluster
		out := fixture.Include(t, parsed, proxykit.Call{Helper: "proxykit.proxy.config"})
		assert.NotContains(t, out, "evil.example")
	})

	t.Run("kubectl proxykit: the krew archive's binary, run by a real kubectl", func(t *testing.T) {
		dist := t.TempDir()
		platform := runtime.GOOS + "/" + runtime.GOARCH
		out, err := exec.Command(fixture.Path("hack", "krew.sh"), dist, "v0.0.0-test", platform).CombinedOutput()
		require.NoError(t, err, "%s", out)
		var manifest struct {
			Kind string `json:"kind"`
			Spec struct {
				Version   string `json:"version"`
				Platforms []struct {
					Selector struct {
						MatchLabels map[string]string `json:"matchLabels"`
					} `json:"selector"`
					URI, Sha256, Bin string
				} `json:"platforms"`
			} `json:"spec"`
		}
		raw, err := os.ReadFile(filepath.Join(dist, "proxykit.yaml"))
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(raw, &manifest))
		assert.Equal(t, "Plugin", manifest.Kind)
		assert.Equal(t, "v0.0.0-test", manifest.Spec.Version)
		archive := filepath.Join(dist, fmt.Sprintf("kubectl-proxykit_v0.0.0-test_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH))
		data, err := os.ReadFile(archive)
		require.NoError(t, err)
		found := false
		for _, p := range manifest.Spec.Platforms {
			if p.Selector.MatchLabels["os"] == runtime.GOOS && p.Selector.MatchLabels["arch"] == runtime.GOARCH {
				found = true
				assert.Equal(t, fmt.Sprintf("%x", sha256.Sum256(data)), p.Sha256, "the manifest carries the archive's checksum")
				assert.True(t, strings.HasSuffix(p.URI, filepath.Base(archive)), p.URI)
				assert.Equal(t, "kubectl-proxykit", p.Bin)
			}
		}
		require.True(t, found, "the manifest lists %s", platform)

		// krew's install: the archive unpacked, its bin on PATH
		plugins := t.TempDir()
		out, err = exec.Command("tar", "-C", plugins, "-xzf", archive).CombinedOutput()
		require.NoError(t, err, "%s", out)
		kubectl := func(args ...string) (string, string, error) {
			cmd := exec.Command(fixture.Path("bin", "kubectl"), args...)
			cmd.Env = append(os.Environ(), "PATH="+plugins+":"+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			return stdout.String(), stderr.String(), err
		}
		_, err = os.Stat(fixture.Path("bin", "kubectl"))
		require.NoError(t, err, "bin/kubectl is missing: run `make tools`")
		list, _, _ := kubectl("plugin", "list")
		assert.Contains(t, list, filepath.Join(plugins, "kubectl-proxykit"))
		help, stderr, err := kubectl("proxykit", "--help")
		require.NoError(t, err, stderr)
		assert.Contains(t, help, "kubectl proxykit [command]", "the plugin names itself as kubectl does")
		viaKubectl, stderr, err := kubectl("proxykit", "discover", "-o", "json")
		require.NoError(t, err, stderr)
		_, direct, _ := itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig, "-o", "json")
		assert.JSONEq(t, direct, viaKubectl, "kubectl's KUBECONFIG reaches the plugin")
		_, stderr, err = kubectl("proxykit", "discover", "--context", "nope")
		assert.Error(t, err)
		assert.Contains(t, stderr, "kubectl proxykit discover:")
	})

	t.Run("bad input: an unreachable server, a bad flag", func(t *testing.T) {
		dead := filepath.Join(t.TempDir(), "kubeconfig")
		require.NoError(t, os.WriteFile(dead, []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: \"https://127.0.0.1:%d\"}}]\nusers: [{name: x, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: x, user: x}}]\ncurrent-context: x\n", harness.FreePort(t))), 0o600))
		code, out, stderr := itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", dead, "--request-timeout", "5s")
		assert.Equal(t, 2, code)
		assert.Empty(t, out)
		assert.Contains(t, stderr, "the cluster does not answer at https://127.0.0.1:")
		code, _, stderr = itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig, "--context", "nope")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, `context "nope"`)
		code, _, stderr = itest.CLI(t, itest.ProxykitCLI(t), "discover", "--kubeconfig", kubeconfig, "-o", "xml")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, `-o: "xml"`)
	})
}

// discoverRules is the read-only RBAC the README states for `proxykit discover`.
var discoverRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}},
	{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list"}},
	{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get"}, ResourceNames: []string{"kubernetes"}},
	{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"list"}}, // a proxy-relay release's
	{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{"kubeadm-config", "kubelet-config", "cilium-config"}},
	{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"servicecidrs"}, Verbs: []string{"list"}},
	{APIGroups: []string{"crd.projectcalico.org"}, Resources: []string{"ippools"}, Verbs: []string{"list"}},
	{APIGroups: []string{"config.openshift.io"}, Resources: []string{"networks"}, Verbs: []string{"get"}},
	{APIGroups: []string{"cluster.x-k8s.io"}, Resources: []string{"clusters"}, Verbs: []string{"get"}},
}

// boundServiceAccount creates a ServiceAccount bound to a new ClusterRole with
// rules and returns a kubeconfig that acts as it.
func boundServiceAccount(t *testing.T, cp *harness.ControlPlane, name string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx := context.Background()
	const ns = "default"
	_, err := cp.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cp.Client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cp.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	// the authorizer's cache takes the binding within a moment
	time.Sleep(500 * time.Millisecond)
	return itest.ServiceAccountKubeconfig(t, cp, t.TempDir(), ns, name)
}
