//go:build integration

package admission

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/helm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// The configurations a user chooses between.
const (
	configPlain          = "plain"
	configCredentials    = "credentials"
	configExistingSecret = "existingSecret"
	configTrustedCA      = "trustedCA"
	// the trusted CA read from ClusterTrustBundles (proxy.trustBundle): a projected
	// volume, which the CEL engines add by JSON patch
	configClusterTrustBundle = "clusterTrustBundle"
)

// admissionCell is one engine x configuration x failurePolicy, installed as its
// own release, so each cell's objects and Secret names are its own.
type admissionCell struct {
	engine                itest.AdmissionEngine
	config, failurePolicy string
	id                    string // short, unique: names the release, the proxy host and the fresh namespace
	ca                    string
}

func (c admissionCell) release() string { return "mx-" + c.id }

func (c admissionCell) proxyHost() string { return "proxy-" + c.id + ".corp.example" }

func (c admissionCell) userSecret() string { return "corp-proxy-" + c.id }

func (c admissionCell) password() string { return "Zq%40w%25&+" + c.id }

// secretName is the Secret the injected secretKeyRefs read ("" without one).
func (c admissionCell) secretName() string {
	switch c.config {
	case configCredentials:
		return c.release() + "-proxy-credentials"
	case configExistingSecret:
		return c.userSecret()
	}
	return ""
}

func (c admissionCell) values(password string) string {
	proxy := fmt.Sprintf("  http: http://%s:3128\n  https: http://%s:3129\n", c.proxyHost(), c.proxyHost())
	switch c.config {
	case configCredentials:
		proxy = fmt.Sprintf("  http: %q\n  https: %q\n", "http://svc-user:"+password+"@"+c.proxyHost()+":3128", "http://svc-user:"+password+"@"+c.proxyHost()+":3129")
	case configExistingSecret:
		proxy = "  existingSecret: " + c.userSecret() + "\n"
	case configTrustedCA:
		proxy += "  trustedCA: " + fixture.YAMLQuote(c.ca) + "\n"
	case configClusterTrustBundle:
		proxy += "  trustedCA: " + fixture.YAMLQuote(c.ca) + "\n  trustBundle: clusterTrustBundle\n"
	}
	if c.java() {
		proxy += "  runtimes: [java]\n"
	}
	return "proxy:\n" + proxy + fixture.PolicyScopeValues + "policy:\n  failurePolicy: " + c.failurePolicy + "\n" + c.engine.Values
}

// java: the cells of both mutation paths (an apply configuration without
// credentials, a JSON patch with them) run with proxy.runtimes java, and so does
// the trusted CA's, whose JAVA_TOOL_OPTIONS carries the trust store flags.
func (c admissionCell) java() bool {
	return c.config == configPlain || c.config == configCredentials || c.config == configTrustedCA
}

// env is what the cell injects into a container that sets nothing itself;
// javaOptions is the library's proxykit.java.options for the cell's values.
func (c admissionCell) env(javaOptions string) []corev1.EnvVar {
	if name := c.secretName(); name != "" {
		env := fixture.SecretEnv(name, true)
		if c.java() {
			env = append(env, fixture.Val("JAVA_TOOL_OPTIONS", javaOptions))
		}
		return env
	}
	env := []corev1.EnvVar{}
	for _, e := range fixture.PolicyProxyEnv {
		e.Value = strings.ReplaceAll(e.Value, "proxy.corp.example", c.proxyHost())
		env = append(env, e)
	}
	if c.java() {
		env = append(env, fixture.Val("JAVA_TOOL_OPTIONS", javaOptions))
	}
	if c.trusts() {
		env = append(env, fixture.TrustEnv...)
	}
	return env
}

// trusts: the cell's Pods get the trust variables and the bundle.
func (c admissionCell) trusts() bool {
	return c.config == configTrustedCA || c.config == configClusterTrustBundle
}

// javaOptions renders the library's proxykit.java.options for the cell's values.
func (c admissionCell) javaOptions(t testing.TB) string {
	if !c.java() {
		return ""
	}
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(c.values(c.password())), &values))
	options := fixture.Include(t, values, proxykit.Call{Helper: "proxykit.java.options"})
	require.Contains(t, options, "-Dhttp.proxyHost="+c.proxyHost()+" ")
	require.NotContains(t, options, "svc-user", "no credential in the JVM's flags")
	if c.config == configTrustedCA {
		require.True(t, strings.HasSuffix(options, " -Djavax.net.ssl.trustStore=/etc/proxykit/ca/ca-certificates.p12 -Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword="), options)
	}
	return options
}

