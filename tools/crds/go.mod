// Module crds pins the modules whose CustomResourceDefinitions the tests apply to
// the loopback kube-apiserver: Cluster API's Cluster and Calico's IPPool, the
// sources `proxykit discover` reads. Nothing here is built.
module github.com/proxykit/proxykit/tools/crds

go 1.26.0

require (
	github.com/projectcalico/calico v1.11.0-cni-plugin.0.20250813170300-a0db560f0520
	sigs.k8s.io/cluster-api v1.14.2
)
