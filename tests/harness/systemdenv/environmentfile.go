package systemdenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// generator is systemd's environment.d generator (Debian's systemd package),
// which reads KEY=VALUE files with the parser EnvironmentFile= uses.
const generator = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"

// EnvironmentFile is what systemd reads from an environment file (RKE2's
// /etc/default/rke2-server, k3s's k3s.service.env), through systemd's own
// parser: the environment.d generator, which loads a file as EnvironmentFile=
// loads it. environment.d then expands $VAR, which EnvironmentFile= does not,
// so a file with a "$" cannot be read faithfully here: the test fails rather
// than judge it wrong. A line systemd refuses is missing from the result.
func EnvironmentFile(t testing.TB, text string) map[string]string {
	t.Helper()
	if strings.Contains(text, "$") {
		t.Fatalf("the file holds a $, which environment.d expands and EnvironmentFile= does not: no faithful reading here")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "environment.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "environment.d", "proxy.conf"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(generator)
	cmd.Env = []string{"XDG_CONFIG_HOME=" + dir}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v (`make debian-packages` installs systemd)", generator, err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, value, ok := strings.Cut(line, "="); ok {
			env[name] = unquote(value)
		}
	}
	return env
}

// unquote reads a value as the generator prints it: as is, or in double
// quotes with a backslash before ", \, $ and `.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		if v[i] == '\\' && i+1 < len(v)-1 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
