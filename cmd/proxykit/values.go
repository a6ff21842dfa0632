package main

import (
	"github.com/spf13/pflag"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
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
