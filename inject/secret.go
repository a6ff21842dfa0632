package inject

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
)

// secret is a proxy Secret the output carries.
type secret struct{ id, text string }

// secrets renders the library's proxy Secret into every namespace where an
// injected container reads it ("" is the release namespace, when unknown: Helm
// puts an object without a namespace there), unless the stream holds it already.
func (inj *injection) secrets(docs []document, wanted map[string]bool, release, namespace string) ([]secret, error) {
	if len(wanted) == 0 {
		return nil, nil
	}
	if release == "" {
		return nil, fmt.Errorf("the proxy URLs carry credentials, which go into a Secret named after the release, and the release name is unknown (the objects carry no common app.kubernetes.io/instance label): pass --release NAME")
	}
	namespaces := slices.Sorted(maps.Keys(wanted))
	var out []secret
	for _, ns := range namespaces {
		text, err := proxykit.Call{Helper: "proxykit.proxy.secret", Values: inj.values, Release: release, Namespace: ns}.Include()
		if err != nil {
			return nil, err
		}
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
