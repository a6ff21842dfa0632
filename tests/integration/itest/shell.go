//go:build integration

package itest

import (
	"strings"

	"github.com/proxykit/proxykit/tests/fixture"
)

func FilepathBin(name string) string { return fixture.Path("bin", name) }

// ShellQuote quotes s for bash.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
