package proxytest

import (
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/manifest"
)

// Option changes how Render renders a chart.
type Option func(*options) error

type options struct {
	values      map[string]any
	release     string
	namespace   string
	kubeVersion string
	embedded    bool
}

// Values adds values given as YAML text, as `helm template -f` does with a file:
// later values are merged over earlier ones.
func Values(yaml string) Option {
	return func(o *options) error {
		v, err := chartutil.ReadValues([]byte(yaml))
		if err != nil {
			return fmt.Errorf("proxytest: values are not YAML: %w", err)
		}
		o.values = mergeValues(o.values, v)
		return nil
	}
}

// ValuesFile adds the values in a YAML file, as `helm template -f FILE` does.
func ValuesFile(path string) Option {
	return func(o *options) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("proxytest: %w", err)
		}
		return Values(string(b))(o)
	}
}

// Release sets the release name and namespace (default: "release-name" in "default",
// as `helm template` uses).
func Release(name, namespace string) Option {
	return func(o *options) error {
		o.release, o.namespace = name, namespace
		return nil
	}
}

// KubeVersion sets the Kubernetes version the chart sees (.Capabilities.KubeVersion)
// and checks its kubeVersion constraint against, as `helm template --kube-version`
// does; default: the version of the k8s.io/client-go the test is built with
// (proxykit.DefaultKubeVersion).
func KubeVersion(version string) Option {
	return func(o *options) error {
		o.kubeVersion = version
		return nil
	}
}

// EmbeddedLibrary renders every chart that depends on proxykit with the library
// embedded in this Go module, also where its charts/ folder holds a copy (which
// may be stale): the chart is tested against the library version of the module
// the test imports. The chart's version constraint must accept it.
func EmbeddedLibrary() Option {
	return func(o *options) error {
		o.embedded = true
		return nil
	}
}

// Render renders chartDir and fails t when the chart does not render.
func Render(t testing.TB, chartDir string, opts ...Option) *Manifests {
	t.Helper()
	m, err := RenderE(chartDir, opts...)
	if err != nil {
		t.Fatalf("proxytest: render %s: %v", chartDir, err)
	}
	return m
}

// RenderE renders chartDir in-process, the way `helm template` does, and returns
// the parsed manifests (subcharts' objects included) with the values they were
// rendered with and the cluster facts the proxykit library read in that render.
func RenderE(chartDir string, opts ...Option) (*Manifests, error) {
	o := &options{values: map[string]any{}, release: "release-name", namespace: "default"}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	c, err := loadChart(chartDir)
	if err != nil {
		return nil, err
	}
	if err := addEmbeddedLibrary(c, o.embedded); err != nil {
		return nil, err
	}
	if err := checkDependencies(c); err != nil {
		return nil, err
	}
	pruneLibraries(c)
	files, values, err := proxykit.RenderChart(c, o.values, proxykit.RenderOptions{Release: o.release, Namespace: o.namespace, KubeVersion: o.kubeVersion})
	if err != nil {
		return nil, err
	}
	m, err := parseRendered(c.Name(), files)
	if err != nil {
		return nil, err
	}
	m.Values = values
	m.Namespace = o.namespace
	if m.Cluster, m.Variables, m.ProxyOff, err = readFacts(files); err != nil {
		return nil, err
	}
	return &Manifests{m}, nil
}

// addEmbeddedLibrary gives the chart, and each of its subcharts, the embedded
// proxykit library when it depends on proxykit and its charts/ folder has none,
// and a template that reports the cluster facts the library reads (see facts.go).
func addEmbeddedLibrary(c *chart.Chart, replace bool) error {
	for _, sub := range c.Dependencies() {
		if err := addEmbeddedLibrary(sub, replace); err != nil {
			return err
		}
	}
	for _, dep := range c.Metadata.Dependencies {
		if dep.Name != "proxykit" {
			continue
		}
		if replace {
			c.SetDependencies(slices.DeleteFunc(slices.Clone(c.Dependencies()), func(d *chart.Chart) bool { return d.Name() == dep.Name })...)
		}
		if !hasDependency(c, dep.Name) {
			lib, err := embeddedLibrary()
			if err != nil {
				return err
			}
			want, err := semver.NewConstraint(dep.Version)
			if err != nil {
				return fmt.Errorf("proxytest: %s depends on proxykit %q, which is not a version constraint: %w", c.Name(), dep.Version, err)
			}
			if !want.Check(semver.MustParse(lib.Metadata.Version)) {
				return fmt.Errorf("proxytest: %s wants proxykit %s and its charts/ folder has none; the embedded library is %s: run `helm dependency build` or change the constraint",
					c.Name(), dep.Version, lib.Metadata.Version)
			}
			c.AddDependency(lib)
		}
		addFactsTemplate(c)
	}
	return nil
}

func hasDependency(c *chart.Chart, name string) bool {
	for _, have := range c.Dependencies() {
		if have.Name() == name {
			return true
		}
	}
	return false
}

// mergeValues merges src over dst as helm merges -f files: maps deeply, anything else replaced.
func mergeValues(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

var (
	embeddedOnce sync.Once
	embedded     *chart.Chart
	embeddedErr  error
)

// embeddedLibrary is the library embedded in this module, loaded and stripped of
// its doc comments once; each render gets its own copy.
func embeddedLibrary() (*chart.Chart, error) {
	embeddedOnce.Do(func() {
		embedded, embeddedErr = proxykit.Library()
		if embeddedErr == nil {
			stripLibraryComments(embedded)
		}
	})
	if embeddedErr != nil {
		return nil, embeddedErr
	}
	return cloneChart(embedded), nil
}

// checkDependencies fails, as `helm template` does, when Chart.yaml lists a
// dependency that charts/ does not hold (whether or not its condition enables it).
func checkDependencies(c *chart.Chart) error {
	var missing []string
	for _, dep := range c.Metadata.Dependencies {
		if !hasDependency(c, dep.Name) {
			missing = append(missing, dep.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("proxytest: %s: found in Chart.yaml, but missing in charts/ directory: %s; run `helm dependency build`", c.Name(), strings.Join(missing, ", "))
	}
	return nil
}

// parseRendered reads the engine's output, template by template in name order:
// the chart's own templates, then its subcharts' (charts/<sub>/templates/...).
func parseRendered(chartName string, files map[string]string) (*manifest.Manifests, error) {
	var names []string
	for name := range files {
		if isManifest(chartName, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	m := &manifest.Manifests{}
	for _, name := range names {
		if err := m.Add(strings.TrimPrefix(name, chartName+"/"), files[name]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// isManifest tells whether a rendered file is one `helm template` prints: a file
// of a templates/ folder of the chart or a subchart, not NOTES.txt, not the facts.
func isManifest(chartName, name string) bool {
	if !strings.HasPrefix(name, chartName+"/") || path.Ext(name) == ".txt" || path.Base(name) == path.Base(factsTemplate) {
		return false
	}
	return strings.HasPrefix(name, chartName+"/templates/") || strings.Contains(name, "/charts/") && strings.Contains(name, "/templates/")
}
