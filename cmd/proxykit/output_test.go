package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
)

// Every command checks its word flags the same way, naming the flag and its choices.
func TestChoiceFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "-o", "yaml", "-"}, `-o: "yaml" is not one of text, json`},
		{[]string{"explain", "--no-proxy", "a", "-o", "yaml", "x"}, `-o: "yaml" is not one of text, json`},
		{[]string{"env", "--format", "ini"}, `--format: "ini" is not one of dotenv, shell, systemd, yaml`},
		{[]string{"discover", "-o", "text"}, `-o: "text" is not one of yaml, json`},
		{[]string{"audit", "-o", "yaml"}, `-o: "yaml" is not one of text, json, policyreport, openreports`},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
	var out bytes.Buffer
	require.NoError(t, printJSON(&out, []proxytest.Finding(nil)))
	assert.Equal(t, "[]\n", out.String(), "an empty list, never null")
}
