package audit

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// ReportFormat names a report kind as `proxykit audit -o` does.
type ReportFormat string

// The report formats Write keeps.
const (
	FormatPolicyReport ReportFormat = "policyreport" // wgpolicyk8s.io/v1alpha2 PolicyReports (PolicyReports)
	FormatOpenReports  ReportFormat = "openreports"  // openreports.io/v1alpha1 Reports (OpenReports)
)

var reportResources = map[ReportFormat]schema.GroupVersionResource{
	FormatPolicyReport: {Group: "wgpolicyk8s.io", Version: "v1alpha2", Resource: "policyreports"},
	FormatOpenReports:  {Group: "openreports.io", Version: "v1alpha1", Resource: "reports"},
}

// FieldManager owns the fields Write applies, as Kyverno's controllers own theirs.
const FieldManager = "proxykit"

// WriteResult is what Write changed.
type WriteResult struct {
	Applied, Deleted []string // "namespace/name"
}

// Write keeps the reports of an audit current in the cluster, as Kyverno's
// background controller keeps its own: it applies each report server-side
// (field manager proxykit, so no last-applied annotation bounds its size) and
// deletes the reports it wrote before (label app.kubernetes.io/managed-by:
// proxykit, and fields applied by its field manager: a user's report that
// merely carries the label is left alone) that the new set no longer holds: the reports of Pods that were
// fixed or deleted, and a namespace's extra reports once it needs fewer.
// namespace is the one audited ("" for every namespace but SystemNamespaces),
// so that an audit of one namespace leaves the others' reports alone.
func Write(ctx context.Context, client dynamic.Interface, format ReportFormat, namespace string, findings []Finding) (*WriteResult, error) {
	resource, ok := reportResources[format]
	if !ok {
		return nil, fmt.Errorf("proxykit: no report format %q: policyreport or openreports", format)
	}
	var reports []any
	if format == FormatPolicyReport {
		for _, r := range PolicyReports(findings) {
			reports = append(reports, &r)
		}
	} else {
		for _, r := range OpenReports(findings) {
			reports = append(reports, &r)
		}
	}
	result := &WriteResult{}
	keep := map[string]bool{}
	for _, r := range reports {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		key := u.GetNamespace() + "/" + u.GetName()
		if _, err := client.Resource(resource).Namespace(u.GetNamespace()).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
			return result, fmt.Errorf("apply %s %s: %w", resource.Resource, key, err)
		}
		keep[key] = true
		result.Applied = append(result.Applied, key)
	}
	selector := labels.SelectorFromSet(managedBy).String()
	old, err := client.Resource(resource).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return result, fmt.Errorf("list %s: %w", resource.Resource, err)
	}
	for _, o := range old.Items {
		key := o.GetNamespace() + "/" + o.GetName()
		if keep[key] || (namespace == "" && slices.Contains(SystemNamespaces, o.GetNamespace())) || !appliedByProxykit(o) {
			continue
		}
		err := client.Resource(resource).Namespace(o.GetNamespace()).Delete(ctx, o.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return result, fmt.Errorf("delete %s %s: %w", resource.Resource, key, err)
		}
		result.Deleted = append(result.Deleted, key)
	}
	return result, nil
}

// appliedByProxykit tells whether Write applied the object: its managed fields
// name the field manager proxykit, as only Write's server-side apply sets it.
func appliedByProxykit(o unstructured.Unstructured) bool {
	for _, f := range o.GetManagedFields() {
		if f.Manager == FieldManager && f.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}
