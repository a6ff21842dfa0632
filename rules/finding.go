package rules

import "fmt"

// Finding is one rule a container (or an object, Container empty) breaks.
type Finding struct {
	// Namespace is the object's (the release namespace when it has none; empty
	// when unknown, after Parse): "Kind/name" alone does not tell two Pods of one
	// name in two namespaces apart.
	Namespace string `json:"namespace,omitempty"`
	Object    string `json:"object"`    // "Kind/name"
	Container string `json:"container"` // the container's name; empty for object-wide findings
	Rule      string `json:"rule"`
	Message   string `json:"message"`
}

func (f Finding) String() string {
	where := f.Object
	if f.Container != "" {
		where += " container " + f.Container
	}
	return fmt.Sprintf("%s: %s: %s", where, f.Rule, f.Message)
}
