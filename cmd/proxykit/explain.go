package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
)

// runExplain prints, per target and client, whether the request goes direct or
// through the proxy under --no-proxy, and the entry that decided.
func newExplainCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain --no-proxy LIST [--client NAME]... [-o text|json] TARGET...",
		Short: "per target and client: direct or through the proxy, and the entry that matched",
	}
	list := cmd.Flags().String("no-proxy", "", "the NO_PROXY value to judge (required)")
	clientNames := cmd.Flags().StringArray("client", nil, clientList()+" (repeatable; default: all)")
	output := cmd.Flags().StringP("output", "o", "text", "text or json")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runExplain(cmd.Flags().Changed("no-proxy"), *list, *clientNames, *output, args, stdout)
	}
	return cmd
}

func runExplain(listSet bool, list string, clientNames []string, output string, targets []string, stdout io.Writer) error {
	if !listSet {
		return usagef("--no-proxy is required (the NO_PROXY value to judge; `proxykit noproxy -f values.yaml` prints the library's)")
	}
	if output != "text" && output != "json" {
		return usagef("-o: %q is not one of text, json", output)
	}
	if len(targets) == 0 {
		return usagef("name at least one TARGET (a URL or host[:port])")
	}
	clients := noproxy.Clients
	if len(clientNames) > 0 {
		clients = nil
		for _, name := range clientNames {
			c, err := noproxy.ParseClient(name)
			if err != nil {
				return usagef("--client: %v", err)
			}
			clients = append(clients, c)
		}
	}
	decisions := []noproxy.Decision{}
	for _, target := range targets {
		for _, c := range clients {
			d, err := noproxy.Decide(c, list, target)
			if err != nil {
				return usagef("%s", redactUserInfo(err.Error()))
			}
			d.Target = redactUserInfo(d.Target)
			decisions = append(decisions, d)
		}
	}
	if output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(decisions)
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TARGET\tCLIENT\tGOES\tENTRY")
	for _, d := range decisions {
		goes := "proxy"
		if d.Direct {
			goes = "direct"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Target, d.Client, goes, d.Entry)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	// what the JVM cannot be told goes through the proxy: say which entries and why
	if slices.Contains(clients, noproxy.Java) {
		skipped, err := noproxy.JavaNotExpressed(list)
		if err != nil {
			return usagef("%v", err)
		}
		for _, s := range skipped {
			fmt.Fprintf(stdout, "java: %s is not in http.nonProxyHosts: %s\n", redactUserInfo(s.Entry), s.Reason)
		}
	}
	return nil
}

// clientList is "go, curl, ... or node".
func clientList() string {
	names := make([]string, len(noproxy.Clients))
	for i, c := range noproxy.Clients {
		names[i] = string(c)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// redactUserInfo hides user-info: nothing that looks like a password is echoed.
func redactUserInfo(s string) string { return proxytest.RedactUserInfo(s) }
