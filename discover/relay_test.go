package discover

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// A proxy-relay release's Service is the cluster's relay; a second one is
// warned about, a Service without a proxy port is none.
func TestRelayFromItsService(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		calicoIPPools: "IPPoolList", openShiftNetwork: "NetworkList",
	})
	relay := func(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/name": "proxy-relay"}},
			Spec: corev1.ServiceSpec{Ports: ports}}
	}
	client := fake.NewClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config", Namespace: "kube-system"},
			Data: map[string]string{"ClusterConfiguration": "networking:\n  serviceSubnet: 10.96.0.0/12\n"}},
		relay("proxy-relay", "relay", corev1.ServicePort{Name: "proxy", Port: 3128}, corev1.ServicePort{Name: "metrics", Port: 9090}),
		relay("zz-other", "relay2", corev1.ServicePort{Name: "proxy", Port: 8080}),
		relay("aa-broken", "nope", corev1.ServicePort{Name: "a", Port: 1}, corev1.ServicePort{Name: "b", Port: 2}),
	)
	res, err := discoverWith(context.Background(), client, dyn, Options{})
	require.NoError(t, err)
	assert.Equal(t, "http://relay.proxy-relay.svc.cluster.local:3128", res.Cluster.Relay)
	assert.Equal(t, []string{"Service proxy-relay/relay"}, res.Sources["relay"])
	assert.Contains(t, res.Warnings, "proxy.relay: Service proxy-relay/relay and Service zz-other/relay2 are both relays; the first is used")
	assert.Contains(t, res.Warnings, "proxy.relay: Service aa-broken/nope has no port named proxy")
}
