package main

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// command is the shape of every proxykit command, as kubectl's: an options
// struct with the IOStreams, filled in by complete (defaults, arguments, the
// environment), checked by validate (before anything is read or asked), and
// run with the command's context. The logic a Go user would call lives in the
// packages; run only connects flags to them and prints.
type command interface {
	complete(cmd *cobra.Command, args []string) error
	validate() error
	run(ctx context.Context) error
}

// runE is a cobra RunE that takes o through complete, validate and run.
func runE(o command) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.complete(cmd, args); err != nil {
			return err
		}
		if err := o.validate(); err != nil {
			return err
		}
		return o.run(cmd.Context())
	}
}

// streams are a command's standard input, output and error.
type streams = genericiooptions.IOStreams

// Every command has the one shape.
var (
	_ command = (*noProxyOptions)(nil)
	_ command = (*envOptions)(nil)
	_ command = (*checkOptions)(nil)
	_ command = (*explainOptions)(nil)
	_ command = (*discoverOptions)(nil)
	_ command = (*auditOptions)(nil)
	_ command = (*rolloutOptions)(nil)
	_ command = (*injectOptions)(nil)
)
