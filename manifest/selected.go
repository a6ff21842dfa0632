package manifest

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// LabelSelection is what a container that loads ConfigMaps by their label at
// run time selects: kiwigrid's k8s-sidecar, which Grafana's chart runs beside
// Grafana for its data sources and dashboards, reads LABEL, LABEL_VALUE,
// RESOURCE and NAMESPACE from its env and writes what it finds into FOLDER.
// The program beside it calls the hosts those ConfigMaps name, though no pod
// template names them.
type LabelSelection struct {
	Label, Value string   // a ConfigMap matches with the label (and the value, when set)
	Namespaces   []string // where; empty: the Pod's own; "ALL": every namespace
}

// SelectsByLabel reads a container's LabelSelection from its plain env: false
// without LABEL or FOLDER (k8s-sidecar requires both), or when it loads
// Secrets only (RESOURCE=secret, whose values are never read).
func SelectsByLabel(c corev1.Container) (LabelSelection, bool) {
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	if env["LABEL"] == "" || env["FOLDER"] == "" || strings.EqualFold(env["RESOURCE"], "secret") {
		return LabelSelection{}, false
	}
	s := LabelSelection{Label: env["LABEL"], Value: env["LABEL_VALUE"]}
	for _, ns := range strings.Split(env["NAMESPACE"], ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			s.Namespaces = append(s.Namespaces, ns)
		}
	}
	return s, true
}

// Selects tells whether a ConfigMap in namespace with labels is selected, for
// a container of a Pod in podNamespace.
func (s LabelSelection) Selects(podNamespace, namespace string, labels map[string]string) bool {
	switch {
	case len(s.Namespaces) == 0 && namespace != podNamespace:
		return false
	case len(s.Namespaces) > 0 && !slices.Contains(s.Namespaces, "ALL") && !slices.Contains(s.Namespaces, namespace):
		return false
	}
	value, ok := labels[s.Label]
	return ok && (s.Value == "" || value == s.Value)
}
