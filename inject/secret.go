package inject

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
)

// secret is a proxy Secret the output carries.
type secret struct{ id, text string }

// hookReaders are the Helm hooks of one namespace that read its proxy Secret.
type hookReaders struct {
	any    bool
	lowest int // the lowest helm.sh/hook-weight among them
}

func (h *hookReaders) add(weight int) {
	if !h.any || weight < h.lowest {
		h.lowest = weight
	}
	h.any = true
}

// hookSecret are the annotations of a proxy Secret that a Helm hook reads. Helm 4
// post-renders hooks, and creates the release's ordinary objects only after the
// pre-install hooks finished: a migration Job that reads the Secret would wait
// for it forever. As a hook of its own, weighted before every hook that reads it
// (-1000, or lower still than the lowest of theirs: Helm runs hooks by weight),
// the Secret exists before the first of them runs, and each upgrade or rollback
// writes it afresh (a rotated password too). Helm then leaves it in place on
// uninstall.
func hookSecret(readers *hookReaders) map[string]any {
	return map[string]any{
		"helm.sh/hook":               "pre-install,pre-upgrade,pre-rollback",
		"helm.sh/hook-weight":        strconv.Itoa(min(-1000, readers.lowest-1)),
		"helm.sh/hook-delete-policy": "before-hook-creation",
	}
}

// secrets renders the library's proxy Secret into every namespace where an
// injected container reads it ("" is the release namespace, when unknown: Helm
// puts an object without a namespace there), unless the stream holds it
// already; a namespace whose Secret a Helm hook reads (wanted[ns].any) gets it as
// a hook (hookSecret).
func (inj *injection) secrets(docs []document, wanted map[string]*hookReaders, release, namespace string) ([]secret, error) {
	if len(wanted) == 0 {
		return nil, nil
	}
	if release == "" {
		return nil, &OptionError{Option: "Release", Message: "the proxy URLs carry credentials, which go into a Secret named after the release, and the release name is unknown (the objects carry no common app.kubernetes.io/instance label)"}
	}
	namespaces := slices.Sorted(maps.Keys(wanted))
	var out []secret
	for _, ns := range namespaces {
		call := proxykit.Call{Helper: "proxykit.proxy.secret"}
		if wanted[ns].any {
			call.Args = map[string]any{"annotations": hookSecret(wanted[ns])}
		}
		answers, err := proxykit.Ask(inj.values, release, ns, call)
		if err != nil {
			return nil, err
		}
		text := answers[call.Helper]
		var object map[string]any
		if err := yaml.Unmarshal([]byte(text), &object); err != nil {
			return nil, fmt.Errorf("proxykit.proxy.secret: %w", err)
		}
		meta, _ := object["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if present(docs, "Secret", name, ns, namespace) {
			continue
		}
		if ns == "" {
			delete(meta, "namespace")
			b, err := yaml.Marshal(object)
			if err != nil {
				return nil, err
			}
			text = string(b)
		}
		out = append(out, secret{id: ns + "/" + name, text: "# Source: proxykit inject\n" + strings.Trim(text, "\n")})
	}
	return out, nil
}

// present tells whether the stream holds an object of this kind and name in ns.
func present(docs []document, kind, name, ns, release string) bool {
	for _, doc := range docs {
		if doc.kind() == kind && doc.meta("name") == name && doc.namespace(release) == ns {
			return true
		}
	}
	return false
}
