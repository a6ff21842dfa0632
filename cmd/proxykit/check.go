package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/rules"
)

// checkOptions are the flags of `proxykit check`, which reads rendered manifests
// from FILE or standard input ("-" or none) and prints rules.Check's findings;
// cluster facts come from the values.
type checkOptions struct {
	streams
	values    *valueFlags
	output    *choiceFlag
	namespace string
	file      string // "": standard input
	budget    int    // --no-proxy-budget, 0: what one environment string holds
}

func newCheckCmd(s streams) *cobra.Command {
	o := &checkOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "check [-f VALUES]... [--set K=V]... [--chart DIR] [-n NS] [--no-proxy-budget N] [-o text|json] [FILE|-]",
		Short: "check rendered manifests (helm template ... | proxykit check -f v.yaml -)",
		Args:  oneFileArg,
		RunE:  runE(o),
	}
	o.values = addValueFlags(cmd.Flags())
	o.output = addOutputFlag(cmd.Flags(), "text or json", "text", "json")
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "", "the release namespace, where objects without one are (default $HELM_NAMESPACE): release-service-proxied then judges name.namespace too")
	cmd.Flags().IntVar(&o.budget, "no-proxy-budget", 0, "no-proxy-too-long's budget for NO_PROXY, in characters (default: what one environment string holds; 1023 where pam_env reads it, 2047 for Ignition)")
	cmd.Flags().StringVar(&o.values.chart, "chart", "", "the chart the manifests were rendered from: its values.yaml (and its subcharts' defaults) under -f and --set, as helm template reads them")
	return cmd
}

func (o *checkOptions) complete(_ *cobra.Command, args []string) error {
	o.file = fileArg(args)
	o.namespace = firstOf(o.namespace, os.Getenv("HELM_NAMESPACE"))
	return nil
}

func (o *checkOptions) validate() error {
	if o.budget < 0 {
		return usagef("--no-proxy-budget: %d is not a length: give a number of characters above 0", o.budget)
	}
	return o.output.validate()
}

func (o *checkOptions) run(context.Context) error {
	text, err := readManifests(o.file, o.In)
	if err != nil {
		return err
	}
	m, err := manifest.Parse(string(text))
	if err != nil {
		return usagef("%v", err)
	}
	m.Namespace = o.namespace
	if len(m.Objects) == 0 {
		return usagef("the input holds no Kubernetes object: pass the output of `helm template` (or `kubectl get -o yaml`), a file or - for standard input")
	}
	vals, err := o.values.merged()
	if err != nil {
		return err
	}
	cluster, err := manifest.ClusterFromValues(vals)
	if err != nil {
		return usagef("%v", err)
	}
	// the library has checked cluster.requireNetworks is a bool
	if len(cluster.PodCIDRs)+len(cluster.ServiceCIDRs) == 0 && dig(vals, "cluster", "requireNetworks") != false {
		return usagef("the values name no pod and no service network, so no-proxy-gap could judge no cluster address: " +
			"pass the cluster's values with -f (cluster.podCIDRs, cluster.serviceCIDRs; `proxykit discover` reads them from a cluster), " +
			"or --set cluster.requireNetworks=false to check without them")
	}
	variables, err := manifest.VariablesFromValues(vals)
	if err != nil {
		return usagef("%v", err)
	}
	findings := rules.Check(m, rules.WithCluster(cluster), rules.ExpectVariables(variables), rules.NoProxyBudget(o.budget))
	if o.output.value == "json" {
		if err := printJSON(o.Out, findings); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(o.Out, f)
		}
		fmt.Fprintf(o.Out, "%d containers checked, %d findings\n", len(m.Containers()), len(findings))
	}
	if len(findings) > 0 {
		return errFindings
	}
	return nil
}

// dig reads a nested value; nil when any step is missing.
func dig(values map[string]any, keys ...string) any {
	var node any = values
	for _, k := range keys {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[k]
	}
	return node
}

// firstOf is the first non-empty string.
func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
