// Package proxykit holds the proxykit library chart, embedded, and renders its
// helpers in-process with the Helm SDK.
//
// NO_PROXY composition, resolution and validation live only in the library's
// templates; Go code (package proxytest, the proxykit CLI, inject) asks them through
// Ask, one render for many helper calls, so Go and Helm can never disagree.
package proxykit

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

//go:embed all:library/proxykit
var libraryFS embed.FS

const libraryRoot = "library/proxykit"

var (
	libraryOnce  sync.Once
	libraryFiles []*loader.BufferedFile
	libraryErr   error
)

// Library loads the embedded library chart. Each call returns a fresh copy, so
// a caller may add it to a chart of its own.
func Library() (*chart.Chart, error) {
	libraryOnce.Do(func() {
		libraryErr = fs.WalkDir(libraryFS, libraryRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := libraryFS.ReadFile(p)
			if err != nil {
				return err
			}
			libraryFiles = append(libraryFiles, &loader.BufferedFile{Name: strings.TrimPrefix(p, libraryRoot+"/"), Data: data})
			return nil
		})
	})
	if libraryErr != nil {
		return nil, fmt.Errorf("proxykit: read the embedded library: %w", libraryErr)
	}
	return loader.LoadFiles(libraryFiles)
}

// LibraryVersion is the version of the embedded library chart.
func LibraryVersion() string {
	lib, err := Library()
	if err != nil {
		return ""
	}
	return lib.Metadata.Version
}

var helperName = regexp.MustCompile(`^proxykit(\.[A-Za-z][A-Za-z0-9]*)+$`)

// includeAs renders one template against the library, with values as the
// consuming chart's values, for a release, and returns its output.
func includeAs(template string, values map[string]any, release, namespace string) (string, error) {
	lib, err := Library()
	if err != nil {
		return "", err
	}
	host := &chart.Chart{
		Metadata: &chart.Metadata{
			APIVersion: chart.APIVersionV2, Name: "proxykit-include", Version: "0.0.0", Type: "application",
			Dependencies: []*chart.Dependency{{Name: lib.Name(), Version: lib.Metadata.Version}},
		},
		Templates: []*chart.File{{Name: "templates/out", Data: []byte(template)}},
	}
	host.AddDependency(lib)
	out, _, err := renderChart(host, values, release, namespace)
	if err != nil {
		return "", err
	}
	return out[path.Join(host.Name(), "templates/out")], nil
}

// renderChart renders a loaded chart the way `helm template` does and returns
// every rendered file by its path, and the values the templates saw at the top
// (the chart's values.yaml, its subcharts' defaults and globals, then values,
// coalesced as Helm coalesces them).
func renderChart(c *chart.Chart, values map[string]any, release, namespace string) (map[string]string, map[string]any, error) {
	out, merged, err := RenderChart(c, values, RenderOptions{Release: release, Namespace: namespace})
	if err != nil {
		return nil, nil, failMessage(err)
	}
	return out, merged, nil
}

// RenderOptions say what a render renders for.
type RenderOptions struct {
	Release, Namespace string
	// KubeVersion is the Kubernetes version the chart sees as
	// .Capabilities.KubeVersion and checks its kubeVersion constraint against
	// ("1.30.0" or "v1.30"); default DefaultKubeVersion.
	KubeVersion string
}

// DefaultKubeVersion is the Kubernetes version of the k8s.io/client-go (or
// k8s.io/api) this program is built with (v0.37.x is Kubernetes v1.37.0), as
// Helm 4 reports it (a test binary records no dependencies: there, the one this
// module pins); Helm 3's own default without build flags is v1.20.0, which charts that need a
// newer Kubernetes refuse.
func DefaultKubeVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		// the Kubernetes modules share their versioning; the first that is linked in
		for _, path := range []string{"k8s.io/client-go", "k8s.io/api", "k8s.io/apimachinery"} {
			for _, dep := range info.Deps {
				if dep.Path != path {
					continue
				}
				if v, err := semver.NewVersion(dep.Version); err == nil && v.Major() == 0 && v.Minor() > 0 {
					return fmt.Sprintf("v1.%d.0", v.Minor())
				}
			}
		}
	}
	// test binaries record no dependencies: the version this module pins
	return pinnedKubeVersion
}

