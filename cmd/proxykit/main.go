// Command proxykit renders what the proxykit library derives from a chart's
// values, and audits rendered manifests.
//
//	proxykit noproxy [-f VALUES]... [--set K=V]...
//	proxykit env [-f VALUES]... [--set K=V]... [--format dotenv|shell|systemd|yaml]
//	proxykit check [-f VALUES]... [--set K=V]... [-o text|json] [FILE|-]
//	proxykit explain --no-proxy LIST [--client NAME]... [-o text|json] TARGET...
//
// Exit status: 0 clean, 1 findings (check), 2 bad input or usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"
)

// usageError is bad input or usage: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errFindings ends `check` with exit status 1 after printing its findings.
var errFindings = errors.New("findings")

// helpRequested is -h or --help on a command: its usage goes to stdout, exit 0.
type helpRequested struct{ usage string }

func (h helpRequested) Error() string { return h.usage }

type command struct {
	name, args, summary string
	run                 func(args []string, stdin io.Reader, stdout io.Writer) error
}

var commands = []command{
	{"noproxy", "[-f VALUES]... [--set K=V]...", "the NO_PROXY the library renders for these values", runNoProxy},
	{"env", "[-f VALUES]... [--set K=V]... [--format dotenv|shell|systemd|yaml]", "the proxy variables, for VMs, CI runners and systemd", runEnv},
	{"check", "[-f VALUES]... [--set K=V]... [-o text|json] [FILE|-]", "check rendered manifests (helm template ... | proxykit check -f v.yaml -)", runCheck},
	{"explain", "--no-proxy LIST [--client NAME]... [-o text|json] TARGET...", "per target and client: direct or through the proxy, and the entry that matched", runExplain},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdin, stdout)
		var help helpRequested
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errFindings):
			return 1
		case errors.As(err, &help):
			fmt.Fprintf(stdout, "Usage: proxykit %s %s\n  %s\n\nFlags:\n%s", c.name, c.args, c.summary, help.usage)
			return 0
		default:
			fmt.Fprintf(stderr, "proxykit %s: %v\n", c.name, err)
			return 2
		}
	}
	fmt.Fprintf(stderr, "proxykit: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "proxykit: what the proxykit library derives from a chart's values, and an audit of rendered manifests")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  proxykit %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nExit status: 0 clean, 1 findings (check), 2 bad input or usage.")
}

// flagSet is a command's flags; parse reports their errors.
func flagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("proxykit "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags, turning pflag's errors (they name the flag) into usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return helpRequested{fs.FlagUsages()}
		}
		return usagef("%v", err)
	}
	return nil
}
