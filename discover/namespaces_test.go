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

// Only the namespaces named like top-level domains become a fact
// (cluster.namespaces): every other name.namespace needs none.
func TestNamespacesNamedLikeTopLevelDomains(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		calicoIPPools: "IPPoolList", openShiftNetwork: "NetworkList",
	})
	objects := []runtime.Object{&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"}}}}
	for _, ns := range []string{"default", "kube-system", "security", "storage", "airflow", "monitoring", "shop"} {
		objects = append(objects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	res, err := discoverWith(context.Background(), fake.NewClientset(objects...), dyn, Options{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"security", "storage", "shop"}, res.Cluster.Namespaces)
	assert.Equal(t, []string{"the Namespaces named like top-level domains"}, res.Sources["namespaces"])
}
