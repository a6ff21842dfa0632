package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const (
	eks        = "../../examples/providers/eks.yaml"
	mgmt       = "../../examples/providers/mgmt-credentials.yaml"
	eksNoProxy = "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.0.0.0/8,172.20.0.0/16,172.20.0.1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,internal,.internal,eks.amazonaws.com,.eks.amazonaws.com,registry.corp.example,[::1],[fd00:ec2::254],[fd00:ec2::23]"
)

func TestCommands(t *testing.T) {
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string // each must appear
		stderr []string
	}{
		{"noproxy from a values file", "", []string{"noproxy", "-f", eks}, 0, []string{eksNoProxy + "\n"}, nil},
		{"noproxy with --set over the file", "", []string{"noproxy", "-f", eks, "--set", "cluster.metadataEndpoints=false"}, 0,
			[]string{"172.20.0.1,internal,.internal"}, nil},
		{"noproxy: a typo names the key", "", []string{"noproxy", "-f", eks, "--set", "cluster.podCIDR=10.0.0.0/8"}, 2, nil,
			[]string{"unknown key cluster.podCIDR (did you mean cluster.podCIDRs?)"}},
		{"noproxy: the proxy off", "", []string{"noproxy"}, 2, nil, []string{"the proxy is off"}},
		{"noproxy: a missing file", "", []string{"noproxy", "-f", "nope.yaml"}, 2, nil, []string{"nope.yaml"}},
		{"noproxy: an unknown flag", "", []string{"noproxy", "--value", "x"}, 2, nil, []string{"unknown flag: --value"}},
		{"env as dotenv, credentials kept for the machine", "", []string{"env", "-f", mgmt}, 0,
			[]string{"HTTP_PROXY=\"http://capi-mgmt:S3cr%40t&pass@proxy.corp.example:3128\"\n", "no_proxy=\"localhost,"}, nil},
		{"env as yaml", "", []string{"env", "-f", eks, "--format", "yaml"}, 0, []string{"HTTPS_PROXY: http://proxy.corp.example:3128\n", "no_proxy: localhost,"}, nil},
		{"env as a systemd drop-in", "", []string{"env", "-f", mgmt, "--format", "systemd"}, 0,
			[]string{"[Service]\n", `Environment="HTTP_PROXY=http://capi-mgmt:S3cr%%40t&pass@proxy.corp.example:3128"`}, nil},
		{"env: a bad format names the flag", "", []string{"env", "-f", eks, "--format", "ini"}, 2, nil, []string{`--format: "ini"`}},
		{"explain: a missing --no-proxy", "", []string{"explain", "x"}, 2, nil, []string{"--no-proxy is required"}},
		{"explain: no target", "", []string{"explain", "--no-proxy", "a"}, 2, nil, []string{"TARGET"}},
		{"explain: a table", "", []string{"explain", "--no-proxy", "*.corp.example,.corp.example", "--client", "go", "--client", "curl", "https://git.corp.example"}, 0,
			[]string{"https://git.corp.example  go      direct  *.corp.example", "https://git.corp.example  curl    direct  .corp.example"}, nil},
		{"unknown command", "", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`, "Usage:"}},
		{"no command", "", nil, 2, nil, []string{"Usage:", "proxykit check"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, want := range tc.stdout {
				assert.Contains(t, stdout, want)
			}
			for _, want := range tc.stderr {
				assert.Contains(t, stderr, want)
			}
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"noproxy", "--help"}, {"env", "-h"}, {"check", "--help"}, {"explain", "--help"}} {
		code, stdout, stderr := runCLI(t, "", args...)
		assert.Equal(t, 0, code, "%v: %s", args, stderr)
		assert.Contains(t, stdout, "proxykit", "%v prints its usage to stdout", args)
		assert.Empty(t, stderr, "%v", args)
	}
	_, stdout, _ := runCLI(t, "", "check", "--help")
	assert.Contains(t, stdout, "--values")
}
