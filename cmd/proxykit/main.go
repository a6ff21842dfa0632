// Command proxykit renders what the proxykit library derives from a chart's
// values, audits rendered manifests, and reads and audits live clusters. The
// same binary is the kubectl plugin `kubectl proxykit` when installed as
// kubectl-proxykit.
//
//	proxykit noproxy [-f VALUES]... [--set K=V]...
//	proxykit env [-f VALUES]... [--set K=V]... [--format dotenv|shell|systemd|yaml]
//	proxykit check [-f VALUES]... [--set K=V]... [-o text|json] [FILE|-]
//	proxykit explain --no-proxy LIST [--client NAME]... [-o text|json] TARGET...
//	proxykit discover [--kubeconfig F] [--context C] [--capi-cluster NS/NAME] [-o yaml|json]
//	proxykit audit [--kubeconfig F] [--context C] [-n NS | -A] [-f VALUES]... [-o text|json|policyreport|openreports]
//	proxykit rollout [--kubeconfig F] [--context C] [-n NS | -A] [-l SELECTOR] [-f VALUES]... [--apply] [--max-owners N]
//	proxykit inject [-f VALUES]... [--set K=V]... [-n NS] [--release NAME] [FILE|-]
//
// Exit status: 0 clean, 1 findings (check, audit), 2 bad input, usage or an
// unreachable cluster.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/manifest"
)

// usageError is bad input or usage: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errFindings ends `check` and `audit` with exit status 1 after printing their findings.
var errFindings = errors.New("findings")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// displayName is how the command names itself: "kubectl proxykit" when kubectl
// runs it as the plugin kubectl-proxykit.
func displayName() string {
	if strings.HasPrefix(filepath.Base(os.Args[0]), "kubectl-") {
		return "kubectl proxykit"
	}
	return "proxykit"
}

// newRootCmd builds the command tree; every command writes to the given streams.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "proxykit",
		Short: "what the proxykit library derives from a chart's values, an audit of rendered manifests and of live clusters",
		Long: "proxykit: what the proxykit library derives from a chart's values, an audit of rendered manifests and of live clusters.\n\n" +
			"Exit status: 0 clean, 1 findings (check, audit), 2 bad input, usage or an unreachable cluster.",
		Annotations:       map[string]string{cobra.CommandDisplayNameAnnotation: displayName()},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	s := streams{In: stdin, Out: stdout, ErrOut: stderr}
	root.AddCommand(newNoProxyCmd(s), newEnvCmd(s), newCheckCmd(s), newExplainCmd(s), newDiscoverCmd(s), newAuditCmd(s), newRolloutCmd(s), newInjectCmd(s))
	// flag errors name the flag: usage errors, exit 2
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef("%v", err) })
	return root
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	if len(args) == 0 {
		root.SetOut(stderr)
		_ = root.Usage()
		return 2
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errFindings):
		return 1
	}
	name := displayName()
	if cmd != nil && cmd != root {
		name += " " + cmd.Name()
	}
	// one redaction for every message, from any layer: a kubeconfig's server URL,
	// a values file's proxy URL or a cluster object may carry user-info
	fmt.Fprintf(stderr, "%s: %s\n", name, manifest.RedactUserInfo(err.Error()))
	if cmd == nil || cmd == root {
		root.SetOut(stderr)
		_ = root.Usage()
	}
	return 2
}
