//go:build integration

package itest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/internal/testfs"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Kyverno namespace and the names its admission controller expects for
// its self-signed webhook CA and serving pair (as Kyverno's own chart names them).
const (
	KyvernoNamespace = "kyverno"
	kyvernoCASecret  = "kyverno-svc.kyverno.svc.kyverno-tls-ca"
	kyvernoTLSSecret = "kyverno-svc.kyverno.svc.kyverno-tls-pair"
)

// StartKyverno runs Kyverno's admission controller and background controller,
// built by `make tools` from the module tools/kyverno pins, as processes
// against the loopback API server: Kyverno's out-of-cluster mode, in which the
// admission controller registers its webhooks with a URL on loopback (--serverIP)
// instead of a Service. It installs Kyverno's CRDs, and its RBAC from its own
// chart; each controller runs with a token of its own ServiceAccount, so only
// the permissions Kyverno and the proxy-policies chart grant it apply. It returns
// the two controllers' process IDs.
func StartKyverno(t testing.TB, cp *harness.ControlPlane, o *ObjectClient) []int {
	t.Helper()
	ApplyKyvernoCRDs(t, o)
	for _, glob := range []string{"config/crds/reports/*.yaml", "config/crds/policyreport/*.yaml"} {
		ApplyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", glob, schema.GroupVersionKind{})
	}
	cp.EnsureNamespace(t, KyvernoNamespace)
	// Kyverno's RBAC and configuration from its own chart; its ClusterRoles are
	// aggregated, which Kubernetes' aggregation controller does
	harness.StartProcess(t, t.TempDir(), "clusterrole-aggregation", "--kubeconfig="+cp.Kubeconfig)
	for _, d := range renderKyvernoChart(t).Objects {
		switch d.Kind {
		case "ServiceAccount", "ConfigMap", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			ri, obj := o.Resource(t, d, KyvernoNamespace)
			_, err := ri.Create(context.Background(), obj, metav1.CreateOptions{})
			if !apierrors.IsAlreadyExists(err) {
				require.NoError(t, err, "%s %s from Kyverno's chart", d.Kind, d.Name)
			}
		}
	}

	// the controllers' logs go to the test's temp dir (their tails are printed when a
	// test fails); PROXYKIT_KYVERNO_LOGS=DIR keeps them whole, for debugging
	dir := t.TempDir()
	if d := os.Getenv("PROXYKIT_KYVERNO_LOGS"); d != "" {
		dir = d
	}
	// what Kyverno's chart sets in its Deployments; a later duplicate key wins in os/exec
	env := []string{
		"KYVERNO_NAMESPACE=" + KyvernoNamespace,
		"KYVERNO_SVC=kyverno-svc",
		"KYVERNO_SERVICEACCOUNT_NAME=kyverno-admission-controller",
		"KYVERNO_DEPLOYMENT=kyverno-admission-controller",
		"KYVERNO_POD_NAME=kyverno-admission-controller-local",
		"INIT_CONFIG=kyverno",
		"METRICS_CONFIG=kyverno-metrics",
	}
	common := func(serviceAccount string) []string {
		return []string{"--kubeconfig=" + ServiceAccountKubeconfig(t, cp, dir, KyvernoNamespace, serviceAccount), "--disableMetrics", "--autoMemLimitEnabled=false",
			"--metricsHost=127.0.0.1", fmt.Sprintf("--metricsPort=%d", harness.FreePort(t)),
			"--controllerRuntimeMetricsAddress=0", // controller-runtime metrics on :8080 otherwise
			"--clientRateLimitQPS=300", "--clientRateLimitBurst=600", "--disableLogColor"}
	}
	port := harness.FreePort(t)
	args := append(common("kyverno-admission-controller"),
		fmt.Sprintf("--serverIP=127.0.0.1:%d", port),
		"--webhookServerHost=127.0.0.1", fmt.Sprintf("--webhookServerPort=%d", port),
		"--caSecretName="+kyvernoCASecret, "--tlsSecretName="+kyvernoTLSSecret,
		"--backgroundServiceAccountName=system:serviceaccount:kyverno:kyverno-background-controller",
		"--admissionReports=false", "--webhookRegistrationTimeout=30s")
	// PROXYKIT_KYVERNO_PROFILE=PORT serves the admission controller's pprof on
	// 127.0.0.1:PORT, for profiling the policies (docs/testing.md)
	if p := os.Getenv("PROXYKIT_KYVERNO_PROFILE"); p != "" {
		args = append(args, "--profile", "--profileAddress=127.0.0.1", "--profilePort="+p)
	}
	admission := harness.StartProcessEnv(t, dir, env, "kyverno-admission-controller", args...)
	background := harness.StartProcessEnv(t, dir, append(env[:len(env):len(env)], "KYVERNO_SERVICEACCOUNT_NAME=kyverno-background-controller",
		"KYVERNO_DEPLOYMENT=kyverno-background-controller", "KYVERNO_POD_NAME=kyverno-background-controller-local"),
		"kyverno-background-controller", common("kyverno-background-controller")...)
	harness.WaitReady(t, fmt.Sprintf("https://127.0.0.1:%d/health/liveness", port), 90*time.Second)
	return []int{admission, background}
}

