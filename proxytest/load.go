package proxytest

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// A chart author's table test renders one chart many times; loading it (and
// unpacking charts/*.tgz) each time would cost more than the render. loaded
// keeps each directory's chart while none of its files changed, and every
// render gets its own copy of the parts rendering changes.
var loaded sync.Map // absolute dir -> *loadedChart

type loadedChart struct {
	fingerprint string
	chart       *chart.Chart
}

// loadChart loads chartDir, or reuses the last load when its files are unchanged.
func loadChart(chartDir string) (*chart.Chart, error) {
	dir, err := filepath.Abs(chartDir)
	if err != nil {
		return nil, err
	}
	var fp strings.Builder
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&fp, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("proxytest: load %s: %w", chartDir, err)
	}
	if hit, ok := loaded.Load(dir); ok && hit.(*loadedChart).fingerprint == fp.String() {
		return cloneChart(hit.(*loadedChart).chart), nil
	}
	c, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("proxytest: load %s: %w", chartDir, err)
	}
	stripLibraryComments(c)
	loaded.Store(dir, &loadedChart{fingerprint: fp.String(), chart: c})
	return cloneChart(c), nil
}

// cloneChart copies what a render changes: the chart and its metadata (Helm
// marks dependencies enabled and replaces the dependency list), recursively.
// Files, templates and values are shared: rendering only reads them (Helm
// copies values before it merges into them).
func cloneChart(c *chart.Chart) *chart.Chart {
	out := *c
	if c.Metadata != nil {
		meta := *c.Metadata
		meta.Dependencies = nil
		for _, d := range c.Metadata.Dependencies {
			dep := *d
			meta.Dependencies = append(meta.Dependencies, &dep)
		}
		out.Metadata = &meta
	}
	var deps []*chart.Chart
	for _, d := range c.Dependencies() {
		deps = append(deps, cloneChart(d))
	}
	out.SetDependencies(deps...)
	return &out
}

// stripLibraryComments removes the doc comments of every library chart in the
// tree, once per load: Helm parses every template again on each render, and a
// library such as proxykit is half documentation.
func stripLibraryComments(c *chart.Chart) {
	if c.Metadata != nil && c.Metadata.Type == "library" {
		templates := make([]*chart.File, len(c.Templates))
		for i, f := range c.Templates {
			templates[i] = &chart.File{Name: f.Name, Data: stripDocComments(f.Data)}
		}
		c.Templates = templates
	}
	for _, d := range c.Dependencies() {
		stripLibraryComments(d)
	}
}

// stripDocComments removes each template comment that opens a line and carries
// no trim markers ("{{/*" ... "*/}}"): it renders nothing and trims nothing, so
// removing it, and keeping the line's end, changes no output.
func stripDocComments(text []byte) []byte {
	const open, closing = "\n{{/*", "*/}}"
	out := make([]byte, 0, len(text))
	rest := append([]byte("\n"), text...) // a comment on the first line opens a line too
	for {
		i := bytes.Index(rest, []byte(open))
		if i < 0 {
			break
		}
		j := bytes.Index(rest[i+len(open):], []byte(closing))
		if j < 0 {
			break
		}
		out = append(out, rest[:i+1]...) // keep the newline before the comment
		rest = rest[i+len(open)+j+len(closing):]
	}
	out = append(out, rest...)
	return out[1:]
}
