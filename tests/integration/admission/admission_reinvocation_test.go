//go:build integration

package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// sidecarLabel marks the Pods the test webhook adds a container to.
const sidecarLabel = "proxykit.io/test-sidecar"

// startSidecarWebhook registers a mutating webhook, served on loopback by the test,
// that adds a container named sidecar to every Pod labelled sidecarLabel=add, as
// service meshes and secret agents do. The API server calls webhooks after every
// MutatingAdmissionPolicy, so the native policy meets the sidecar only when it is
// invoked again (reinvocationPolicy IfNeeded).
func startSidecarWebhook(t *testing.T, cp *harness.ControlPlane) {
	t.Helper()
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		var pod corev1.Pod
		_ = json.Unmarshal(review.Request.Object.Raw, &pod)
		response := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if !hasContainer(pod, "sidecar") {
			patch := []byte(`[{"op": "add", "path": "/spec/containers/-", "value": {"name": "sidecar", "image": "busybox"}}]`)
			patchType := admissionv1.PatchTypeJSONPatch
			response.Patch, response.PatchType = patch, &patchType
		}
		review.Response, review.Request = response, nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(server.Close)
	url := server.URL
	none, fail, never := admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Fail, admissionregistrationv1.NeverReinvocationPolicy
	_, err := cp.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(), &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "test-sidecar"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "sidecar.proxykit.test",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{sidecarLabel: "add"}},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			ReinvocationPolicy:      &never,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	deadline := time.Now().Add(30 * time.Second)
	for { // the API server calls the webhook once a labelled Pod gets its sidecar
		p := sidecarPod("sidecar-canary")
		created, err := cp.Client.CoreV1().Pods("apps").Create(context.Background(), &p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		require.NoError(t, err)
		if hasContainer(*created, "sidecar") {
			return
		}
		require.True(t, time.Now().Before(deadline), "the sidecar webhook never took effect")
		time.Sleep(100 * time.Millisecond)
	}
}

// sidecarPod is a Pod in apps, of one container, that the test webhook adds a sidecar to.
func sidecarPod(name string) corev1.Pod {
	p := fixture.Pod(name, "apps", nil, fixture.Ctr("app"))
	p.Labels = map[string]string{sidecarLabel: "add"}
	return p
}

// hasContainer tells whether p has a container of that name.
func hasContainer(p corev1.Pod, name string) bool {
	for _, c := range p.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// assertSidecarInjected: a container a webhook adds after the native policy ran gets
// the proxy when the API server invokes the policy again; and a Pod nothing else
// changes is mutated once, not twice (proxy-policies.cel.pending skips the second
// pass the API server makes after the policy's own change), counted by the API
// server's apiserver_mutating_admission_policy_check_total.
func assertSidecarInjected(t *testing.T, cp *harness.ControlPlane, cell admissionCell, want []corev1.EnvVar) {
	t.Helper()
	ctx := context.Background()
	policy, err := cp.Client.AdmissionregistrationV1().MutatingAdmissionPolicies().Get(ctx, "inject-proxy-env", metav1.GetOptions{})
	require.NoError(t, err)
	mutations := len(policy.Spec.Mutations)

	before := policyMutations(t, cp, policy.Name)
	plain := itest.CreatePod(t, cp, fixture.Pod("once-"+cell.id, "apps", nil, fixture.Ctr("app")))
	assert.Equal(t, mutations, policyMutations(t, cp, policy.Name)-before, "a Pod nothing else changes: each mutation once")

	before = policyMutations(t, cp, policy.Name)
	stored := itest.CreatePod(t, cp, sidecarPod("sidecar-"+cell.id))
	assert.Equal(t, 2*mutations, policyMutations(t, cp, policy.Name)-before, "invoked again after the webhook's change")
	require.Len(t, stored.Spec.Containers, 2)
	for _, c := range stored.Spec.Containers {
		assert.Equal(t, want, c.Env, "container %s", c.Name)
	}
	if cell.trusts() {
		assertBundleMounted(t, stored, cell.config == configClusterTrustBundle)
	}
	for _, p := range []corev1.Pod{plain, stored} {
		_ = cp.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
	}
}

// policyMutations reads the API server's count of a MutatingAdmissionPolicy's
// mutations from its /metrics (every binding and outcome summed).
func policyMutations(t *testing.T, cp *harness.ControlPlane, policy string) int {
	t.Helper()
	metrics, err := cp.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	require.NoError(t, err)
	line := regexp.MustCompile(`^apiserver_mutating_admission_policy_check_total\{.*policy="` + regexp.QuoteMeta(policy) + `".*\} ([0-9]+)$`)
	total := 0
	for _, l := range bytes.Split(metrics, []byte("\n")) {
		if m := line.FindSubmatch(bytes.TrimSpace(l)); m != nil {
			n, _ := strconv.Atoi(string(m[1]))
			total += n
		}
	}
	return total
}
