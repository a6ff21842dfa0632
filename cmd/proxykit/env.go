package main

import (
	"context"
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
	"yaml":    "proxykit.systemd.envFile", // its lines read back into a map
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
	if strings.TrimSpace(out) == "" {
		return usagef("the proxy is off: set proxy.http or proxy.https")
	}
	out = strings.TrimLeft(out, "\n")
	switch o.format.value {
	case "yaml":
		vars, err := readEnvFile(out)
		if err != nil {
			return err
		}
		b, err := yaml.Marshal(vars)
		if err != nil {
			return err
		}
		out = string(b)
	}
	_, err = io.WriteString(o.Out, out)
	return err
}

// readEnvFile reads the `export NAME='value'` lines of proxykit.systemd.envFile,
// whose values are single-quoted: a quote inside closes the quoting, is escaped
// with a backslash and opens it again.
func readEnvFile(text string) (map[string]string, error) {
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		name, quoted, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok || len(quoted) < 2 || quoted[0] != '\'' || quoted[len(quoted)-1] != '\'' {
			return nil, fmt.Errorf("proxykit env: the library's environment file has a line this version cannot read")
		}
		vars[name] = strings.ReplaceAll(quoted[1:len(quoted)-1], `'\''`, "'")
	}
	return vars, nil
}
