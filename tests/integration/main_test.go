//go:build integration

// Package integration holds the slow suites: live control planes with Kyverno's
// controllers and the native policy, real NO_PROXY clients and proxies inside a
// private network namespace, an OCI registry, `go install`, and the helm CLIs
// (lint, Helm 3 and 4, the CLI against proxytest's in-process render). They need
// the binaries `make tools` builds into bin/.
package integration

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

func TestMain(m *testing.M) {
	// the test binary also plays the echo server and the Go client inside the
	// network namespace of TestNoProxyModelsMatchRealClients
	if role := os.Getenv(harness.RoleVar); role != "" {
		os.Exit(playRole(role))
	}
	// The helm CLI that terratest drives is the one `make tools` builds from go.mod.
	os.Setenv("PATH", fixture.Path("bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := exec.LookPath("helm"); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: helm is not on PATH; run `make tools` to build bin/helm")
		os.Exit(1)
	}
	// the helm CLI renders from each chart's charts/ folder: refresh the library
	// there, unless make did before any test binary started (the render tests
	// read the same folders at the same time)
	for _, dir := range chartDirsToUpdate() {
		cmd := exec.Command("helm", "dependency", "update", "--skip-refresh", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: helm dependency update %s: %v\n%s", dir, err, out)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// chartDirsToUpdate are the charts whose library archive TestMain refreshes:
// every one, unless PROXYKIT_CHART_DEPS_FRESH says make has.
func chartDirsToUpdate() []string {
	if os.Getenv("PROXYKIT_CHART_DEPS_FRESH") == "1" {
		return nil
	}
	return fixture.ChartDirs()
}
