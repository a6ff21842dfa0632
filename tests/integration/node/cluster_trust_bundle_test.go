//go:build integration

package node

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestClusterTrustBundleOnTheAPIServer installs cluster-proxy with
// trust.clusterTrustBundle through the helm CLI into the loopback API server
// (1.36, which serves ClusterTrustBundle as certificates.k8s.io/v1beta1 once
// turned on): the chart picks the version discovery names, and the API server
// stores the CA as given, under proxykit's signer, which is what a
// clusterTrustBundle projected volume hands a Pod (TestKubeletRunsPodsThroughTheDropIns
// runs one).
func TestClusterTrustBundleOnTheAPIServer(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	cp.EnsureNamespace(t, "org-acme")
	ca, _ := fixture.NewCA(t, "corp intercepting proxy")
	values := filepath.Join(t.TempDir(), "values.yaml")
	require.NoError(t, os.WriteFile(values, []byte(fixture.ValuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"trust":       map[string]any{"enabled": false, "clusterTrustBundle": true}, // no trust-manager here
		"proxy":       map[string]any{"https": "http://proxy.corp.example:3128", "trustedCA": ca},
		"cluster":     map[string]any{"serviceCIDRs": "10.96.0.0/12"},
	})), 0o600))
	itest.NewHelmHome(t).Run(t, "", "install", "wc1-proxy", fixture.ClusterProxy, "--namespace", "org-acme", "-f", values, "--kubeconfig", cp.Kubeconfig)

	bundle, err := cp.Client.CertificatesV1beta1().ClusterTrustBundles().Get(context.Background(), "proxykit.io:trusted-ca:wc1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(ca), strings.TrimSpace(bundle.Spec.TrustBundle), "the CA alone, as given")
	assert.Equal(t, "proxykit.io/trusted-ca", bundle.Spec.SignerName, "the API server took the signer's name (Helm's user may attest for it)")
	assert.Equal(t, "wc1-proxy", bundle.Labels["app.kubernetes.io/instance"])
}