// injects says whether a Pod in ns gets proxy env: the native engine with a
// Secret only where its copy is (native.secretNamespaces); it has no engine
// namespace of its own.
func (c admissionCell) injects(ns string, want bool) bool {
	if c.engine.Native && ns == itest.KyvernoNamespace {
		return c.secretName() == ""
	}
	if c.engine.Native && c.secretName() != "" && ns != "apps" {
		return false
	}
	return want
}

// TestAdmissionMatrixNative and TestAdmissionMatrixKyverno install
// proxy-policies into a loopback kube-apiserver (the Kyverno one with Kyverno's
// admission and background controllers running), once per engine x
// configuration x failurePolicy, and create Pods through the API server: every
// assertion is on Pods as stored. Each cell also upgrades (a rotated password
// must reach every copy) and uninstalls (the Secrets that running Pods read
// stay). The two run in parallel, on a control plane each.
func TestAdmissionMatrixNative(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	runAdmissionMatrix(t, itest.AdmissionEngines[:1], false)
}

func TestAdmissionMatrixKyverno(t *testing.T) {
	harness.Parallel(t)
	runAdmissionMatrix(t, itest.AdmissionEngines[1:], true)
}

func runAdmissionMatrix(t *testing.T, engines []itest.AdmissionEngine, kyverno bool) {
	began := time.Now()
	cp := harness.StartControlPlane(t)
	objects := itest.NewObjectClient(t, cp)
	if kyverno {
		itest.StartKyverno(t, cp, objects)
	} else {
		itest.ApplyPolicyCRDs(t, objects) // the chart's Kyverno objects are off here, but Helm maps every kind
	}
	for _, ns := range []string{"kube-system", "kube-public", fixture.Namespace, "apps", "team-a", itest.KyvernoNamespace} {
		cp.EnsureNamespace(t, ns)
	}
	if !kyverno {
		startSidecarWebhook(t, cp)
	}
	ca, _ := fixture.NewCA(t, "corp")
	n := 0
	for _, engine := range engines {
		for _, config := range []string{configPlain, configCredentials, configExistingSecret, configTrustedCA, configClusterTrustBundle} {
			for _, failurePolicy := range []string{"Ignore", "Fail"} {
				if config == configClusterTrustBundle && failurePolicy == "Ignore" {
					continue // the volume is what differs from the trustedCA cells, not the failure policy
				}
				n++
				cell := admissionCell{engine: engine, config: config, failurePolicy: failurePolicy, id: fmt.Sprintf("%.1s%02d", engine.Name, n), ca: ca}
				cell.id = strings.ToLower(cell.id)
				t.Run(engine.Name+"/"+config+"/"+failurePolicy, func(t *testing.T) { runAdmissionCell(t, cp, objects, cell) })
			}
		}
	}
	for _, engine := range engines {
		t.Run(engine.Name+"/large Pods", func(t *testing.T) { runLargePods(t, cp, engine) })
		if !engine.Native {
			t.Run(engine.Name+"/reinstall", func(t *testing.T) { runReinstall(t, cp, engine) })
		}
	}
	t.Logf("%d cells in %s", n, time.Since(began).Round(time.Millisecond))
}

