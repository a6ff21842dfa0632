package main

import (
	"io"
	"strings"

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

func runNoProxy(args []string, _ io.Reader, stdout io.Writer) error {
	fs := flagSet("noproxy")
	v := addValueFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
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
