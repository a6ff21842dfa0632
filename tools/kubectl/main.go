// Command kubectl is kubectl built from its Go module (k8s.io/kubectl), as
// Kubernetes' own cmd/kubectl builds it, so the tests run `kubectl proxykit`
// through a real kubectl's plugin handling.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewDefaultKubectlCommand()))
}
