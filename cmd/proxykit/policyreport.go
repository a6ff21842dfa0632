package main

import (
	"fmt"
	"io"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// policyReport is a wgpolicyk8s.io/v1alpha2 PolicyReport, the format Kyverno's
// reports and Policy Reporter read: one per namespace with findings.
type policyReport struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Metadata   policyReportMeta    `json:"metadata"`
	Summary    map[string]int      `json:"summary"`
	Results    []policyReportEntry `json:"results"`
}

type policyReportMeta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
}

type policyReportEntry struct {
	Source    string                   `json:"source"`
	Policy    string                   `json:"policy"`
	Rule      string                   `json:"rule"`
	Result    string                   `json:"result"`
	Scored    bool                     `json:"scored"`
	Message   string                   `json:"message"`
	Timestamp map[string]int64         `json:"timestamp"`
	Resources []corev1.ObjectReference `json:"resources"`
}

// writePolicyReports prints the reports as YAML documents, for kubectl apply -f -.
func writePolicyReports(w io.Writer, findings []auditFinding) error {
	now := time.Now().Unix()
	reports := map[string]*policyReport{}
	for _, f := range findings {
		r, ok := reports[f.Namespace]
		if !ok {
			r = &policyReport{APIVersion: "wgpolicyk8s.io/v1alpha2", Kind: "PolicyReport",
				Metadata: policyReportMeta{Name: "proxykit-audit", Namespace: f.Namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "proxykit"}},
				Summary:  map[string]int{"pass": 0, "fail": 0, "warn": 0, "error": 0, "skip": 0}}
			reports[f.Namespace] = r
		}
		message := f.Message
		if f.Container != "" {
			message = "container " + f.Container + ": " + message
		}
		r.Results = append(r.Results, policyReportEntry{Source: "proxykit", Policy: "proxykit", Rule: f.Rule, Result: "fail", Scored: true,
			Message: message, Timestamp: map[string]int64{"seconds": now, "nanos": 0},
			Resources: []corev1.ObjectReference{{APIVersion: "v1", Kind: "Pod", Namespace: f.Namespace, Name: f.Object[len("Pod/"):], UID: types.UID(f.uid)}}})
		r.Summary["fail"]++
	}
	namespaces := make([]string, 0, len(reports))
	for ns := range reports {
		namespaces = append(namespaces, ns)
	}
	sort.Strings(namespaces)
	for _, ns := range namespaces {
		b, err := yaml.Marshal(reports[ns])
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return err
		}
	}
	return nil
}
