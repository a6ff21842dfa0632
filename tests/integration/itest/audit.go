//go:build integration

package itest

// AuditRow is one finding of `proxykit audit -o json`.
type AuditRow struct {
	Namespace, Object, Container, Rule, Message string
}