// pinnedKubeVersion is the Kubernetes version of the k8s.io/client-go in this
// module's go.mod (a test keeps the two together).
const pinnedKubeVersion = "v1.37.0"

// RenderChart renders a loaded chart the way `helm template` does and returns
// every rendered file by its path, and the values the templates saw at the top
// (the chart's values.yaml, its subcharts' defaults and globals, then values,
// coalesced as Helm coalesces them). A chart whose kubeVersion constraint the
// Kubernetes version does not meet fails as `helm template` does. A template's
// `fail` comes back as `helm template` prints it, with the chart's template and
// line: "execution error at (app/templates/deployment.yaml:23:14): proxykit: ...".
func RenderChart(c *chart.Chart, values map[string]any, o RenderOptions) (map[string]string, map[string]any, error) {
	release, namespace := o.Release, o.Namespace
	if values == nil {
		values = map[string]any{}
	}
	kubeVersion := o.KubeVersion
	if kubeVersion == "" {
		kubeVersion = DefaultKubeVersion()
	}
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("proxykit: the Kubernetes version %q: %w", kubeVersion, err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	if c.Metadata != nil && c.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(c.Metadata.KubeVersion, kv.String()) {
		return nil, nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c.Metadata.KubeVersion, kv.String())
	}
	if err := chartutil.ProcessDependenciesWithMerge(c, values); err != nil {
		return nil, nil, err
	}
	options := chartutil.ReleaseOptions{Name: release, Namespace: namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(c, values, options, caps)
	if err != nil {
		return nil, nil, err
	}
	out, err := engine.Render(c, top)
	if err != nil {
		return nil, nil, templateErrorAt(err)
	}
	merged, _ := top["Values"].(chartutil.Values)
	return out, merged, nil
}

var executionError = regexp.MustCompile(`execution error at \([^)]*\): `)

// templateErrorAt is Helm's template error from "execution error at (FILE:LINE:COL): "
// on, as `helm template` prints it; the error itself when it holds no such part.
func templateErrorAt(err error) error {
	msg := err.Error()
	if loc := executionError.FindStringIndex(msg); loc != nil {
		return fmt.Errorf("%s", strings.TrimSpace(msg[loc[0]:]))
	}
	return err
}

// failMessage shortens Helm's template error to the message a template's
// `fail` gave, when there is one: "proxykit: cluster.podCIDRs: ...". A library
// helper's caller gets it so: the host chart's file and line mean nothing to it.
func failMessage(err error) error {
	msg := err.Error()
	if loc := executionError.FindStringIndex(msg); loc != nil {
		return fmt.Errorf("%s", strings.TrimSpace(msg[loc[1]:]))
	}
	return err
}

// Call is one library helper for Ask to render, as a chart calls it: with
// Value, `include HELPER VALUE` (the helpers that take a value, such as
// proxykit.java.nonProxyHosts or proxykit.noProxy.ipv4Range); otherwise
// `include HELPER (dict "context" $ ARGS...)`, Args beside "context".
type Call struct {
	Helper string
	Args   map[string]any // JSON-encodable; numbers arrive as float64, as from a values file
	// Value is the helper's argument when it takes one instead of the context:
	// a string, or a JSON-encodable list or map.
	Value any
	// Name is what Ask returns the output under; default Helper.
	Name string
	// Join puts the answers of earlier calls of the same Ask (by Name) into an
	// argument: Join["noProxy"] = ["a", "b"] gives the helper "noProxy" as a's
	// answer, b's and then Args["noProxy"], the non-empty ones joined by commas.
	// One render then does what would take two (the Services' NO_PROXY forms,
	// and the env that carries them).
	Join map[string][]string
}

func (c Call) name() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Helper
}

