package proxykit

import (
	"encoding/json"
	"fmt"
)

// JavaSkipped is a NO_PROXY entry the JVM's http.nonProxyHosts cannot express,
// and why.
type JavaSkipped struct {
	Entry  string `json:"entry"`
	Reason string `json:"reason"`
}

// JavaNonProxyHosts translates a NO_PROXY value to the JVM's http.nonProxyHosts
// with the library's proxykit.java.nonProxyHosts, the translation that
// JAVA_TOOL_OPTIONS carries: "|"-separated patterns, and the entries left out.
func JavaNonProxyHosts(noProxy string) (string, []JavaSkipped, error) {
	out, err := includeWith(`{{ include "proxykit.java.nonProxyHosts" .Values.noProxy }}`, map[string]any{"noProxy": noProxy})
	if err != nil {
		return "", nil, err
	}
	var parsed struct {
		NonProxyHosts string        `json:"nonProxyHosts"`
		Skipped       []JavaSkipped `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &parsed); err != nil {
		return "", nil, fmt.Errorf("proxykit: read proxykit.java.nonProxyHosts: %w", err)
	}
	return parsed.NonProxyHosts, parsed.Skipped, nil
}
