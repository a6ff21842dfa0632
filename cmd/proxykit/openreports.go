package main

import (
	"fmt"
	"io"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// writeOpenReports prints one openreports.io/v1alpha1 Report per Pod with findings
// (the format Kyverno and Kubewarden move to), each scoped to its Pod by UID: two
// Pods of one name in two namespaces never share a report. Named
// proxykit-<Pod UID>, so a later audit's report replaces this one.
func writeOpenReports(w io.Writer, findings []auditFinding) error {
	now := metav1.Timestamp{Seconds: time.Now().Unix()}
	var order []string
	reports := map[string]*openreportsv1alpha1.Report{}
	for _, f := range findings {
		key := f.Namespace + "/" + f.Object + "/" + f.uid
		r, ok := reports[key]
		if !ok {
			name := f.Object[len("Pod/"):]
			r = &openreportsv1alpha1.Report{
				TypeMeta: metav1.TypeMeta{APIVersion: "openreports.io/v1alpha1", Kind: "Report"},
				ObjectMeta: metav1.ObjectMeta{Name: "proxykit-" + reportSuffix(f.uid, name), Namespace: f.Namespace,
					Labels: map[string]string{"app.kubernetes.io/managed-by": "proxykit"}},
				Source: "proxykit",
				Scope:  &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: f.Namespace, Name: name, UID: types.UID(f.uid)},
			}
			reports[key] = r
			order = append(order, key)
		}
		message := f.Message
		if f.Container != "" {
			message = "container " + f.Container + ": " + message
		}
		r.Results = append(r.Results, openreportsv1alpha1.ReportResult{Source: "proxykit", Policy: "proxykit", Rule: f.Rule,
			Result: "fail", Scored: true, Description: message, Timestamp: now})
		r.Summary.Fail++
	}
	for _, key := range order {
		b, err := yaml.Marshal(reports[key])
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return err
		}
	}
	return nil
}

// reportSuffix names a Pod's report: its UID, or its name when the UID is
// unknown (a DNS subdomain either way, at most 244 characters after "proxykit-").
func reportSuffix(uid, name string) string {
	if uid != "" {
		return uid
	}
	if len(name) > 244 {
		name = name[:244]
	}
	return name
}
