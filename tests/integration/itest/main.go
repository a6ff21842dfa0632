//go:build integration

package itest

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// Main is every area's TestMain: it plays a role when the test binary was
// started as one, puts bin/ on PATH, refreshes the charts' library archives
// and runs the tests.
func Main(m *testing.M) {
	// the test binary also plays the echo server, the Go client, the node's and
	// the relay's helpers inside the network namespaces the tests make
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
	if err := updateChartDeps(chartDirsToUpdate()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// updateChartDeps runs helm dependency update in each dir, holding a lock in
// bin/: the areas' test binaries that go test runs side by side would
// otherwise rewrite the same charts/ folders at once.
func updateChartDeps(dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	lock, err := os.OpenFile(fixture.Path("bin", ".chart-deps.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	for _, dir := range dirs {
		cmd := exec.Command("helm", "dependency", "update", "--skip-refresh", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("helm dependency update %s: %v\n%s", dir, err, out)
		}
	}
	return nil
}

// chartDirsToUpdate are the charts whose library archive Main refreshes:
// every one, unless PROXYKIT_CHART_DEPS_FRESH says make has.
func chartDirsToUpdate() []string {
	if os.Getenv("PROXYKIT_CHART_DEPS_FRESH") == "1" {
		return nil
	}
	return fixture.ChartDirs()
}