// Large Pods. The CEL engines have a runtime cost budget per expression: past
// it a Pod is denied under Fail and admitted unchanged under Ignore. Scanning
// each container's env once keeps 100 containers x 400 env entries inside it
// (the old expression, one scan per variable, was denied there); from 250 x 400
// on, etcd refuses the Pod anyway (request too large). Kyverno's ClusterPolicy
// engine runs JMESPath over every entry and meets Kyverno's 10 s webhook timeout
// first (100 x 100 here), so it is held to a smaller Pod. The README has the figures.
func runLargePods(t *testing.T, cp *harness.ControlPlane, engine itest.AdmissionEngine) {
	largeContainers, largeEnv := 100, 400
	if engine.Name == "ClusterPolicy" {
		largeContainers, largeEnv = 25, 100
	}
	cell := admissionCell{engine: engine, config: configPlain, failurePolicy: "Fail", id: "large-" + strings.ToLower(engine.Name)}
	rel := itest.E2ERelease{Name: cell.release(), Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: cell.values("")}
	require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm install")
	defer func() { require.NoError(t, helm.DeleteE(t, itest.HelmOptions(cp, rel), rel.Name, true)) }()
	want := cell.env(cell.javaOptions(t))
	waitForCell(t, cp, cell)
	big := fixture.Pod("large", "apps", nil)
	for i := 0; i < largeContainers; i++ {
		c := fixture.Ctr(fmt.Sprintf("c%03d", i))
		for j := 0; j < largeEnv; j++ {
			c.Env = append(c.Env, fixture.Val(fmt.Sprintf("SETTING_%03d", j), "x"))
		}
		big.Spec.Containers = append(big.Spec.Containers, c)
	}
	began := time.Now()
	stored := itest.CreatePod(t, cp, big)
	t.Logf("%d containers x %d env: admitted in %s", largeContainers, largeEnv, time.Since(began).Round(time.Millisecond))
	assertInjection(t, big, stored, want, true, false)
	_ = cp.Client.CoreV1().Pods("apps").Delete(context.Background(), stored.Name, metav1.DeleteOptions{})
}

