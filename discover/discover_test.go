package discover

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// OpenShift's Network config is read here through client-go's fakes: no module
// the project can download ships its CRD, which the live tests of
// tests/integration (every other source, on a real API server) would need.
func TestOpenShiftNetwork(t *testing.T) {
	network := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "Network", "metadata": map[string]any{"name": "cluster"},
		"spec": map[string]any{
			"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": int64(23)}, map[string]any{"cidr": "fd01::/48", "hostPrefix": int64(64)}},
			"serviceNetwork": []any{"172.30.0.0/16", "fd02::/112"},
		}}}
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		calicoIPPools: "IPPoolList", openShiftNetwork: "NetworkList",
	}, network)
	client := fake.NewClientset(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "172.30.0.1"}})
	res, err := discoverWith(context.Background(), client, dyn, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"10.128.0.0/14", "fd01::/48"}, res.Cluster.PodCIDRs)
	assert.Equal(t, []string{"172.30.0.0/16", "fd02::/112"}, res.Cluster.ServiceCIDRs)
	assert.Equal(t, []string{"Network.config.openshift.io cluster"}, res.Sources["podCIDRs"])
	assert.Equal(t, "172.30.0.1", res.Cluster.APIServer)
}

// A source that holds no network leaves Discover with an error that says so,
// and the warnings it gathered.
func TestNoNetworkIsAnError(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		calicoIPPools: "IPPoolList", openShiftNetwork: "NetworkList",
	})
	client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Namespace: "kube-system"},
		Data: map[string]string{"cluster-pool-ipv4-cidr": "10.0.0.0/33"}})
	res, err := discoverWith(context.Background(), client, dyn, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no source named a pod or a service network")
	assert.Contains(t, res.Warnings, `ConfigMap kube-system/cilium-config: cluster-pool-ipv4-cidr/ipv6-cidr "10.0.0.0/33" is not a CIDR; left out`)
}

// A providerID is text a kubelet writes: one that names no cloud (here with a
// line break and YAML after it) is warned about, quoted, and never becomes a source.
func TestHostileProviderIDIsNoSource(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		calicoIPPools: "IPPoolList", openShiftNetwork: "NetworkList",
	})
	for _, id := range []string{"aws\nproxy:\n  http: http://evil.example:3128\n#://i-1", "aws\u2028proxy: {http: http://evil.example:3128}\u2028#://i-1", "aws\u0085x://i-1"} {
		client := fake.NewClientset(
			&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.1.0/24"}, ProviderID: id}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1"}})
		res, err := discoverWith(context.Background(), client, dyn, Options{})
		require.NoError(t, err)
		assert.Empty(t, res.Sources["metadataEndpoints"], "%q", id)
		assert.Contains(t, res.Warnings, fmt.Sprintf("Node n1: spec.providerID %q names no cloud provider; it is not read", id))
	}
}

// A fact no source names is said so in a warning, which the values file's
// "see the warnings" comment points at (issue 36).
func TestAMissingFactIsWarnedAbout(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		calicoIPPools: "IPPoolList", openShiftNetwork: "NetworkList",
	})
	client := fake.NewClientset(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config", Namespace: "kube-system"},
			Data: map[string]string{"ClusterConfiguration": "networking:\n  serviceSubnet: 10.96.0.0/12\n"}})
	res, err := discoverWith(context.Background(), client, dyn, Options{})
	require.NoError(t, err)
	assert.Empty(t, res.Cluster.PodCIDRs)
	assert.Contains(t, res.Warnings, "cluster.podCIDRs: no source names it (kube-system/kubeadm-config, Calico IPPools, Cilium's cilium-config, OpenShift's Network, the Nodes' spec.podCIDRs); set it to the cluster's")
}

// A Cluster API Cluster without networks is warned about key by key, always in the
// same order (the pod network first), so that two runs print the same text.
func TestCAPIWarningsKeepTheirOrder(t *testing.T) {
	cluster := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	for range 20 {
		r := &reader{ctx: context.Background()}
		_, err := r.capiFacts("Cluster ns/c", cluster)
		require.EqualError(t, err, "Cluster ns/c names no pod or service network")
		assert.Equal(t, []string{
			"cluster.podCIDRs: Cluster ns/c sets no spec.clusterNetwork.pods.cidrBlocks",
			"cluster.serviceCIDRs: Cluster ns/c sets no spec.clusterNetwork.services.cidrBlocks",
			"cluster.domain: Cluster ns/c sets no spec.clusterNetwork.serviceDomain; cluster.local assumed (kubeadm's default)",
		}, r.warnings[:3])
	}
}
