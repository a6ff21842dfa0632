//go:build integration

package admission

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestE2E installs every chart into a real kube-apiserver, upgrades and
// uninstalls them, and checks the native policy's override and trust behaviour
// on stored Pods (the admission matrix runs every engine and configuration).
// `make e2e` runs it with the matrix.
func TestE2E(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	began := time.Now()
	cp := harness.StartControlPlane(t)
	t.Logf("etcd + kube-apiserver ready in %s", cp.StartedIn.Round(time.Millisecond))
	objects := itest.NewObjectClient(t, cp)
	itest.ApplyKyvernoCRDs(t, objects) // Kyverno's own chart is installed too
	for _, ns := range []string{"kube-system", "kube-public", fixture.Namespace, "apps", "team-a", "kyverno", "batch", "charts"} {
		cp.EnsureNamespace(t, ns)
	}

	releases := []itest.E2ERelease{
		{Name: "test", Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: fixture.PolicyValuesPlain},
		{Name: "cp", Chart: fixture.ClusterProxy, Namespace: "apps", Values: fixture.ClusterProxyPlain},
		{Name: "cp-mgmt", Chart: fixture.ClusterProxy, Namespace: "batch", Values: fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt", "certManager": map[string]any{"namespace": "batch"}})},
		{Name: "chart-operator", Chart: fixture.ChartOperator, Namespace: "charts", Values: fixture.CredentialValues(t, nil)},
	}

	t.Run("every object passes strict field validation", func(t *testing.T) {
		for _, rel := range append(releases, itest.E2ERelease{Name: "creds", Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace,
			Values: fixture.CredentialValues(t, map[string]any{"native": map[string]any{"enabled": true, "secretNamespaces": []string{"apps"}}})}) {
			for _, d := range renderRelease(t, rel).Objects {
				objects.DryRunStrict(t, d, rel.Namespace)
			}
		}
	})

	t.Run("helm install every chart", func(t *testing.T) {
		for _, rel := range releases {
			require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm install %s", rel.Name)
			for _, d := range renderRelease(t, rel).Objects {
				objects.MustExist(t, d, rel.Namespace)
			}
		}
	})

	t.Run("helm install a chart nobody here wrote through proxykit inject", func(t *testing.T) {
		installThroughInject(t, cp)
	})

	t.Run("helm upgrade changes proxy.https everywhere", func(t *testing.T) {
		const newHTTPS = "http://proxy-b.corp.example:3130"
		for _, i := range []int{0, 1} {
			rel := &releases[i]
			rel.Values = strings.ReplaceAll(rel.Values, "http://proxy.corp.example:3129", newHTTPS)
			require.Contains(t, rel.Values, newHTTPS)
			require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, *rel), rel.Chart, rel.Name), "helm upgrade %s", rel.Name)
		}
		ctx := context.Background()
		values, err := cp.Client.CoreV1().Secrets("apps").Get(ctx, "wc1-cluster-values", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, string(values.Data["values"]), newHTTPS)
		dropIns, err := cp.Client.CoreV1().Secrets("apps").Get(ctx, "wc1-systemd-proxy", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, string(dropIns.Data["kubeletProxy"]), `Environment="HTTPS_PROXY=`+newHTTPS+`"`)
		envFrom, err := cp.Client.CoreV1().ConfigMaps("apps").Get(ctx, "proxy-env", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, newHTTPS, envFrom.Data["HTTPS_PROXY"])

		policy, err := cp.Client.AdmissionregistrationV1().MutatingAdmissionPolicies().Get(ctx, "inject-proxy-env", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Contains(t, policy.Spec.Mutations[0].JSONPatch.Expression, newHTTPS, "the env patch carries the new proxy")
		// new Pods get the new proxy; running ones keep theirs until a rollout
		itest.WaitForInjection(t, cp, "apps", newHTTPS)
	})

	t.Run("native overrideExisting replaces own values and keeps own valueFrom", func(t *testing.T) {
		rel := &releases[0]
		rel.Values += "policy: {overrideExisting: true}\n"
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, *rel), rel.Chart, rel.Name), "helm upgrade %s", rel.Name)
		itest.WaitFor(t, cp, "apps", fixture.Ctr("canary", fixture.Val("HTTP_PROXY", "http://own:1")), func(c corev1.Container) bool {
			return fixture.EnvMap(c.Env)["HTTP_PROXY"].Value == fixture.PolicyProxyEnv[0].Value
		})
		own := fixture.Pod("override", "apps", nil, fixture.Ctr("app",
			fixture.Val("TZ", "UTC"), fixture.Val("HTTP_PROXY", "http://own:1"), fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url")))
		env := itest.CreatePod(t, cp, own).Spec.Containers[0].Env
		require.Len(t, env, 7)
		// the plain value is replaced in place; a merge cannot drop valueFrom, so that one stays
		assert.Equal(t, []corev1.EnvVar{fixture.Val("TZ", "UTC"), fixture.PolicyProxyEnv[0], fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url")}, env[:3])
	})

	t.Run("native overrideExisting puts the JVM flags last, over a container's older proxy flags", func(t *testing.T) {
		rel := &releases[0]
		before := rel.Values
		rel.Values = strings.Replace(rel.Values, "proxy:\n", "proxy:\n  runtimes: [java]\n", 1)
		require.Contains(t, rel.Values, "runtimes: [java]")
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, *rel), rel.Chart, rel.Name), "helm upgrade %s", rel.Name)
		defer func() { // the next steps judge the release without the runtime
			rel.Values = before
			require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, *rel), rel.Chart, rel.Name), "helm upgrade %s", rel.Name)
			itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool { return fixture.EnvMap(c.Env)["JAVA_TOOL_OPTIONS"].Value == "" })
		}()
		var flags string
		itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
			flags = fixture.EnvMap(c.Env)["JAVA_TOOL_OPTIONS"].Value
			return flags != ""
		})
		const old = "-Dhttp.proxyHost=old-proxy.corp.example -Dhttp.proxyPort=8080 -Xmx64m"
		stored := itest.CreatePod(t, cp, fixture.Pod("legacy-jvm", "apps", nil, fixture.Ctr("app", fixture.Val("JAVA_TOOL_OPTIONS", old))))
		assert.Equal(t, old+" "+flags, fixture.EnvMap(stored.Spec.Containers[0].Env)["JAVA_TOOL_OPTIONS"].Value, "the proxy's flags last: the JVM keeps the last -D")
	})

	t.Run("native policy injects a trusted CA", func(t *testing.T) {
		ca, _ := fixture.NewCA(t, "corp")
		rel := &releases[0]
		rel.Values = strings.Replace(rel.Values, "proxy:\n", "proxy:\n  trustedCA: "+fixture.YAMLQuote(ca)+"\n", 1)
		require.Contains(t, rel.Values, "trustedCA")
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, *rel), rel.Chart, rel.Name), "helm upgrade %s", rel.Name)
		itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
			return fixture.EnvMap(c.Env)["SSL_CERT_FILE"].Value == fixture.BundleFile
		})
		withInit := fixture.Pod("trust", "apps", nil, fixture.Ctr("app"), fixture.Ctr("own-mount"))
		withInit.Spec.InitContainers = []corev1.Container{fixture.Ctr("init")}
		withInit.Spec.Containers[1].VolumeMounts = []corev1.VolumeMount{{Name: "corp-ca", MountPath: "/etc/proxykit/ca"}}
		withInit.Spec.Volumes = []corev1.Volume{{Name: "corp-ca", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		stored := itest.CreatePod(t, cp, withInit)
		mount := corev1.VolumeMount{Name: "proxykit-ca-bundle", MountPath: "/etc/proxykit/ca", ReadOnly: true}
		// the API server's ServiceAccount admission adds kube-api-access-*: left out here
		mounts := func(c corev1.Container) []corev1.VolumeMount {
			var out []corev1.VolumeMount
			for _, m := range c.VolumeMounts {
				if !strings.HasPrefix(m.Name, "kube-api-access-") {
					out = append(out, m)
				}
			}
			return out
		}
		assert.Equal(t, []corev1.VolumeMount{mount}, mounts(stored.Spec.Containers[0]))
		assert.Equal(t, []corev1.VolumeMount{mount}, mounts(stored.Spec.InitContainers[0]))
		assert.Equal(t, withInit.Spec.Containers[1].VolumeMounts, mounts(stored.Spec.Containers[1]), "an own mount at that path stays")
		var names []string
		for _, v := range stored.Spec.Volumes {
			if strings.HasPrefix(v.Name, "kube-api-access-") {
				continue
			}
			names = append(names, v.Name)
			if v.Name == "proxykit-ca-bundle" {
				assert.Equal(t, "proxykit-ca-bundle", v.ConfigMap.Name)
			}
		}
		assert.ElementsMatch(t, []string{"corp-ca", "proxykit-ca-bundle"}, names)
		for _, c := range append(stored.Spec.InitContainers, stored.Spec.Containers...) {
			for _, e := range fixture.TrustEnv {
				assert.Equal(t, e, fixture.EnvMap(c.Env)[e.Name], "%s in %s", e.Name, c.Name)
			}
		}
	})

	t.Run("helm uninstall leaves nothing behind but the Secrets running Pods read", func(t *testing.T) {
		for _, rel := range releases {
			docs := renderRelease(t, rel).Objects
			require.NoError(t, helm.DeleteE(t, itest.HelmOptions(cp, rel), rel.Name, true), "helm uninstall %s", rel.Name)
			for _, d := range docs {
				if d.Kind == "Secret" && strings.Contains(string(d.Raw), "helm.sh/resource-policy") {
					objects.MustExist(t, d, rel.Namespace) // proxy-policies keeps the Secrets that secretKeyRefs read
				} else {
					objects.MustBeGone(t, d, rel.Namespace)
				}
			}
		}
	})
	t.Logf("e2e total %s (API server start %s)", time.Since(began).Round(time.Millisecond), cp.StartedIn.Round(time.Millisecond))
}

// renderReleaseSDK is renderRelease in-process with the Helm SDK: the same
// objects (TestCLIAndSDKRenderTheSame), without a helm process per call.
func renderReleaseSDK(t testing.TB, rel itest.E2ERelease) *proxytest.Manifests {
	t.Helper()
	m, err := fixture.RenderE(rel.Chart, proxytest.Values(rel.Values), proxytest.Release(rel.Name, rel.Namespace))
	require.NoError(t, err)
	return m
}

// renderRelease renders a release with the helm CLI exactly as helm install will
// (same release name, namespace and values), for its list of objects.
func renderRelease(t *testing.T, rel itest.E2ERelease) *proxytest.Manifests {
	t.Helper()
	r, err := fixture.RenderCLIAs(t, rel.Chart, rel.Name, rel.Namespace, rel.Values)
	require.NoError(t, err)
	return r
}
