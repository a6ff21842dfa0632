package main

import (
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// runEnv prints the resolved proxy variables themselves (credentials included:
// this is for the machine that needs them), both cases, as nodes get them.
func runEnv(args []string, _ io.Reader, stdout io.Writer) error {
	fs := flagSet("env")
	v := addValueFlags(fs)
	format := fs.String("format", "dotenv", "dotenv, systemd or yaml")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	if *format == "systemd" {
		out, err := include(v, "proxykit.systemd.dropIn")
		if err != nil {
			return err
		}
		if out == "" {
			return usagef("the proxy is off: set proxy.http or proxy.https")
		}
		_, err = io.WriteString(stdout, out)
		return err
	}
	if *format != "dotenv" && *format != "yaml" {
		return usagef("--format: %q is not one of dotenv, systemd, yaml", *format)
	}
	out, err := include(v, "proxykit.proxy.config")
	if err != nil {
		return err
	}
	var config struct{ HTTP, HTTPS, NoProxy string }
	if err := yaml.Unmarshal([]byte(out), &config); err != nil {
		return err
	}
	if config.HTTP == "" && config.HTTPS == "" {
		return usagef("the proxy is off: set proxy.http or proxy.https")
	}
	var names, vals []string
	for _, pair := range [][2]string{{"HTTP_PROXY", config.HTTP}, {"HTTPS_PROXY", config.HTTPS}, {"NO_PROXY", config.NoProxy}} {
		if pair[1] != "" {
			names, vals = append(names, pair[0]), append(vals, pair[1])
		}
	}
	for i := range names[:len(names)] {
		names, vals = append(names, strings.ToLower(names[i])), append(vals, vals[i])
	}
	if *format == "yaml" {
		m := map[string]string{}
		for i, n := range names {
			m[n] = vals[i]
		}
		b, err := yaml.Marshal(m)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	for i, n := range names {
		// single quotes keep & $ % and spaces literal for shells, compose and python-dotenv
		fmt.Fprintf(stdout, "%s='%s'\n", n, strings.ReplaceAll(vals[i], "'", `'\''`))
	}
	return nil
}