func runAdmissionCell(t *testing.T, cp *harness.ControlPlane, objects *itest.ObjectClient, cell admissionCell) {
	ctx := context.Background()
	if cell.config == configExistingSecret {
		// the user's own Secret, in the release namespace (and, for the native engine, where it injects)
		for _, ns := range []string{fixture.Namespace, "apps"} {
			createProxySecret(t, cp, ns, cell.userSecret(), "http://corp-user:own@"+cell.proxyHost()+":3128")
		}
	}
	if cell.engine.Name == "ClusterPolicy" && cell.secretName() != "" {
		itest.GrantKyvernoSecrets(t, cp)
	}
	rel := itest.E2ERelease{Name: cell.release(), Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: cell.values(cell.password())}
	t.Cleanup(func() {
		if t.Failed() { // leave the next cell a clean cluster
			_ = helm.DeleteE(t, itest.HelmOptions(cp, rel), rel.Name, true)
			deleteSecretEverywhere(t, cp, cell.secretName())
		}
	})
	require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm install")
	want := cell.env(cell.javaOptions(t))
	record := fixture.Record(t, cell.values(cell.password()))
	waitForCell(t, cp, cell)
	if name := cell.secretName(); cell.config == configCredentials {
		// the source Secret (and the native engine's copy) carries the record the Pods get
		for _, ns := range []string{fixture.Namespace, "apps"} {
			itest.WaitForSecret(t, cp, ns, name, func(s *corev1.Secret) bool { return s.Annotations[proxytest.AnnotationProxyConfig] == record })
		}
	}

	var injector *inject.Injector
	if cell.engine.Native {
		injector = cellInjector(t, cell)
	}
	for _, pc := range fixture.PodCases() {
		pc.Pod.Name += "-" + cell.id
		stored := itest.CreatePod(t, cp, pc.Pod)
		assertInjection(t, pc.Pod, stored, want, cell.injects(pc.Pod.Namespace, pc.Injected), false)
		assertRecord(t, stored, record, cell.injects(pc.Pod.Namespace, pc.Injected))
		if injector != nil && (cell.injects(pc.Pod.Namespace, pc.Injected) || (proxytest.Container{Annotations: pc.Pod.Annotations}).OptedOut() != "") {
			assertInjectMatchesAdmission(t, injector, pc.Pod, stored)
		}
		if cell.trusts() && cell.injects(pc.Pod.Namespace, pc.Injected) {
			assertBundleMounted(t, stored, cell.config == configClusterTrustBundle)
		}
		_ = cp.Client.CoreV1().Pods(stored.Namespace).Delete(ctx, stored.Name, metav1.DeleteOptions{})
	}
	if cell.engine.Native {
		assertSidecarInjected(t, cp, cell, want)
	}

	// a namespace created just before its first Pod: Kyverno's copy of the Secret
	// comes from its background controller, after the Pod may already exist
	fresh := "fresh-" + cell.id
	created := time.Now()
	cp.EnsureNamespace(t, fresh)
	first := fixture.Pod("first", fresh, nil, fixture.Ctr("app"))
	stored := itest.CreatePod(t, cp, first)
	assertInjection(t, first, stored, want, cell.injects(fresh, true), false)
	if cell.secretName() != "" && !cell.engine.Native {
		waitForSecretCopy(t, cp, fresh, cell.secretName())
		t.Logf("the Secret's copy reached the new namespace %s after it was created", time.Since(created).Round(time.Millisecond))
	}

	if cell.config == configPlain {
		// helm upgrade to another proxy: new Pods get it
		moved := strings.ReplaceAll(rel.Values, cell.proxyHost(), "moved-"+cell.proxyHost())
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, itest.E2ERelease{Name: rel.Name, Chart: rel.Chart, Namespace: rel.Namespace, Values: moved}), rel.Chart, rel.Name), "helm upgrade")
		itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
			return fixture.EnvMap(c.Env)["HTTPS_PROXY"].Value == "http://moved-"+cell.proxyHost()+":3129"
		})

		// policy.mergeNoProxy, on by default: an own NO_PROXY keeps its entries after the
		// cluster's, and so does the twin copied from it, and the JVM's own
		// -Dhttp.nonProxyHosts, but for those that send public hosts around the proxy
		// (*, .com, 0.0.0.0/0); every engine and inject alike
		own := fixture.Ctr("own", fixture.Val("NO_PROXY", ".internal, sso.corp.internal,localhost,*,.com,0.0.0.0/0"), fixture.Val("HTTP_PROXY", ""),
			fixture.Val("JAVA_TOOL_OPTIONS", `-Xmx64m -Dhttp.nonProxyHosts="*.internal|localhost|*"`))
		movedWant := []corev1.EnvVar{}
		for _, e := range want {
			e.Value = strings.ReplaceAll(e.Value, cell.proxyHost(), "moved-"+cell.proxyHost())
			movedWant = append(movedWant, e)
		}
		expected := fixture.ExpectedEnv(own, movedWant, inject.MergeOptions{MergeNoProxy: true})
		require.True(t, strings.HasSuffix(fixture.EnvMap(expected)["no_proxy"].Value, ",.internal,sso.corp.internal"), "the rule written out merges, and drops the wide entries")
		require.Contains(t, fixture.EnvMap(expected)["JAVA_TOOL_OPTIONS"].Value, ` -Xmx64m -Dhttp.nonProxyHosts="*.internal|localhost|*" -Dhttp.nonProxyHosts=*.internal|localhost|127.*|`, "and the JVM's own flag, without *")
		itest.WaitForPod(t, cp, "apps", own, func(p corev1.Pod) bool { return reflect.DeepEqual(p.Spec.Containers[0].Env, expected) })
		if cell.engine.Native {
			var values map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(moved), &values))
			pod := fixture.Pod("merge-"+cell.id, "apps", nil, own)
			stored := itest.CreatePod(t, cp, pod)
			assertInjectMatchesAdmission(t, inject.New(inject.Options{Values: values, Release: cell.release()}), pod, stored)
		}
		// the own-settings table and the switch, once per engine: failurePolicy changes neither
		if cell.failurePolicy == "Ignore" {
			assertMergeSwitch(t, cp, rel, cell, moved, own, movedWant)
		}
	}

	if cell.config == configCredentials {
		// the copies hold the URL byte for byte, escapes and all
		for _, ns := range []string{fixture.Namespace, "apps"} {
			waitForSecretValue(t, cp, ns, cell.secretName(), "HTTP_PROXY", "http://svc-user:"+cell.password()+"@"+cell.proxyHost()+":3128")
		}
		// helm upgrade with a rotated password: the source and every copy follow
		rel.Values = cell.values("rotated-" + cell.id)
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm upgrade")
		rotated := "http://svc-user:rotated-" + cell.id + "@" + cell.proxyHost() + ":3128"
		namespaces := []string{fixture.Namespace, "apps"}
		if !cell.engine.Native {
			namespaces = append(namespaces, fresh, "team-a")
		}
		rotatedRecord := fixture.Record(t, rel.Values)
		require.NotEqual(t, record, rotatedRecord)
		for _, ns := range namespaces {
			// every copy carries the new bytes and the new record: Pods started before it are stale-proxy-env
			current := func(s *corev1.Secret) bool {
				return string(s.Data["HTTP_PROXY"]) == rotated && s.Annotations[proxytest.AnnotationProxyConfig] == rotatedRecord
			}
			if cell.engine.Name == "ClusterPolicy" && ns != fixture.Namespace && !itest.SecretBecomes(t, cp, ns, cell.secretName(), current, 30*time.Second) {
				// Kyverno syncs a ClusterPolicy's clones from its admission webhook, which
				// runs before the API server stores the new source: a copy can keep the old
				// bytes. The README's remedy: delete the copy, and Kyverno clones it again.
				t.Logf("Kyverno's ClusterPolicy missed the rotation in %s; deleting the copy, as the README says", ns)
				require.NoError(t, cp.Client.CoreV1().Secrets(ns).Delete(ctx, cell.secretName(), metav1.DeleteOptions{}))
			}
			itest.WaitForSecret(t, cp, ns, cell.secretName(), current)
		}

		// turning the engine off removes the policies and keeps every Secret
		off := rel
		off.Values += "kyverno: {enabled: false}\nnative: {enabled: false}\n"
		require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, off), off.Chart, off.Name), "helm upgrade, engine off")
		itest.WaitForNoInjection(t, cp)
		for _, ns := range namespaces {
			waitForSecretValue(t, cp, ns, cell.secretName(), "HTTP_PROXY", rotated)
		}
	}

	// no autogen: a Deployment's Pod template is left alone (GitOps sees no drift)
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "app-" + cell.id, Namespace: "apps"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": cell.id}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": cell.id}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{fixture.Ctr("app")}}}}}
	storedDeployment, err := cp.Client.AppsV1().Deployments("apps").Create(context.Background(), deployment, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Empty(t, storedDeployment.Spec.Template.Spec.Containers[0].Env, "the Deployment's template is not mutated")
	assert.Empty(t, storedDeployment.Spec.Template.Spec.Volumes)

	docs := renderReleaseSDK(t, rel).Objects
	require.NoError(t, helm.DeleteE(t, itest.HelmOptions(cp, rel), rel.Name, true), "helm uninstall")
	for _, d := range docs {
		if d.Kind != "Secret" {
			objects.MustBeGone(t, d, rel.Namespace)
		}
	}
	// running Pods' secretKeyRefs still resolve: the source and the copies stay
	if name := cell.secretName(); name != "" {
		kept := []string{fixture.Namespace, "apps"}
		if !cell.engine.Native {
			kept = append(kept, fresh)
		}
		for _, ns := range kept {
			_, err := cp.Client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
			assert.NoError(t, err, "Secret %s/%s must outlive the release", ns, name)
		}
	}
	// the policy is gone from admission before the next cell
	itest.WaitForNoInjection(t, cp)
	deleteSecretEverywhere(t, cp, cell.secretName())
}

