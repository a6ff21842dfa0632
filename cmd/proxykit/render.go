package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit"
)

// include renders a library helper with the values from the flags; a value the
// library rejects is a usage error whose message names the key.
func include(v *valueFlags, helper string) (string, error) {
	vals, err := v.merged()
	if err != nil {
		return "", err
	}
	out, err := proxykit.Include(helper, vals)
	if err != nil {
		return "", usagef("%v", err)
	}
	return out, nil
}

func newNoProxyCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "noproxy [-f VALUES]... [--set K=V]...",
		Short: "the NO_PROXY the library renders for these values",
		Args:  noArgs,
	}
	v := addValueFlags(cmd.Flags())
	cmd.RunE = func(*cobra.Command, []string) error {
		out, err := include(v, "proxykit.proxy.noProxy")
		if err != nil {
			return err
		}
		if out == "" {
			return usagef("the proxy is off: set proxy.http or proxy.https (or cluster.proxy.*, global.proxy.*)")
		}
		_, err = io.WriteString(stdout, out+"\n")
		return err
	}
	return cmd
}
