package main

import (
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

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

// printJSON writes v as indented JSON; a nil list prints as [], never null.
func printJSON(w io.Writer, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		v = []any{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
