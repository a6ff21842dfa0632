package discover

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"

	"github.com/proxykit/proxykit/cluster"
)

// namespaces are the cluster's namespaces whose names are top-level domains too
// (security, storage, dev): a call to name.namespace into one of them counts
// as the cluster's only when the facts name the namespace (cluster.namespaces);
// every other name.namespace needs no fact. A list a page at a time, names only.
func (r *reader) namespaces() finding {
	found := finding{source: "the Namespaces named like top-level domains"}
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().Namespaces().List(ctx, o)
	})
	err := p.EachListItem(r.ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		if ns := obj.(*corev1.Namespace).Name; cluster.PublicSuffix(ns) == cluster.SuffixICANN {
			found.values = append(found.values, ns)
		}
		return nil
	})
	if r.skip(err, "Namespaces") {
		return finding{}
	}
	return found
}