// assertRecord checks the record a Pod was admitted with: the cell's, on every
// Pod the engine injects, and none on a Pod it leaves alone.
func assertRecord(t *testing.T, stored corev1.Pod, record string, injected bool) {
	t.Helper()
	if injected {
		assert.Equal(t, record, stored.Annotations[proxytest.AnnotationProxyConfig], "%s/%s: the record of what it was given", stored.Namespace, stored.Name)
	} else {
		assert.NotContains(t, stored.Annotations, proxytest.AnnotationProxyConfig, "%s/%s: nothing given, nothing recorded", stored.Namespace, stored.Name)
	}
}

// waitForCell waits until the cell's policy injects into new Pods in apps.
// assertMergeSwitch holds every container of the own-settings table to the
// rule with policy.mergeNoProxy as it is by default (merged), then upgrades the
// release to switch it off and holds an own NO_PROXY and the table to the rule
// kept.
func assertMergeSwitch(t *testing.T, cp *harness.ControlPlane, rel itest.E2ERelease, cell admissionCell, moved string, own corev1.Container, want []corev1.EnvVar) {
	t.Helper()
	assertOwnSettings(t, cp, cell.id+"-merge", want, inject.MergeOptions{MergeNoProxy: true})
	kept := moved + "policy: {mergeNoProxy: false}\n"
	require.NoError(t, helm.UpgradeE(t, itest.HelmOptions(cp, itest.E2ERelease{Name: rel.Name, Chart: rel.Chart, Namespace: rel.Namespace, Values: kept}), rel.Chart, rel.Name), "helm upgrade, mergeNoProxy: false")
	expected := fixture.ExpectedEnv(own, want, inject.MergeOptions{})
	require.Equal(t, ".internal, sso.corp.internal,localhost,*,.com,0.0.0.0/0", fixture.EnvMap(expected)["NO_PROXY"].Value, "the rule written out keeps it")
	itest.WaitForPod(t, cp, "apps", own, func(p corev1.Pod) bool { return reflect.DeepEqual(p.Spec.Containers[0].Env, expected) })
	assertOwnSettings(t, cp, cell.id+"-keep", want, inject.MergeOptions{})
}

