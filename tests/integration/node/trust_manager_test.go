//go:build integration

package node

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestTrustManagerFillsTheBundle runs trust-manager's controller (built from its
// Go module) against the loopback kube-apiserver: the Bundle cluster-proxy
// renders becomes ConfigMap proxykit-ca-bundle in the namespaces, with the
// public roots (trust-manager's default package, here Debian's bundle) and the
// proxy's CA under the key the Pods' mount reads.
func TestTrustManagerFillsTheBundle(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	cp := harness.StartControlPlane(t)
	for _, ns := range []string{"org-acme", "apps"} {
		cp.EnsureNamespace(t, ns)
	}
	startTrustManager(t, cp)

	dir := t.TempDir()
	ca, key := fixture.NewCA(t, "corp intercepting proxy")
	values := filepath.Join(dir, "values.yaml")
	require.NoError(t, os.WriteFile(values, []byte(fixture.ValuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"proxy":       map[string]any{"https": "http://proxy.corp.example:3128", "trustedCA": ca},
		"cluster":     map[string]any{"serviceCIDRs": "10.96.0.0/12"},
	})), 0o600))
	itest.NewHelmHome(t).Run(t, "", "install", "wc1-proxy", fixture.ClusterProxy, "--namespace", "org-acme", "-f", values, "--kubeconfig", cp.Kubeconfig)

	// what every Pod mounts, as the library names it
	spec := proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.TrustValues(t, "proxy", ca))), fixture.Release+"-app").Spec.Template.Spec
	configMap, file := spec.Volumes[0].ConfigMap.Name, filepath.Base(fixture.BundleFile)
	var p12 []byte
	for _, ns := range []string{"apps", "org-acme"} {
		var bundle string
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if cm, err := cp.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), configMap, metav1.GetOptions{}); err == nil {
				if bundle, p12 = cm.Data[file], cm.BinaryData["ca-certificates.p12"]; bundle != "" && len(p12) > 0 {
					break
				}
			}
			time.Sleep(250 * time.Millisecond)
		}
		require.NotEmpty(t, bundle, "trust-manager wrote no %s/%s with key %s", ns, configMap, file)
		require.NotEmpty(t, p12, "trust-manager wrote no PKCS#12 trust store into %s/%s", ns, configMap)
		assert.Contains(t, bundle, strings.TrimSpace(strings.TrimPrefix(ca, "-----BEGIN CERTIFICATE-----\n"))[:64], "the proxy's CA is in the bundle")
		assert.Greater(t, strings.Count(bundle, "BEGIN CERTIFICATE"), 100, "beside the public roots")
	}
	// the store the JVM's flags point at, as trust-manager wrote it, makes the JVM
	// trust the intercepting proxy
	assertJVMTrustsTheProxy(t, ca, key, p12)
}

// startTrustManager applies trust-manager's Bundle CRD and runs its controller
// against cp, with trust namespace cert-manager and Debian's bundle as its
// default package (the public roots).
func startTrustManager(t *testing.T, cp *harness.ControlPlane) {
	t.Helper()
	itest.ApplyModuleCRDs(t, itest.NewObjectClient(t, cp), "github.com/cert-manager/trust-manager", "trust-manager", "deploy/crds/trust.cert-manager.io_bundles.yaml",
		schema.GroupVersionKind{Group: "trust.cert-manager.io", Version: "v1alpha1", Kind: "Bundle"})
	cp.EnsureNamespace(t, "cert-manager")
	dir := t.TempDir()
	roots, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	require.NoError(t, err, "Debian's ca-certificates bundle")
	pkg, err := json.Marshal(map[string]string{"name": "debian-ca-certificates", "bundle": string(roots), "version": "test"})
	require.NoError(t, err)
	pkgFile := filepath.Join(dir, "package.json")
	require.NoError(t, os.WriteFile(pkgFile, pkg, 0o600))
	certDir := filepath.Join(dir, "tls")
	writeServingCert(t, certDir)
	harness.StartProcess(t, dir, "trust-manager",
		"--kubeconfig", cp.Kubeconfig, "--trust-namespace", "cert-manager", "--default-package-location", pkgFile,
		"--leader-elect=false", "--webhook-host", "127.0.0.1", fmt.Sprintf("--webhook-port=%d", harness.FreePort(t)), "--webhook-certificate-dir", certDir,
		fmt.Sprintf("--readiness-probe-port=%d", harness.FreePort(t)), fmt.Sprintf("--metrics-port=%d", harness.FreePort(t)))
}

// writeServingCert writes a self-signed tls.crt and tls.key for 127.0.0.1, for
// servers a test starts that insist on TLS (trust-manager's webhook).
func writeServingCert(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
}
