//go:build integration

package itest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// WaitForRecord waits until a new Pod in ns is admitted with the record.
func WaitForRecord(t testing.TB, cp *harness.ControlPlane, ns, record string) {
	t.Helper()
	WaitForPod(t, cp, ns, fixture.Ctr("canary"), func(p corev1.Pod) bool { return p.Annotations[proxytest.AnnotationProxyConfig] == record })
}
