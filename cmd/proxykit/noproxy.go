package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit"
)

// noProxyOptions are the flags of `proxykit noproxy`, which prints the NO_PROXY
// the library renders for the values.
type noProxyOptions struct {
	streams
	values *valueFlags
}

func newNoProxyCmd(s streams) *cobra.Command {
	o := &noProxyOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "noproxy [-f VALUES]... [--set K=V]...",
		Short: "the NO_PROXY the library renders for these values",
		Args:  noArgs,
		RunE:  runE(o),
	}
	o.values = addValueFlags(cmd.Flags())
	return cmd
}

func (o *noProxyOptions) complete(*cobra.Command, []string) error { return nil }
func (o *noProxyOptions) validate() error                         { return nil }

func (o *noProxyOptions) run(context.Context) error {
	out, err := include(o.values, "proxykit.proxy.noProxy")
	if err != nil {
		return err
	}
	if out == "" {
		return usagef("the proxy is off: set proxy.http or proxy.https (or cluster.proxy.*, global.proxy.*)")
	}
	_, err = io.WriteString(o.Out, out+"\n")
	return err
}

// include renders a library helper with the values from the flags; a value the
// library rejects is a usage error whose message names the key.
func include(v *valueFlags, helper string) (string, error) {
	vals, err := v.merged()
	if err != nil {
		return "", err
	}
	answers, err := proxykit.Ask(vals, "", "", proxykit.Call{Helper: helper})
	if err != nil {
		return "", usagef("%v", err)
	}
	return answers[helper], nil
}
