package harness

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ControlPlane is etcd and kube-apiserver running on loopback for one test.
type ControlPlane struct {
	Config     *rest.Config
	Client     kubernetes.Interface
	Kubeconfig string        // a kubeconfig file for the helm CLI
	StartedIn  time.Duration // from starting etcd to a ready API server
	PIDs       []int         // etcd's and kube-apiserver's (harness.CPUTime, harness.Settle)
}

// AdminToken authenticates as system:masters on every ControlPlane.
const AdminToken = "proxykit-e2e-admin-token"

// StartControlPlane starts etcd and kube-apiserver (bin/etcd,
// bin/kube-apiserver) in a temp dir and waits for /readyz. The service
// network is dual-stack: 10.96.0.0/12 and fd00:10:96::/112; the beta
// ClusterTrustBundle API is served, and Pods may project bundles.
func StartControlPlane(t testing.TB) *ControlPlane {
	t.Helper()
	dir := t.TempDir()
	began := time.Now()

	etcdClient, etcdPeer := FreePort(t), FreePort(t)
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	etcd := StartProcess(t, dir, "etcd",
		"--name=e2e", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL, "--unsafe-no-fsync", "--log-level=warn")

	tokens := filepath.Join(dir, "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte(AdminToken+",admin,admin,system:masters\n"), 0o600))
	saKey, saPub := writeServiceAccountKey(t, dir)
	port := FreePort(t)
	apiserver := StartProcess(t, dir, "kube-apiserver",
		"--etcd-servers="+clientURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+saPub, "--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.96.0.0/12,fd00:10:96::/112", // dual stack, for the IPv6-first http-proxy Service
		// ClusterTrustBundle and its projected volume are beta and off before 1.37: on here, as
		// cluster-proxy renders a bundle and proxy.trustBundle mounts the bundles (without the
		// projection gate the API server drops a Pod's clusterTrustBundle sources)
		"--feature-gates=ClusterTrustBundle=true,ClusterTrustBundleProjection=true", "--runtime-config=certificates.k8s.io/v1beta1/clustertrustbundles=true",
		"--v=1")

	host := fmt.Sprintf("https://127.0.0.1:%d", port)
	WaitReady(t, host+"/readyz", 90*time.Second)
	cfg := &rest.Config{Host: host, BearerToken: AdminToken, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 100, Burst: 200}
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)

	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: %q}}]
contexts: [{name: e2e, context: {cluster: e2e, user: admin}}]
current-context: e2e
`, host, AdminToken)), 0o600))
	return &ControlPlane{Config: cfg, Client: client, Kubeconfig: kubeconfig, StartedIn: time.Since(began), PIDs: []int{etcd, apiserver}}
}

// writeServiceAccountKey writes an RSA key pair for service account tokens.
func writeServiceAccountKey(t testing.TB, dir string) (private, public string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	private, public = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	require.NoError(t, os.WriteFile(private, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(public, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600))
	return private, public
}

// WaitReady polls an endpoint with the admin token until it answers 200.
func WaitReady(t testing.TB, url string, timeout time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	require.FailNow(t, "API server not ready", "%s: %s", url, last)
}

// EnsureNamespace creates a namespace and its default ServiceAccount, which
// Pods need and which no controller-manager creates here.
func (cp *ControlPlane) EnsureNamespace(t testing.TB, name string) {
	t.Helper()
	ctx := context.Background()
	_, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	_, err = cp.Client.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
}
