package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// envFormats are the helpers `proxykit env` renders: the output is the library's,
// never rebuilt here (one source of truth for names, order, quoting and escaping).
var envFormats = map[string]string{
	"dotenv":  "proxykit.systemd.environmentFile", // NAME="value": what systemd's EnvironmentFile= and shells both read alike
	"shell":   "proxykit.systemd.envFile",
	"yaml":    "proxykit.systemd.variables", // a JSON map, written as YAML
	"systemd": "proxykit.systemd.dropIn",
}

// envOptions are the flags of `proxykit env`, which prints the resolved proxy
// variables themselves (credentials included: this is for the machine that needs
// them), both cases, as nodes get them.
type envOptions struct {
	streams
	values *valueFlags
	format *choiceFlag
}

func newEnvCmd(s streams) *cobra.Command {
	o := &envOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "env [-f VALUES]... [--set K=V]... [--format dotenv|shell|systemd|yaml]",
		Short: "the proxy variables, for VMs, CI runners and systemd",
		Args:  noArgs,
		RunE:  runE(o),
	}
	o.values = addValueFlags(cmd.Flags())
	o.format = addChoiceFlag(cmd.Flags(), "format", "dotenv, shell, systemd or yaml", "dotenv", "shell", "systemd", "yaml")
	return cmd
}

func (o *envOptions) complete(*cobra.Command, []string) error { return nil }
func (o *envOptions) validate() error                         { return o.format.validate() }

func (o *envOptions) run(context.Context) error {
	helper := envFormats[o.format.value]
	out, err := include(o.values, helper)
	if err != nil {
		return err
	}
	if o.format.value == "yaml" {
		if out, err = variablesYAML(out); err != nil {
			return fmt.Errorf("proxykit env: %s: %w", helper, err)
		}
	}
	if strings.TrimSpace(out) == "" {
		return usagef("the proxy is off: set proxy.http or proxy.https")
	}
	_, err = io.WriteString(o.Out, strings.TrimLeft(out, "\n"))
	return err
}

// variablesYAML writes proxykit.systemd.variables' JSON map as YAML: nothing when
// the map is empty (the proxy is off).
func variablesYAML(jsonMap string) (string, error) {
	var vars map[string]string
	if err := json.Unmarshal([]byte(jsonMap), &vars); err != nil || len(vars) == 0 {
		return "", err
	}
	b, err := yaml.Marshal(vars)
	return string(b), err
}
