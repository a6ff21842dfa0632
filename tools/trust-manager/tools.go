//go:build tools

// Package tools pins trust-manager, which `make tools` builds so the tests run
// its controller against the loopback kube-apiserver: it turns cluster-proxy's
// Bundle into the ConfigMap every Pod mounts.
package tools

import _ "github.com/cert-manager/trust-manager/cmd/trust-manager"
