// Package harness starts what the integration suites run against, as
// Kubernetes' test/integration/framework does for its own: a control plane
// (etcd and kube-apiserver on loopback, from bin/), processes that die with
// the test, private network namespaces with an echo server inside, and the
// roles the test binary plays in them (Main). Package systemdenv beside it
// reads a drop-in as systemd does, for the node suites and tests/distros.
//
// Nothing here reaches beyond loopback or a namespace the test made.
package harness
