package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExplainJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "explain", "--no-proxy", "10.0.0.0/8,[::1]", "-o", "json", "--client", "wget", "--client", "python-urllib", "http://10.1.2.3", "http://[::1]:8080")
	require.Equal(t, 0, code)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, []map[string]any{
		{"target": "http://10.1.2.3", "client": "wget", "direct": false, "entry": ""},
		{"target": "http://10.1.2.3", "client": "python-urllib", "direct": false, "entry": ""},
		{"target": "http://[::1]:8080", "client": "wget", "direct": false, "entry": ""},
		{"target": "http://[::1]:8080", "client": "python-urllib", "direct": true, "entry": "[::1]"},
	}, got)
}

func TestExplainNeverEchoesUserInfo(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		code, stdout, stderr := runCLI(t, "", "explain", "--no-proxy", "localhost", "-o", format, "http://svc:S3cretPW@proxy.corp.example:3128/x")
		assert.Equal(t, 0, code, stderr)
		assert.NotContains(t, stdout+stderr, "S3cretPW")
		assert.Contains(t, stdout, "http://***@proxy.corp.example:3128/x")
	}
}
