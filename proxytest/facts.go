package proxytest

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/proxykit/proxykit/manifest"
)

// factsTemplate is added to every chart of a render that depends on proxykit. It
// reports what the library read from that chart's own values (its values.yaml,
// globals and the options, as Helm merged them), so Check judges the render with
// the facts the render used, never with values read a second time. Its output is
// no manifest: parseRendered skips it.
const factsTemplate = "templates/proxytest-facts.json"

const factsSource = `{{- $args := dict "context" $ -}}
{{- $names := list -}}
{{- range $e := include "proxykit.proxy.env" $args | fromYamlArray }}{{ $names = append $names $e.name }}{{ end -}}
{{- toJson (dict "cluster" (include "proxykit.cluster.facts" $args | fromJson) "variables" $names) -}}`

// factsFile is shared by every render: rendering only reads it.
var factsFile = &chart.File{Name: factsTemplate, Data: []byte(factsSource)}

// addFactsTemplate adds factsTemplate to c; the chart's template list is its own
// copy (cloneChart shares the slice with the cached load).
func addFactsTemplate(c *chart.Chart) {
	c.Templates = append(slices.Clip(c.Templates), factsFile)
}

// readFacts merges the facts of every chart of the render that uses proxykit: an
// umbrella chart's subcharts run in one cluster, so NO_PROXY must cover every
// network any of them knows, and a container must have every proxy variable any
// of them renders. proxyOff is true when proxykit is used and renders no variable.
func readFacts(files map[string]string) (c Cluster, variables []string, proxyOff bool, err error) {
	var names []string
	for name := range files {
		if path.Base(name) == path.Base(factsTemplate) && path.Base(path.Dir(name)) == "templates" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return Cluster{}, nil, false, nil
	}
	// the top chart's facts first, then its subcharts' by depth and name
	sort.Slice(names, func(i, j int) bool {
		if di, dj := strings.Count(names[i], "/"), strings.Count(names[j], "/"); di != dj {
			return di < dj
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		var f struct {
			Cluster   Cluster
			Variables []string
		}
		if err := json.Unmarshal([]byte(files[name]), &f); err != nil {
			return Cluster{}, nil, false, fmt.Errorf("proxytest: the library's cluster facts in %s are not JSON: %w", name, err)
		}
		c = c.Merge(f.Cluster)
		for _, v := range f.Variables {
			if !slices.Contains(variables, v) {
				variables = append(variables, v)
			}
		}
	}
	return c, manifest.OrderVariables(variables), len(variables) == 0, nil
}
