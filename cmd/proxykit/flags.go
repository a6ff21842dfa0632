package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/inject"
)

// valueFlags are helm's -f/--values and --set family, merged the way helm merges them.
type valueFlags struct {
	values.Options
	chart string // a chart whose own values lie under the flags' (check --chart)
}

func addValueFlags(fs *pflag.FlagSet) *valueFlags {
	v := &valueFlags{}
	fs.StringArrayVarP(&v.ValueFiles, "values", "f", nil, "values file (repeatable; later files win)")
	fs.StringArrayVar(&v.Values, "set", nil, "set a value: K=V (repeatable)")
	fs.StringArrayVar(&v.StringValues, "set-string", nil, "set a string value: K=V (repeatable)")
	return v
}

// merged reads the files and --set flags; a bad file or expression is a usage error.
func (v *valueFlags) merged() (map[string]any, error) {
	vals, err := v.MergeValues(getter.Providers{})
	if err != nil {
		return nil, usagef("%v", err)
	}
	if v.chart != "" {
		c, err := loader.Load(v.chart)
		if err != nil {
			return nil, usagef("--chart: %v", err)
		}
		// the chart's values.yaml, its subcharts' defaults and globals, under the flags'
		if vals, err = chartutil.CoalesceValues(c, vals); err != nil {
			return nil, usagef("--chart: %v", err)
		}
	}
	return vals, nil
}

// choiceFlag is a flag that takes one of a few words (-o text|json, --format ...):
// every command declares and checks its choices here, the same way.
type choiceFlag struct {
	name    string // as messages name it: "-o", "--format"
	value   string
	choices []string
}

// addOutputFlag adds -o/--output with its choices, the first being the default.
func addOutputFlag(fs *pflag.FlagSet, usage string, choices ...string) *choiceFlag {
	c := &choiceFlag{name: "-o", choices: choices}
	fs.StringVarP(&c.value, "output", "o", choices[0], usage)
	return c
}

// addChoiceFlag adds --name with its choices, the first being the default.
func addChoiceFlag(fs *pflag.FlagSet, name, usage string, choices ...string) *choiceFlag {
	c := &choiceFlag{name: "--" + name, choices: choices}
	fs.StringVar(&c.value, name, choices[0], usage)
	return c
}

// validate fails, naming the flag and its choices, on any other word.
func (c *choiceFlag) validate() error {
	if !slices.Contains(c.choices, c.value) {
		return usagef("%s: %q is not one of %s", c.name, c.value, strings.Join(c.choices, ", "))
	}
	return nil
}

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

// noArgs rejects positional arguments, naming them.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("takes no arguments, got %q", strings.Join(args, " "))
	}
	return nil
}

// oneFileArg takes at most one FILE (or - for standard input).
func oneFileArg(_ *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("takes one FILE (or - for standard input), got %d", len(args))
	}
	return nil
}

// fileArg is the FILE argument; "" for standard input.
func fileArg(args []string) string {
	if len(args) == 1 && args[0] != "-" {
		return args[0]
	}
	return ""
}

// optionFlags name, for each package Options field an error can name, the flag
// that sets it: a package's message names its field, the CLI's the flag.
var optionFlags = map[string]string{
	"CAPICluster": "--capi-cluster",
	"Namespace":   "-n NAMESPACE (to helm: --post-renderer-args -n --post-renderer-args NAMESPACE) or set HELM_NAMESPACE",
	"Release":     "--release NAME (to helm: --post-renderer-args --release --post-renderer-args NAME)",
}

// flagError turns a package's OptionError into the flag a user passes.
func flagError(err error) error {
	var d *discover.OptionError
	if errors.As(err, &d) {
		return fmt.Errorf("%s: %s", optionFlags[d.Option], d.Message)
	}
	var i *inject.OptionError
	if errors.As(err, &i) {
		return fmt.Errorf("%s; pass %s", i.Message, optionFlags[i.Option])
	}
	return err
}
