//go:build integration

package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// installThroughInject installs Kyverno's chart into the live API server with
// `helm install --post-renderer` (Helm 3) and credentials: the API server takes
// every injected object, the Deployments are stored with the proxy and the
// release's Services in NO_PROXY, and the Secret their env reads is part of the
// release, with the URL byte for byte.
func installThroughInject(t *testing.T, cp *harness.ControlPlane) {
	ctx := context.Background()
	bin := itest.ProxykitCLI(t)
	dir := itest.UnownedChart(t, "github.com/kyverno/kyverno", "kyverno", "charts/kyverno")
	values := itest.WriteTemp(t, itest.InjectValuesCredentials)
	env := itest.NewHelmHome(t).Env
	itest.RunHelm(t, env, "helm", "install", "kyverno", dir, "-n", "kyverno", "--kubeconfig", cp.Kubeconfig, "--set", "crds.install=false",
		"--post-renderer", bin, "--post-renderer-args", "inject", "--post-renderer-args", "-f", "--post-renderer-args", values,
		"--post-renderer-args", "-n", "--post-renderer-args", "kyverno")
	defer itest.RunHelm(t, env, "helm", "uninstall", "kyverno", "-n", "kyverno", "--kubeconfig", cp.Kubeconfig, "--no-hooks") // no controller runs the hook Jobs

	deployments, err := cp.Client.AppsV1().Deployments("kyverno").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, deployments.Items)
	for _, d := range deployments.Items {
		for _, c := range append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers...) {
			e := fixture.EnvMap(c.Env)
			require.NotNil(t, e["HTTPS_PROXY"].ValueFrom, "%s/%s", d.Name, c.Name)
			assert.Equal(t, "kyverno-proxy-credentials", e["HTTPS_PROXY"].ValueFrom.SecretKeyRef.Name, "%s/%s", d.Name, c.Name)
			assert.Contains(t, e["no_proxy"].Value, ",kyverno-svc,kyverno-svc.kyverno,kyverno-svc.kyverno.svc,", "%s/%s", d.Name, c.Name)
		}
	}
	secret, err := cp.Client.CoreV1().Secrets("kyverno").Get(ctx, "kyverno-proxy-credentials", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "http://svc-user:"+fixture.Password+"@proxy.corp.example:3128", string(secret.Data["HTTPS_PROXY"]))
	assert.Equal(t, "kyverno", secret.Annotations["meta.helm.sh/release-name"], "the Secret belongs to the release")
}
