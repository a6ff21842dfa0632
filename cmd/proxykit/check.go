package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/rules"
)

// maxManifests bounds what check reads: a chart's render is a few MiB at most,
// and /dev/zero or a wrong pipe must end in an error, not a read that never ends.
const maxManifests = 64 << 20

// checkOptions are the flags of `proxykit check`, which reads rendered manifests
// from FILE or standard input ("-" or none) and prints rules.Check's findings;
// cluster facts come from the values.
type checkOptions struct {
	values    *valueFlags
	output    *choiceFlag
	namespace string
	args      []string
	stdin     io.Reader
	stdout    io.Writer
}

func newCheckCmd(stdin io.Reader, stdout io.Writer) *cobra.Command {
	o := &checkOptions{stdin: stdin, stdout: stdout}
	cmd := &cobra.Command{
		Use:   "check [-f VALUES]... [--set K=V]... [--chart DIR] [-n NS] [-o text|json] [FILE|-]",
		Short: "check rendered manifests (helm template ... | proxykit check -f v.yaml -)",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("takes one FILE (or - for standard input), got %d", len(args))
			}
			return nil
		},
	}
	o.values = addValueFlags(cmd.Flags())
	o.output = addOutputFlag(cmd.Flags(), "text or json", "text", "json")
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "", "the release namespace, where objects without one are (default $HELM_NAMESPACE): release-service-proxied then judges name.namespace too")
	cmd.Flags().StringVar(&o.values.chart, "chart", "", "the chart the manifests were rendered from: its values.yaml (and its subcharts' defaults) under -f and --set, as helm template reads them")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		o.args = args
		o.namespace = firstOf(o.namespace, os.Getenv("HELM_NAMESPACE"))
		if err := o.output.validate(); err != nil {
			return err
		}
		return o.run()
	}
	return cmd
}

func (o *checkOptions) run() error {
	file := ""
	if len(o.args) == 1 {
		file = o.args[0]
	}
	text, err := readManifests(file, o.stdin)
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
	findings := rules.Check(m, rules.WithCluster(cluster), rules.ExpectVariables(variables))
	if o.output.value == "json" {
		if err := printJSON(o.stdout, findings); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(o.stdout, f)
		}
		fmt.Fprintf(o.stdout, "%d containers checked, %d findings\n", len(m.Containers()), len(findings))
	}
	if len(findings) > 0 {
		return errFindings
	}
	return nil
}

// readManifests reads rendered manifests from file, or from stdin when file is ""
// or "-", and stops at maxManifests.
func readManifests(file string, stdin io.Reader) ([]byte, error) {
	in := stdin
	if file != "" && file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usagef("%v", err)
		}
		defer f.Close()
		in = f
	}
	text, err := io.ReadAll(io.LimitReader(in, maxManifests+1))
	if err != nil {
		return nil, usagef("read manifests: %v", err)
	}
	if len(text) > maxManifests {
		return nil, usagef("the input is larger than %d MiB; give the charts one by one", maxManifests>>20)
	}
	return text, nil
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
