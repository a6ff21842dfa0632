//go:build integration

package itest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// JVMProperties starts the real JVM with JAVA_TOOL_OPTIONS and returns the system
// properties it read: how the JVM itself splits the value, quotes and all.
func JVMProperties(t *testing.T, javaToolOptions string) map[string]string {
	t.Helper()
	cmd := exec.Command("java", "-XshowSettings:properties", "-version")
	cmd.Env = append(os.Environ(), "JAVA_TOOL_OPTIONS="+javaToolOptions)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	props := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), " = "); ok {
			props[name] = value
		}
	}
	return props
}
