package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/noproxy"
)

// explainOptions are the flags of `proxykit explain`, which prints, per target and
// client, whether the request goes direct or through the proxy under --no-proxy,
// and the entry that decided.
type explainOptions struct {
	streams
	noProxy     string
	noProxySet  bool
	clientNames []string
	output      *choiceFlag
	targets     []string
}

func newExplainCmd(s streams) *cobra.Command {
	o := &explainOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "explain --no-proxy LIST [--client NAME]... [-o text|json] TARGET...",
		Short: "per target and client: direct or through the proxy, and the entry that matched",
		RunE:  runE(o),
	}
	cmd.Flags().StringVar(&o.noProxy, "no-proxy", "", "the NO_PROXY value to judge (required)")
	cmd.Flags().StringArrayVar(&o.clientNames, "client", nil, clientList()+" (repeatable; default: all)")
	o.output = addOutputFlag(cmd.Flags(), "text or json", "text", "json")
	return cmd
}

func (o *explainOptions) complete(cmd *cobra.Command, args []string) error {
	o.noProxySet, o.targets = cmd.Flags().Changed("no-proxy"), args
	return nil
}

func (o *explainOptions) validate() error {
	if !o.noProxySet {
		return usagef("--no-proxy is required (the NO_PROXY value to judge; `proxykit noproxy -f values.yaml` prints the library's)")
	}
	if err := o.output.validate(); err != nil {
		return err
	}
	if len(o.targets) == 0 {
		return usagef("name at least one TARGET (a URL or host[:port])")
	}
	return nil
}

func (o *explainOptions) run(context.Context) error {
	clients := slices.Concat(noproxy.Clients, noproxy.OtherClients)
	if len(o.clientNames) > 0 {
		clients = nil
		for _, name := range o.clientNames {
			c, err := noproxy.ParseClient(name)
			if err != nil {
				return usagef("--client: %v", err)
			}
			clients = append(clients, c)
		}
	}
	decisions := []noproxy.Decision{}
	for _, target := range o.targets {
		for _, c := range clients {
			d, err := noproxy.Decide(c, target, noproxy.NoProxy(o.noProxy))
			if err != nil {
				return usagef("%s", redactUserInfo(err.Error()))
			}
			d.Target = redactUserInfo(d.Target)
			decisions = append(decisions, d)
		}
	}
	if o.output.value == "json" {
		return printJSON(o.Out, decisions)
	}
	w := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TARGET\tCLIENT\tGOES\tENTRY")
	for _, d := range decisions {
		goes, entry := "proxy", d.Entry
		switch {
		case d.Direct:
			goes = "direct"
		case d.Refused != "":
			goes, entry = "refused", redactUserInfo(d.Refused)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Target, d.Client, goes, entry)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	// what the JVM cannot be told goes through the proxy: say which entries and why
	if slices.Contains(clients, noproxy.Java) {
		skipped, err := noproxy.JavaNotExpressed(o.noProxy)
		if err != nil {
			return usagef("%v", err)
		}
		for _, s := range skipped {
			fmt.Fprintf(o.Out, "java: %s is not in http.nonProxyHosts: %s\n", redactUserInfo(s.Entry), s.Reason)
		}
	}
	return nil
}

// clientList is "go, curl, ... or fabric8".
func clientList() string {
	clients := slices.Concat(noproxy.Clients, noproxy.OtherClients)
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = string(c)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
