//go:build integration

// Package itest holds what more than one area of the integration suites uses:
// releases installed and objects read on a loopback control plane, Kyverno
// started out of cluster, the proxykit and helm CLIs, the node's and the
// relay's helpers, and Main, every area's TestMain, which also plays the roles
// the test binaries take inside network namespaces. What one area alone uses
// stays in its package; the control plane, processes and namespaces themselves
// are tests/harness's.
package itest
