//go:build integration

package itest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// AdmissionEngine is one way proxy-policies injects, chosen by values.
type AdmissionEngine struct {
	Name, Values string
	Native       bool
}

var AdmissionEngines = []AdmissionEngine{
	{Name: "native", Values: "kyverno: {enabled: false}\nnative: {enabled: true, secretNamespaces: [apps]}\n", Native: true},
	{Name: "MutatingPolicy", Values: "kyverno: {enabled: true, policyKind: MutatingPolicy}\n"},
	{Name: "ClusterPolicy", Values: "kyverno: {enabled: true, policyKind: ClusterPolicy}\n"},
}

// WaitForNoInjection waits until new Pods in apps are admitted without proxy env.
func WaitForNoInjection(t testing.TB, cp *harness.ControlPlane) {
	t.Helper()
	WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool { return len(c.Env) == 0 })
}

// SecretBecomes waits up to timeout for the Secret to pass ok, and says whether it did.
func SecretBecomes(t *testing.T, cp *harness.ControlPlane, ns, name string, ok func(*corev1.Secret) bool, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		s, err := cp.Client.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && ok(s) {
			return true
		}
		if err != nil && !apierrors.IsNotFound(err) {
			require.NoError(t, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func WaitForSecret(t *testing.T, cp *harness.ControlPlane, ns, name string, ok func(*corev1.Secret) bool) {
	t.Helper()
	if !SecretBecomes(t, cp, ns, name, ok, 60*time.Second) {
		s, err := cp.Client.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
		require.FailNow(t, "a Secret never became as expected", "%s/%s: %s", ns, name, describeSecret(s, err))
	}
}

// describeSecret says what a Secret holds when a wait for it gives up, without
// its values: the keys, which copy it is, and the record it carries.
func describeSecret(s *corev1.Secret, err error) string {
	if err != nil {
		return err.Error()
	}
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Sprintf("it has keys %v, resourceVersion %s, labels %v, record %q", keys, s.ResourceVersion, s.Labels, s.Annotations[proxytest.AnnotationProxyConfig])
}
