package main

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile passwords in the proxy URL, through `env --format shell` and the dotenv
// default, sourced by the shells machines run: each is either refused naming the
// key (and never shown), or read back byte for byte with nothing executed.
func TestEnvOutputIsInertInShells(t *testing.T) {
	shells := []string{"bash"}
	if _, err := exec.LookPath("sh"); err == nil {
		shells = append(shells, "sh") // dash on Debian
	}
	refused, sourced := 0, 0
	defer func() {
		t.Logf("%d passwords refused naming the key, %d sourced byte-exact with nothing executed", refused, sourced)
		assert.NotZero(t, refused, "the table holds passwords a URL cannot carry raw")
		assert.NotZero(t, sourced, "and passwords that reach the shells")
	}()
	for _, password := range []string{
		"$(touch PWNED)", "`touch PWNED`", "a'$(touch PWNED)'b", "x;touch PWNED", "x&&touch PWNED", "x|touch PWNED",
		"$HOME", "${HOME}", "!!", "*", "~root", "%24(touch%20PWNED)", "it's", "''", "a'\\''b",
		"\\", "\"", "a\nb", "\x00", "a b",
	} {
		t.Run(url.QueryEscape(password), func(t *testing.T) {
			dir := t.TempDir()
			proxyURL := "http://u:" + password + "@proxy.corp:3128"
			values := filepath.Join(dir, "v.yaml")
			require.NoError(t, os.WriteFile(values, []byte("proxy: {http: "+yamlString(proxyURL)+"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n"), 0o600))
			code, shellOut, stderr := runCLI(t, "", "env", "-f", values, "--format", "shell")
			if code != 0 {
				refused++
				assert.Equal(t, 2, code)
				assert.Contains(t, stderr, "proxy.http", "a refusal names the key")
				if len(password) > 2 {
					assert.NotContains(t, stderr, password, "and never shows the password")
				}
				return
			}
			sourced++
			_, dotenv, _ := runCLI(t, "", "env", "-f", values)
			for _, shell := range shells {
				for name, script := range map[string]string{"shell": shellOut, "dotenv": "set -a\n" + dotenv} {
					cmd := exec.Command(shell, "-c", script+"\nprintf %s \"$HTTP_PROXY\"")
					cmd.Dir = dir
					out, err := cmd.Output()
					require.NoError(t, err, "%s sourcing the %s format", shell, name)
					assert.Equal(t, proxyURL, string(out), "%s reads the %s format back byte for byte", shell, name)
					assert.NoFileExists(t, filepath.Join(dir, "PWNED"), "%s executed part of the %s format", shell, name)
				}
			}
		})
	}
}

// yamlString quotes s for a YAML flow scalar (double-quoted, escapes as JSON's).
func yamlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString("\\" + string(r))
		case r == '\n':
			b.WriteString("\\n")
		case r < 0x20:
			b.WriteString("\\x" + strings.ToUpper(string("0123456789abcdef"[r>>4])+string("0123456789abcdef"[r&15])))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
