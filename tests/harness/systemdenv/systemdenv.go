// Package systemdenv reads a systemd drop-in as systemd loads it: the
// environment a unit with that drop-in gets. The node suites and
// tests/distros judge every drop-in they render through it, so what a node
// would see is what they check, quoting and escapes included.
package systemdenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Environment is the environment systemd gives a unit with dropIn, as
// `systemd-analyze verify` loads it, and systemd's log of the load (its
// warnings name what it rejected).
func Environment(t testing.TB, dropIn string) (map[string]string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"proxied.service":                   "[Unit]\nDescription=proxied\n[Service]\nExecStart=/bin/true\n",
		"proxied.service.d/http-proxy.conf": dropIn,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("systemd-analyze", "verify", "--man=no", "./proxied.service")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_LEVEL=debug")
	var stdout, stderr strings.Builder // the unit as loaded on stdout, the log on stderr
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, stderr.String())
	}
	got := map[string]string{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if kv, ok := strings.CutPrefix(strings.TrimSpace(line), "Environment: "); ok {
			name, value, _ := strings.Cut(kv, "=")
			got[name] = value
		}
	}
	return got, stderr.String()
}
