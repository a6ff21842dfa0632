package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/manifest"
)

// discoverOptions are the flags of `proxykit discover`, which prints a live
// cluster's facts as a values file (or JSON).
type discoverOptions struct {
	streams
	kube   *genericclioptions.ConfigFlags
	output *choiceFlag
	capi   string
}

func newDiscoverCmd(s streams) *cobra.Command {
	o := &discoverOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "discover [--kubeconfig F] [--context C] [--capi-cluster NS/NAME] [-o yaml|json]",
		Short: "read the cluster facts (pod and service networks, API server, domain) from a live cluster, as values",
		Args:  noArgs,
		RunE:  runE(o),
	}
	o.kube = clusterFlags(cmd)
	o.output = addOutputFlag(cmd.Flags(), "yaml (a values file for -f) or json", "yaml", "json")
	cmd.Flags().StringVar(&o.capi, "capi-cluster", "", "NAMESPACE/NAME of a Cluster API Cluster: the workload cluster's facts, from a management cluster")
	return cmd
}

func (o *discoverOptions) complete(*cobra.Command, []string) error { return nil }
func (o *discoverOptions) validate() error                         { return o.output.validate() }

func (o *discoverOptions) run(ctx context.Context) error {
	config, err := o.kube.ToRESTConfig()
	if err != nil {
		return usagef("%v", err)
	}
	res, err := discover.Discover(ctx, config, discover.Options{CAPICluster: o.capi})
	if res == nil { // unreachable, or --capi-cluster names no Cluster
		return usagef("%v", flagError(err))
	}
	if o.output.value == "json" {
		if err := printJSON(o.Out, res); err != nil {
			return err
		}
	} else {
		writeValues(o.Out, config.Host, res)
		for _, w := range res.Warnings {
			fmt.Fprintf(o.ErrOut, "warning: %s\n", comment(w))
		}
	}
	if err != nil {
		return usagef("%v", err)
	}
	return nil
}

// writeValues prints the facts as a values file with a comment per fact naming
// where it came from, and the warnings as comments at the end.
func writeValues(w io.Writer, host string, res *discover.Result) {
	from := func(key string) string {
		if s := res.Sources[key]; len(s) > 0 {
			return "  # from " + comment(strings.Join(s, "; "))
		}
		return "  # assumed: see the warnings"
	}
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	list := func(key string, items []string) {
		if len(items) == 0 {
			fmt.Fprintf(w, "  %s: []%s\n", key, from(key))
			return
		}
		fmt.Fprintf(w, "  %s:%s\n", key, from(key))
		for _, item := range items {
			fmt.Fprintf(w, "    - %s\n", quote(item))
		}
	}
	c := res.Cluster
	fmt.Fprintf(w, "# proxykit discover: the cluster facts of %s\ncluster:\n", comment(manifest.RedactUserInfo(host)))
	fmt.Fprintf(w, "  domain: %s%s\n", quote(c.Domain), from("domain"))
	list("podCIDRs", c.PodCIDRs)
	list("serviceCIDRs", c.ServiceCIDRs)
	fmt.Fprintf(w, "  nodeCIDRs: []  # not in the Kubernetes API: see the warnings\n")
	if c.APIServer != "" {
		fmt.Fprintf(w, "  apiServer: %s%s\n", quote(c.APIServer), from("apiServer"))
	}
	metadata := "  # the clouds' metadata addresses stay off the proxy"
	if s := res.Sources["metadataEndpoints"]; len(s) > 0 {
		metadata = from("metadataEndpoints")
	}
	fmt.Fprintf(w, "  metadataEndpoints: %t%s\n", c.Metadata, metadata)
	if len(c.Namespaces) > 0 {
		list("namespaces", c.Namespaces)
	}
	if c.Relay != "" {
		fmt.Fprintf(w, "# a relay holds the corporate proxy's credentials: Pods use it with none\nproxy:\n  relay: %s%s\n", quote(c.Relay), from("relay"))
	}
	for _, warning := range res.Warnings {
		fmt.Fprintf(w, "# warning: %s\n", comment(warning))
	}
}
