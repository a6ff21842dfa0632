//go:build integration

// Package node is the integration suites' node area: the nodes: systemd's reading of the drop-ins, containerd and a kubelet
// started with them, Pods and image pulls through the proxy and the relay,
// trust-manager's bundle and the ClusterTrustBundle on the API server.
//
// It needs the binaries `make tools` builds into bin/. Run only it with
// `make suite AREA=node`, or `go test -tags integration ./tests/integration/node/`;
// `make test` runs it beside the other areas, their tests sharing one set of
// slots (tests/harness/slots).
package node