// assertOwnSettings admits ownSettingsPods (TestOwnSettingsAreOneBehaviour's
// table) and holds every container to what inject.MergeEnv writes out with r:
// the one place the native policy's merge, which reads the policy's variables,
// meets the whole table, as the Kyverno CLI cannot run it.
func assertOwnSettings(t *testing.T, cp *harness.ControlPlane, id string, want []corev1.EnvVar, r inject.MergeOptions) {
	t.Helper()
	for _, pod := range ownSettingsPods() {
		pod.Name += "-" + id
		stored := itest.CreatePod(t, cp, pod)
		for key, c := range fixture.Containers(pod) {
			assert.Equal(t, fixture.ExpectedEnv(c, want, r), fixture.ContainerEnvs(stored)[key], "%s %s", pod.Name, key)
		}
		_ = cp.Client.CoreV1().Pods(pod.Namespace).Delete(context.Background(), stored.Name, metav1.DeleteOptions{})
	}
}

func waitForCell(t testing.TB, cp *harness.ControlPlane, cell admissionCell) {
	t.Helper()
	want := cell.env(cell.javaOptions(t))[1] // HTTPS_PROXY, a value or a secretKeyRef
	itest.WaitFor(t, cp, "apps", fixture.Ctr("canary"), func(c corev1.Container) bool {
		return reflect.DeepEqual(fixture.EnvMap(c.Env)["HTTPS_PROXY"], want)
	})
}

// createProxySecret creates a Secret with the three keys proxy-policies reads.
func createProxySecret(t *testing.T, cp *harness.ControlPlane, ns, name, url string) {
	t.Helper()
	_, err := cp.Client.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		StringData: map[string]string{"HTTP_PROXY": url, "HTTPS_PROXY": url, "NO_PROXY": fixture.PolicyNoProxy},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// waitForSecretCopy waits until ns holds the Secret, byte for byte as the source in the release namespace.
func waitForSecretCopy(t *testing.T, cp *harness.ControlPlane, ns, name string) {
	t.Helper()
	source, err := cp.Client.CoreV1().Secrets(fixture.Namespace).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	itest.WaitForSecret(t, cp, ns, name, func(s *corev1.Secret) bool { return reflect.DeepEqual(s.Data, source.Data) })
}

// waitForSecretValue waits until the Secret's key holds value.
func waitForSecretValue(t *testing.T, cp *harness.ControlPlane, ns, name, key, value string) {
	t.Helper()
	itest.WaitForSecret(t, cp, ns, name, func(s *corev1.Secret) bool { return string(s.Data[key]) == value })
}

// deleteSecretEverywhere removes a kept Secret and its copies, so the next cell starts clean.
func deleteSecretEverywhere(t *testing.T, cp *harness.ControlPlane, name string) {
	t.Helper()
	if name == "" {
		return
	}
	ctx := context.Background()
	nss, err := cp.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, ns := range nss.Items {
		err := cp.Client.CoreV1().Secrets(ns.Name).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			require.NoError(t, err)
		}
	}
}