// expression is the template pipeline that renders the call (an include);
// earlier holds the template variable of each earlier call's answer, by name.
func (c Call) expression(earlier map[string]string) (string, error) {
	if !helperName.MatchString(c.Helper) {
		return "", fmt.Errorf("proxykit: %q is not a proxykit helper name", c.Helper)
	}
	if c.Value != nil {
		if len(c.Join) > 0 {
			return "", fmt.Errorf("proxykit: %s: Join takes arguments, and a Value call has none", c.Helper)
		}
		arg, err := templateLiteral(c.Value)
		if err != nil {
			return "", fmt.Errorf("proxykit: the value of %s: %w", c.Helper, err)
		}
		return fmt.Sprintf(`include %q %s`, c.Helper, arg), nil
	}
	context := `(dict "context" $)`
	args := maps.Clone(c.Args)
	joined := ""
	for _, key := range slices.Sorted(maps.Keys(c.Join)) {
		parts := ""
		for _, name := range c.Join[key] {
			variable, ok := earlier[name]
			if !ok {
				return "", fmt.Errorf("proxykit: %s: Join[%q] names %q, which no earlier call of this Ask is", c.Helper, key, name)
			}
			parts += " " + variable
		}
		switch v := args[key].(type) {
		case nil:
		case string:
			if v != "" {
				parts += " " + strconv.Quote(v)
			}
		default:
			return "", fmt.Errorf("proxykit: %s: Join[%q] needs Args[%q] to be a string, not %T", c.Helper, key, key, v)
		}
		delete(args, key)
		joined += fmt.Sprintf(` %q (join "," (compact (list %s)))`, key, parts)
	}
	if joined != "" {
		context = fmt.Sprintf(`(dict "context" $%s)`, joined)
	}
	if len(args) > 0 {
		encoded, err := json.Marshal(args)
		if err != nil {
			return "", fmt.Errorf("proxykit: the arguments of %s: %w", c.Helper, err)
		}
		// the arguments go in as a Go template string literal of their JSON
		context = fmt.Sprintf(`(merge %s (fromJson %s))`, context, strconv.Quote(string(encoded)))
	}
	return fmt.Sprintf(`include %q %s`, c.Helper, context), nil
}

// templateLiteral writes a value as a template operand: a string as a quoted
// literal, a list or map as the JSON Helm's fromJsonArray or fromJson reads.
func templateLiteral(v any) (string, error) {
	if s, ok := v.(string); ok {
		return strconv.Quote(s), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	switch b[0] {
	case '[':
		return fmt.Sprintf(`(fromJsonArray %s)`, strconv.Quote(string(b))), nil
	case '{':
		return fmt.Sprintf(`(fromJson %s)`, strconv.Quote(string(b))), nil
	}
	return "", fmt.Errorf("a %T is neither a string nor a list or map", v)
}

// answerMark separates the outputs of Ask's calls: no helper writes a NUL.
const answerMark = "\x00proxykit-answer\x00"

// Ask renders library helpers in one render for values given as a consuming
// chart's values (proxy, cluster, global, defaults), in a release (default
// "proxykit") and namespace (default "default"): one resolution of the
// values, one parse of the library. It returns each call's output by its Name
// (default: its helper). A render the library fails returns its message, e.g.
// `proxykit: cluster.podCIDRs: "10.0.0.0/33" is not a valid CIDR (...)`. It is
// the one way Go asks the library anything: inject, audit, rules and proxytest
// never re-encode what the library knows.
func Ask(values map[string]any, release, namespace string, calls ...Call) (map[string]string, error) {
	var template strings.Builder
	earlier := map[string]string{} // a call's name -> the template variable of its answer
	for i, c := range calls {
		expr, err := c.expression(earlier)
		if err != nil {
			return nil, err
		}
		// each answer kept in a variable of its own, for a later call's Join
		variable := fmt.Sprintf("$answer%d", i)
		fmt.Fprintf(&template, "%s{{ %s := %s }}{{ %s }}", answerMark, variable, expr, variable)
		earlier[c.name()] = variable
	}
	if release == "" {
		release = "proxykit"
	}
	if namespace == "" {
		namespace = "default"
	}
	out, err := includeAs(template.String(), values, release, namespace)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(out, answerMark)[1:]
	if len(parts) != len(calls) {
		return nil, fmt.Errorf("proxykit: %d answers for %d calls: a helper wrote the separator", len(parts), len(calls))
	}
	answers := make(map[string]string, len(calls))
	for i, c := range calls {
		answers[c.name()] = parts[i]
	}
	return answers, nil
}
