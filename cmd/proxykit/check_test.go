package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// check judges the whole stream kubectl would apply, or refuses it naming the
// document: a CRLF file and a JSON stream (as `jq -c` prints) hold two
// Deployments, and both are judged (issue 37).
func TestCheckReadsTheWholeStream(t *testing.T) {
	deployment := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n"
	}
	jsonDeployment := func(name string) string {
		return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}`
	}
	values := []string{"--set", "cluster.serviceCIDRs={10.96.0.0/12}", "-o", "json", "-"}
	for name, input := range map[string]string{
		"CRLF":       strings.ReplaceAll(deployment("a")+"---\n"+deployment("b"), "\n", "\r\n"),
		"JSON lines": jsonDeployment("a") + "\n" + jsonDeployment("b") + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, input, append([]string{"check"}, values...)...)
			require.Equal(t, 1, code, stderr)
			var findings []struct{ Object, Rule string }
			require.NoError(t, json.Unmarshal([]byte(stdout), &findings))
			var objects []string
			for _, f := range findings {
				objects = append(objects, f.Object)
			}
			assert.ElementsMatch(t, []string{"Deployment/a", "Deployment/b"}, objects)
		})
	}
	t.Run("two flow maps in one document: refused, naming it", func(t *testing.T) {
		code, _, stderr := runCLI(t, "# one document\n"+jsonDeployment("a")+"\n"+jsonDeployment("b")+"\n", append([]string{"check"}, values...)...)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "document 1")
	})
}