// renderKyvernoChart renders Kyverno's own Helm chart from the module that
// tools/kyverno pins, with its CRDs left out (applied above). Its optional
// remote subcharts (CRD bundles, the reports server) are off and not shipped in
// the module, so they are dropped from a copy of its Chart.yaml.
func renderKyvernoChart(t testing.TB) *proxytest.Manifests {
	t.Helper()
	chart := filepath.Join(t.TempDir(), "kyverno")
	testfs.CopyTree(t, filepath.Join(moduleDir(t, "github.com/kyverno/kyverno", "kyverno"), "charts", "kyverno"), chart)
	raw, err := os.ReadFile(filepath.Join(chart, "Chart.yaml"))
	require.NoError(t, err)
	var meta map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &meta))
	var local []any
	for _, dep := range meta["dependencies"].([]any) {
		if _, remote := dep.(map[string]any)["repository"]; !remote {
			local = append(local, dep)
		}
	}
	meta["dependencies"] = local
	raw, err = yaml.Marshal(meta)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(chart, "Chart.yaml"), raw, 0o644))
	out, err := exec.Command(fixture.Path("bin", "helm"), "template", "kyverno", chart, "--namespace", KyvernoNamespace,
		"--kube-version", "1.36.0", "--set", "crds.install=false").CombinedOutput()
	require.NoError(t, err, "helm template Kyverno's chart: %s", out)
	m, err := proxytest.Parse(string(out))
	require.NoError(t, err)
	return m
}

// ServiceAccountKubeconfig writes a kubeconfig that acts as a ServiceAccount,
// with a token from the TokenRequest API.
func ServiceAccountKubeconfig(t testing.TB, cp *harness.ControlPlane, dir, ns, name string) string {
	t.Helper()
	expiry := int64(3600)
	token, err := cp.Client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	require.NoError(t, err, "token for %s/%s", ns, name)
	path := filepath.Join(dir, name+".kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: %s, user: {token: %q}}]
contexts: [{name: e2e, context: {cluster: e2e, user: %s}}]
current-context: e2e
`, cp.Config.Host, name, token.Status.Token, name)), 0o600))
	return path
}

// GrantKyvernoSecrets is what the README asks of ClusterPolicy users with
// credentials before they install: Kyverno checks its controllers' access to
// Secrets when a generate rule arrives, which can be before Kubernetes has
// aggregated the roles the chart brings. It binds a ClusterRole to both
// controllers and waits until the API server's authorizer allows them.
func GrantKyvernoSecrets(t testing.TB, cp *harness.ControlPlane) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kyverno-secrets"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}}}
	if _, err := cp.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	for _, sa := range []string{"kyverno-admission-controller", "kyverno-background-controller"} {
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa + ":secrets"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: KyvernoNamespace, Name: sa}}}
		if _, err := cp.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + KyvernoNamespace + ":" + sa,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: "apps"}}}
		deadline := time.Now().Add(30 * time.Second)
		for {
			got, err := cp.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			require.NoError(t, err)
			if got.Status.Allowed {
				break
			}
			require.True(t, time.Now().Before(deadline), "%s never got access to Secrets", sa)
			time.Sleep(100 * time.Millisecond)
		}
	}
}
