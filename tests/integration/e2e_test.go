//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/gruntwork-io/terratest/modules/k8s"
	"github.com/gruntwork-io/terratest/modules/logger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// e2eRelease is one chart installed into the live API server.
type e2eRelease struct {
	name, chart, namespace, values string
}

// TestE2E installs every chart into a real kube-apiserver, upgrades and
// uninstalls them, and checks the native policy's override and trust behaviour
// on stored Pods (the admission matrix runs every engine and configuration).
// `make e2e` runs it with the matrix.
func TestE2E(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	began := time.Now()
	cp := harness.StartControlPlane(t)
	t.Logf("etcd + kube-apiserver ready in %s", cp.StartedIn.Round(time.Millisecond))
	objects := newObjectClient(t, cp)
	applyKyvernoCRDs(t, cp, objects) // Kyverno's own chart is installed too
	for _, ns := range []string{"kube-system", "kube-public", fixture.Namespace, "apps", "team-a", "kyverno", "batch", "charts"} {
		cp.EnsureNamespace(t, ns)
	}

	releases := []e2eRelease{
		{"test", fixture.ProxyPolicies, fixture.Namespace, fixture.PolicyValuesPlain},
		{"cp", fixture.ClusterProxy, "apps", fixture.ClusterProxyPlain},
		{"cp-mgmt", fixture.ClusterProxy, "batch", fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt", "certManager": map[string]any{"namespace": "batch"}})},
		{"chart-operator", fixture.ChartOperator, "charts", fixture.CredentialValues(t, nil)},
	}

	t.Run("every object passes strict field validation", func(t *testing.T) {
		for _, rel := range append(releases, e2eRelease{"creds", fixture.ProxyPolicies, fixture.Namespace,
			fixture.CredentialValues(t, map[string]any{"native": map[string]any{"enabled": true, "secretNamespaces": []string{"apps"}}})}) {
			for _, d := range renderRelease(t, rel).Objects {
				objects.dryRunStrict(t, d, rel.namespace)
			}
		}
	})

	t.Run("helm install every chart", func(t *testing.T) {
		for _, rel := range releases {
			require.NoError(t, helm.InstallE(t, helmOptions(cp, rel), rel.chart, rel.name), "helm install %s", rel.name)
			for _, d := range renderRelease(t, rel).Objects {
				objects.mustExist(t, d, rel.namespace)
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
			rel.values = strings.ReplaceAll(rel.values, "http://proxy.corp.example:3129", newHTTPS)
			require.Contains(t, rel.values, newHTTPS)
			require.NoError(t, helm.UpgradeE(t, helmOptions(cp, *rel), rel.chart, rel.name), "helm upgrade %s", rel.name)
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
		waitForInjection(t, cp, "apps", newHTTPS)
	})

	t.Run("native overrideExisting replaces own values and keeps own valueFrom", func(t *testing.T) {
		rel := &releases[0]
		rel.values += "policy: {overrideExisting: true}\n"
		require.NoError(t, helm.UpgradeE(t, helmOptions(cp, *rel), rel.chart, rel.name), "helm upgrade %s", rel.name)
		waitFor(t, cp, "apps", fixture.Ctr("canary", fixture.Val("HTTP_PROXY", "http://own:1")), func(c corev1.Container) bool {
			return fixture.EnvMap(c.Env)["HTTP_PROXY"].Value == fixture.PolicyProxyEnv[0].Value
		})
		own := fixture.Pod("override", "apps", nil, fixture.Ctr("app",
			fixture.Val("TZ", "UTC"), fixture.Val("HTTP_PROXY", "http://own:1"), fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url")))
		env := createPod(t, cp, own).Spec.Containers[0].Env
		require.Len(t, env, 7)
		// the plain value is replaced in place; a merge cannot drop valueFrom, so that one stays
		assert.Equal(t, []corev1.EnvVar{fixture.Val("TZ", "UTC"), fixture.PolicyProxyEnv[0], fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url")}, env[:3])
	})

	t.Run("native overrideExisting puts the JVM flags last, over a container's older proxy flags", func(t *testing.T) {
		rel := &releases[0]
		before := rel.values
		rel.values = strings.Replace(rel.values, "proxy:\n", "proxy:\n  runtimes: [java]\n", 1)
		require.Contains(t, rel.values, "runtimes: [java]")
		require.NoError(t, helm.UpgradeE(t, helmOptions(cp, *rel), rel.chart, rel.name), "helm upgrade %s", rel.name)
		defer func() { // the next steps judge the release without the runtime
			rel.values = before
			require.NoError(t, helm.UpgradeE(t, helmOptions(cp, *rel), rel.chart, rel.name), "helm upgrade %s", rel.name)
			waitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool { return fixture.EnvMap(c.Env)["JAVA_TOOL_OPTIONS"].Value == "" })
		}()
		var flags string
		waitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
			flags = fixture.EnvMap(c.Env)["JAVA_TOOL_OPTIONS"].Value
			return flags != ""
		})
		const old = "-Dhttp.proxyHost=old-proxy.corp.example -Dhttp.proxyPort=8080 -Xmx64m"
		stored := createPod(t, cp, fixture.Pod("legacy-jvm", "apps", nil, fixture.Ctr("app", fixture.Val("JAVA_TOOL_OPTIONS", old))))
		assert.Equal(t, old+" "+flags, fixture.EnvMap(stored.Spec.Containers[0].Env)["JAVA_TOOL_OPTIONS"].Value, "the proxy's flags last: the JVM keeps the last -D")
	})

	t.Run("native policy injects a trusted CA", func(t *testing.T) {
		ca, _ := fixture.NewCA(t, "corp")
		rel := &releases[0]
		rel.values = strings.Replace(rel.values, "proxy:\n", "proxy:\n  trustedCA: "+fixture.YAMLQuote(ca)+"\n", 1)
		require.Contains(t, rel.values, "trustedCA")
		require.NoError(t, helm.UpgradeE(t, helmOptions(cp, *rel), rel.chart, rel.name), "helm upgrade %s", rel.name)
		waitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
			return fixture.EnvMap(c.Env)["SSL_CERT_FILE"].Value == fixture.BundleFile
		})
		withInit := fixture.Pod("trust", "apps", nil, fixture.Ctr("app"), fixture.Ctr("own-mount"))
		withInit.Spec.InitContainers = []corev1.Container{fixture.Ctr("init")}
		withInit.Spec.Containers[1].VolumeMounts = []corev1.VolumeMount{{Name: "corp-ca", MountPath: "/etc/proxykit/ca"}}
		withInit.Spec.Volumes = []corev1.Volume{{Name: "corp-ca", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		stored := createPod(t, cp, withInit)
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
			require.NoError(t, helm.DeleteE(t, helmOptions(cp, rel), rel.name, true), "helm uninstall %s", rel.name)
			for _, d := range docs {
				if d.Kind == "Secret" && strings.Contains(string(d.Raw), "helm.sh/resource-policy") {
					objects.mustExist(t, d, rel.namespace) // proxy-policies keeps the Secrets that secretKeyRefs read
				} else {
					objects.mustBeGone(t, d, rel.namespace)
				}
			}
		}
	})
	t.Logf("e2e total %s (API server start %s)", time.Since(began).Round(time.Millisecond), cp.StartedIn.Round(time.Millisecond))
}

func helmOptions(cp *harness.ControlPlane, rel e2eRelease) *helm.Options {
	valuesFile := filepath.Join(filepath.Dir(cp.Kubeconfig), rel.name+"-values.yaml")
	if err := os.WriteFile(valuesFile, []byte(rel.values), 0o600); err != nil {
		panic(err)
	}
	return &helm.Options{
		ValuesFiles:    []string{valuesFile},
		KubectlOptions: k8s.NewKubectlOptions("", cp.Kubeconfig, rel.namespace),
		Logger:         logger.Discard,
	}
}

// renderReleaseSDK is renderRelease in-process with the Helm SDK: the same
// objects (TestCLIAndSDKRenderTheSame), without a helm process per call.
func renderReleaseSDK(t testing.TB, rel e2eRelease) *proxytest.Manifests {
	t.Helper()
	m, err := fixture.RenderAs(rel.chart, rel.name, rel.namespace, rel.values)
	require.NoError(t, err)
	return m
}

// renderRelease renders a release with the helm CLI exactly as helm install will
// (same release name, namespace and values), for its list of objects.
func renderRelease(t *testing.T, rel e2eRelease) *proxytest.Manifests {
	t.Helper()
	r, err := fixture.RenderCLIAs(t, rel.chart, rel.name, rel.namespace, rel.values)
	require.NoError(t, err)
	return r
}

// createPod creates a Pod through the API server (ephemeral containers through
// their subresource, as kubectl debug does) and returns it as stored.
func createPod(t testing.TB, cp *harness.ControlPlane, p corev1.Pod) corev1.Pod {
	t.Helper()
	ctx := context.Background()
	ephemeral := p.Spec.EphemeralContainers
	p.Spec.EphemeralContainers = nil
	created, err := cp.Client.CoreV1().Pods(p.Namespace).Create(ctx, &p, metav1.CreateOptions{})
	require.NoError(t, err)
	if len(ephemeral) > 0 {
		created.Spec.EphemeralContainers = ephemeral
		created, err = cp.Client.CoreV1().Pods(p.Namespace).UpdateEphemeralContainers(ctx, created.Name, created, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	return *created
}

// waitForInjection creates canary Pods until the policy injects the expected HTTPS_PROXY.
func waitForInjection(t testing.TB, cp *harness.ControlPlane, ns, https string) {
	t.Helper()
	waitFor(t, cp, ns, fixture.Ctr("canary"), func(c corev1.Container) bool {
		return fixture.EnvMap(c.Env)["HTTPS_PROXY"].Value == https
	})
}

// waitFor creates (and deletes) canary Pods with container c until the stored
// container satisfies ok: policies take effect asynchronously after they are
// written, so the test waits for evidence instead of a fixed time.
func waitFor(t testing.TB, cp *harness.ControlPlane, ns string, c corev1.Container, ok func(corev1.Container) bool) {
	t.Helper()
	waitForPod(t, cp, ns, c, func(p corev1.Pod) bool { return ok(p.Spec.Containers[0]) })
}

// waitForPod is waitFor with a check of the whole stored Pod.
func waitForPod(t testing.TB, cp *harness.ControlPlane, ns string, c corev1.Container, ok func(corev1.Pod) bool) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		canary := fixture.Pod(fmt.Sprintf("canary-%d-%d", time.Now().UnixNano()%100000, i), ns, nil, c)
		created, err := cp.Client.CoreV1().Pods(ns).Create(ctx, &canary, metav1.CreateOptions{})
		require.NoError(t, err)
		_ = cp.Client.CoreV1().Pods(ns).Delete(ctx, created.Name, metav1.DeleteOptions{})
		if ok(*created) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.FailNow(t, "policy never took effect", "no canary Pod in %s passed the check", ns)
}

// objectClient reaches any kind the API server serves.
type objectClient struct {
	dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

func newObjectClient(t testing.TB, cp *harness.ControlPlane) *objectClient {
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cp.Config)
	require.NoError(t, err)
	return &objectClient{dynamic: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// resource finds the REST endpoint for a rendered document.
func (o *objectClient) resource(t testing.TB, d proxytest.Object, releaseNamespace string) (dynamic.ResourceInterface, *unstructured.Unstructured) {
	t.Helper()
	obj := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(d.Raw), &obj.Object))
	gvk := obj.GroupVersionKind()
	mapping, err := o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		o.mapper.Reset()
		mapping, err = o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	require.NoError(t, err, "%s is not served", gvk)
	if mapping.Scope.Name() == meta.RESTScopeNameRoot {
		return o.dynamic.Resource(mapping.Resource), obj
	}
	ns := obj.GetNamespace()
	if ns == "" {
		ns = releaseNamespace
	}
	return o.dynamic.Resource(mapping.Resource).Namespace(ns), obj
}

func (o *objectClient) dryRunStrict(t testing.TB, d proxytest.Object, releaseNamespace string) {
	t.Helper()
	ri, obj := o.resource(t, d, releaseNamespace)
	_, err := ri.Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	assert.NoError(t, err, "%s %s from %s", d.Kind, d.Name, d.Source)
}

func (o *objectClient) mustExist(t testing.TB, d proxytest.Object, releaseNamespace string) {
	t.Helper()
	ri, obj := o.resource(t, d, releaseNamespace)
	_, err := ri.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
	assert.NoError(t, err, "%s %s was not installed", d.Kind, d.Name)
}

func (o *objectClient) mustBeGone(t testing.TB, d proxytest.Object, releaseNamespace string) {
	t.Helper()
	ri, obj := o.resource(t, d, releaseNamespace)
	_, err := ri.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%s %s is left behind after uninstall (err=%v)", d.Kind, d.Name, err)
}

// applyKyvernoCRDs creates Kyverno's CRDs, read from the Kyverno module in the
// module cache (the version tools/kyverno pins), and waits until they are served.
func applyKyvernoCRDs(t testing.TB, cp *harness.ControlPlane, o *objectClient) {
	t.Helper()
	applyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", "config/crds/kyverno/*.yaml", schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "ClusterPolicy"})
	applyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", "config/crds/policies.kyverno.io/*.yaml", schema.GroupVersionKind{Group: "policies.kyverno.io", Version: "v1", Kind: "MutatingPolicy"})
}

// applyPolicyCRDs creates only the two Kyverno CRDs of the kinds proxy-policies
// renders (ClusterPolicy, MutatingPolicy), for a control plane where no Kyverno
// runs but Helm must map those kinds: the other nineteen cost the API server
// about 5 CPU-s more each time.
func applyPolicyCRDs(t testing.TB, o *objectClient) {
	t.Helper()
	applyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", "config/crds/kyverno/kyverno.io_clusterpolicies.yaml", schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "ClusterPolicy"})
	applyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", "config/crds/policies.kyverno.io/policies.kyverno.io_mutatingpolicies.yaml", schema.GroupVersionKind{Group: "policies.kyverno.io", Version: "v1", Kind: "MutatingPolicy"})
}

// moduleDir is where a Go module that tools/<toolsDir> pins sits in the module cache.
func moduleDir(t testing.TB, module, toolsDir string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Dir = fixture.Path("tools", toolsDir)
	out, err := cmd.Output()
	require.NoError(t, err, "locate the module %s", module)
	return strings.TrimSpace(string(out))
}

// applyModuleCRDs creates the CRDs a Go module ships (located through the
// tools/<toolsDir> module that pins it) and waits until served is.
func applyModuleCRDs(t testing.TB, o *objectClient, module, toolsDir, glob string, served schema.GroupVersionKind) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(moduleDir(t, module, toolsDir), glob))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		r, err := proxytest.Parse(string(raw))
		require.NoError(t, err, "%s", f)
		for _, d := range r.Objects {
			ri, obj := o.resource(t, d, "")
			_, err := ri.Create(context.Background(), obj, metav1.CreateOptions{})
			require.NoError(t, err, "CRD %s", d.Name)
		}
	}
	if served.Kind == "" {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		o.mapper.Reset()
		if _, err := o.mapper.RESTMapping(served.GroupKind(), served.Version); err == nil {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s never became served", served)
		time.Sleep(200 * time.Millisecond)
	}
}