// assertBundleMounted checks that a Pod has the CA bundle volume once (trust-manager's
// ConfigMap, or with projected the ClusterTrustBundles of proxykit's signer) and that
// every container mounts it.
func assertBundleMounted(t *testing.T, p corev1.Pod, projected bool) {
	t.Helper()
	volumes := 0
	for _, v := range p.Spec.Volumes {
		if v.Name != "proxykit-ca-bundle" {
			continue
		}
		volumes++
		if !projected {
			assert.True(t, v.ConfigMap != nil && v.ConfigMap.Name == "proxykit-ca-bundle", "trust-manager's ConfigMap in %s: %+v", p.Name, v.VolumeSource)
			continue
		}
		if assert.NotNil(t, v.Projected, "a projected volume in %s", p.Name) && assert.Len(t, v.Projected.Sources, 1) {
			ctb := v.Projected.Sources[0].ClusterTrustBundle
			if assert.NotNil(t, ctb, "of ClusterTrustBundles in %s", p.Name) && assert.NotNil(t, ctb.SignerName) && assert.NotNil(t, ctb.LabelSelector) {
				assert.Equal(t, "proxykit.io/trusted-ca", *ctb.SignerName)
				assert.Equal(t, "ca-certificates.crt", ctb.Path)
				assert.Equal(t, map[string]string{"proxykit.io/trusted-ca": "true"}, ctb.LabelSelector.MatchLabels, "every engine keeps the selector")
			}
		}
	}
	assert.Equal(t, 1, volumes, "the bundle volume once in %s", p.Name)
	check := func(list, name string, mounts []corev1.VolumeMount) {
		mounted := false
		for _, m := range mounts {
			mounted = mounted || (m.Name == "proxykit-ca-bundle" && m.MountPath == "/etc/proxykit/ca" && m.ReadOnly)
		}
		// a container that opts out by proxykit.io/skip-containers gets no mount
		assert.Equal(t, !fixture.Skipped(p, list+"/"+name), mounted, "bundle mounted in %s/%s of %s", list, name, p.Name)
	}
	for _, c := range p.Spec.InitContainers {
		check("initContainers", c.Name, c.VolumeMounts)
	}
	for _, c := range p.Spec.Containers {
		check("containers", c.Name, c.VolumeMounts)
	}
	for _, c := range p.Spec.EphemeralContainers {
		check("ephemeralContainers", c.Name, c.VolumeMounts)
	}
}

// runReinstall pins what the README says of installing again after an uninstall
// with Kyverno: the copies the first release left are not adopted, so a changed
// password reaches new namespaces but not the old copies, until they are deleted
// before the install (the documented step), after which every namespace gets
// the new bytes.
func runReinstall(t *testing.T, cp *harness.ControlPlane, engine itest.AdmissionEngine) {
	if engine.Name == "ClusterPolicy" {
		itest.GrantKyvernoSecrets(t, cp)
	}
	cell := admissionCell{engine: engine, config: configCredentials, failurePolicy: "Ignore", id: "re-" + strings.ToLower(engine.Name)}
	rel := itest.E2ERelease{Name: cell.release(), Chart: fixture.ProxyPolicies, Namespace: fixture.Namespace, Values: cell.values("first")}
	url := func(password string) string { return "http://svc-user:" + password + "@" + cell.proxyHost() + ":3128" }
	install := func(password string) {
		rel.Values = cell.values(password)
		require.NoError(t, helm.InstallE(t, itest.HelmOptions(cp, rel), rel.Chart, rel.Name), "helm install")
	}
	uninstall := func() {
		require.NoError(t, helm.DeleteE(t, itest.HelmOptions(cp, rel), rel.Name, true), "helm uninstall")
	}
	defer deleteSecretEverywhere(t, cp, cell.secretName())

	install("first")
	waitForSecretValue(t, cp, "team-a", cell.secretName(), "HTTP_PROXY", url("first"))
	uninstall()

	install("second")
	fresh := "fresh-" + cell.id
	cp.EnsureNamespace(t, fresh)
	waitForSecretValue(t, cp, fresh, cell.secretName(), "HTTP_PROXY", url("second"))
	old, err := cp.Client.CoreV1().Secrets("team-a").Get(context.Background(), cell.secretName(), metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, url("first"), string(old.Data["HTTP_PROXY"]), "Kyverno does not adopt the first release's copy")
	uninstall()

	deleteSecretEverywhere(t, cp, cell.secretName())
	install("third")
	waitForSecretValue(t, cp, "team-a", cell.secretName(), "HTTP_PROXY", url("third"))
	uninstall()
}
