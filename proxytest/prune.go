package proxytest

import (
	"regexp"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
)

// Helm parses every template of every chart in the tree again on each render, and
// parsing the library is most of a render's cost. A library file none of whose
// helpers the render can reach renders nothing, so pruneLibraries leaves it out.
// It prunes only when every call in the tree names its helper literally: one
// `include $name`, `template` with a computed name or `tpl` anywhere, and every
// file stays.

// fileRefs are the helpers one template file defines and the ones it calls.
type fileRefs struct {
	defines, calls []string
	dynamic        bool // a call whose helper is not a string literal, or tpl
}

var (
	scannedFiles sync.Map // *chart.File -> *fileRefs; files are shared, read-only, between renders
	action       = regexp.MustCompile(`(?s)\{\{-?(.*?)-?\}\}`)
	defineName   = regexp.MustCompile(`^\s*define\s+"([^"]+)"`)
	call         = regexp.MustCompile(`(?:^|[\s(|])(include|template|tpl)\b\s*(\S?)`)
	literalName  = regexp.MustCompile(`(?:include|template)\s+"([^"]+)"`)
	// a string literal's text is no call: a message may say "template" or "include"
	stringLiteral = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")
)

func scanFile(f *chart.File) *fileRefs {
	if r, ok := scannedFiles.Load(f); ok {
		return r.(*fileRefs)
	}
	r := &fileRefs{}
	for _, a := range action.FindAllStringSubmatch(string(f.Data), -1) {
		body := a[1]
		if strings.HasPrefix(strings.TrimSpace(body), "/*") {
			continue
		}
		if d := defineName.FindStringSubmatch(body); d != nil {
			r.defines = append(r.defines, d[1])
			continue
		}
		for _, c := range call.FindAllStringSubmatch(stringLiteral.ReplaceAllString(body, `""`), -1) {
			if c[1] == "tpl" || c[2] != `"` {
				r.dynamic = true
			}
		}
		for _, n := range literalName.FindAllStringSubmatch(body, -1) {
			r.calls = append(r.calls, n[1])
		}
	}
	scannedFiles.Store(f, r)
	return r
}

// pruneLibraries drops the library files that define no helper reachable from
// the templates of the application charts in the tree.
func pruneLibraries(c *chart.Chart) {
	var all []*chart.Chart
	var walk func(*chart.Chart)
	walk = func(c *chart.Chart) {
		all = append(all, c)
		for _, d := range c.Dependencies() {
			walk(d)
		}
	}
	walk(c)

	definedIn := map[string][]*fileRefs{}
	var pending []string
	for _, ch := range all {
		library := ch.Metadata != nil && ch.Metadata.Type == "library"
		for _, f := range ch.Templates {
			r := scanFile(f)
			if r.dynamic {
				return
			}
			for _, d := range r.defines {
				definedIn[d] = append(definedIn[d], r)
			}
			if !library {
				pending = append(pending, r.calls...)
			}
		}
	}
	reached := map[string]bool{}
	for len(pending) > 0 {
		name := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		if reached[name] {
			continue
		}
		reached[name] = true
		for _, r := range definedIn[name] {
			pending = append(pending, r.calls...)
		}
	}
	for _, ch := range all {
		if ch.Metadata == nil || ch.Metadata.Type != "library" {
			continue
		}
		var keep []*chart.File
		for _, f := range ch.Templates {
			r := scanFile(f)
			used := len(r.defines) == 0
			for _, d := range r.defines {
				used = used || reached[d]
			}
			if used {
				keep = append(keep, f)
			}
		}
		ch.Templates = keep
	}
}
