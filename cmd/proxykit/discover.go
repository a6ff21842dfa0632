package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/manifest"
)

// clusterFlags are kubectl's: --kubeconfig, --context, -n/--namespace and the
// rest of genericclioptions.ConfigFlags, read as kubectl reads them.
func clusterFlags(cmd *cobra.Command) *genericclioptions.ConfigFlags {
	flags := genericclioptions.NewConfigFlags(true)
	// an API server that accepts and never answers must end in exit 2, not a wait
	// without end: every request gets this long unless --request-timeout says otherwise
	*flags.Timeout = defaultRequestTimeout
	flags.AddFlags(cmd.Flags())
	return flags
}

// defaultRequestTimeout bounds each request to the cluster.
const defaultRequestTimeout = "30s"

func newDiscoverCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "discover [--kubeconfig F] [--context C] [--capi-cluster NS/NAME] [-o yaml|json]",
		Short: "read the cluster facts (pod and service networks, API server, domain) from a live cluster, as values",
		Args:  noArgs,
	}
	kube := clusterFlags(cmd)
	output := addOutputFlag(cmd.Flags(), "yaml (a values file for -f) or json", "yaml", "json")
	capi := cmd.Flags().String("capi-cluster", "", "NAMESPACE/NAME of a Cluster API Cluster: the workload cluster's facts, from a management cluster")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := output.validate(); err != nil {
			return err
		}
		config, err := kube.ToRESTConfig()
		if err != nil {
			return usagef("%v", err)
		}
		res, err := discover.Discover(cmd.Context(), config, discover.Options{CAPICluster: *capi})
		if res == nil { // unreachable, or --capi-cluster names no Cluster
			return usagef("%v", err)
		}
		if output.value == "json" {
			if err := printJSON(stdout, res); err != nil {
				return err
			}
		} else {
			writeValues(stdout, config.Host, res)
			for _, w := range res.Warnings {
				fmt.Fprintf(stderr, "warning: %s\n", comment(w))
			}
		}
		if err != nil {
			return usagef("%v", err)
		}
		return nil
	}
	return cmd
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
	for _, warning := range res.Warnings {
		fmt.Fprintf(w, "# warning: %s\n", comment(warning))
	}
}

// comment makes text from the cluster safe in a YAML comment: it must stay on
// its line, so every rune that is not printable (line breaks, and U+0085,
// U+2028 and U+2029, which YAML 1.1 parsers such as Helm's also break lines
// at) is written as its Go escape. Values are written JSON-quoted, as data.
func comment(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}
