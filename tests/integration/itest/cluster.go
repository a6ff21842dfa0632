//go:build integration

package itest

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

// E2ERelease is one chart installed into the live API server.
type E2ERelease struct {
	Name, Chart, Namespace, Values string
}

func HelmOptions(cp *harness.ControlPlane, rel E2ERelease) *helm.Options {
	valuesFile := filepath.Join(filepath.Dir(cp.Kubeconfig), rel.Name+"-values.yaml")
	if err := os.WriteFile(valuesFile, []byte(rel.Values), 0o600); err != nil {
		panic(err)
	}
	return &helm.Options{
		ValuesFiles:    []string{valuesFile},
		KubectlOptions: k8s.NewKubectlOptions("", cp.Kubeconfig, rel.Namespace),
		Logger:         logger.Discard,
	}
}

// CreatePod creates a Pod through the API server (ephemeral containers through
// their subresource, as kubectl debug does) and returns it as stored.
func CreatePod(t testing.TB, cp *harness.ControlPlane, p corev1.Pod) corev1.Pod {
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

// WaitForInjection creates canary Pods until the policy injects the expected HTTPS_PROXY.
func WaitForInjection(t testing.TB, cp *harness.ControlPlane, ns, https string) {
	t.Helper()
	WaitFor(t, cp, ns, fixture.Ctr("canary"), func(c corev1.Container) bool {
		return fixture.EnvMap(c.Env)["HTTPS_PROXY"].Value == https
	})
}

// WaitFor creates (and deletes) canary Pods with container c until the stored
// container satisfies ok: policies take effect asynchronously after they are
// written, so the test waits for evidence instead of a fixed time.
func WaitFor(t testing.TB, cp *harness.ControlPlane, ns string, c corev1.Container, ok func(corev1.Container) bool) {
	t.Helper()
	WaitForPod(t, cp, ns, c, func(p corev1.Pod) bool { return ok(p.Spec.Containers[0]) })
}

// WaitForPod is WaitFor with a check of the whole stored Pod.
func WaitForPod(t testing.TB, cp *harness.ControlPlane, ns string, c corev1.Container, ok func(corev1.Pod) bool) {
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

// ObjectClient reaches any kind the API server serves.
type ObjectClient struct {
	Dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

func NewObjectClient(t testing.TB, cp *harness.ControlPlane) *ObjectClient {
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cp.Config)
	require.NoError(t, err)
	return &ObjectClient{Dynamic: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// resource finds the REST endpoint for a rendered document.
func (o *ObjectClient) Resource(t testing.TB, d proxytest.Object, releaseNamespace string) (dynamic.ResourceInterface, *unstructured.Unstructured) {
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
		return o.Dynamic.Resource(mapping.Resource), obj
	}
	ns := obj.GetNamespace()
	if ns == "" {
		ns = releaseNamespace
	}
	return o.Dynamic.Resource(mapping.Resource).Namespace(ns), obj
}

func (o *ObjectClient) DryRunStrict(t testing.TB, d proxytest.Object, releaseNamespace string) {
	t.Helper()
	ri, obj := o.Resource(t, d, releaseNamespace)
	_, err := ri.Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	assert.NoError(t, err, "%s %s from %s", d.Kind, d.Name, d.Source)
}

func (o *ObjectClient) MustExist(t testing.TB, d proxytest.Object, releaseNamespace string) {
	t.Helper()
	ri, obj := o.Resource(t, d, releaseNamespace)
	_, err := ri.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
	assert.NoError(t, err, "%s %s was not installed", d.Kind, d.Name)
}

func (o *ObjectClient) MustBeGone(t testing.TB, d proxytest.Object, releaseNamespace string) {
	t.Helper()
	ri, obj := o.Resource(t, d, releaseNamespace)
	_, err := ri.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%s %s is left behind after uninstall (err=%v)", d.Kind, d.Name, err)
}

// ApplyKyvernoCRDs creates Kyverno's CRDs, read from the Kyverno module in the
// module cache (the version tools/kyverno pins), and waits until they are served.
func ApplyKyvernoCRDs(t testing.TB, o *ObjectClient) {
	t.Helper()
	applyKyvernoCRDs(t, o, "*.yaml", "*.yaml")
}

// ApplyPolicyCRDs creates only the two Kyverno CRDs of the kinds proxy-policies
// renders (ClusterPolicy, MutatingPolicy), for a control plane where no Kyverno
// runs but Helm must map those kinds: the other nineteen cost the API server
// about 5 CPU-s more each time.
func ApplyPolicyCRDs(t testing.TB, o *ObjectClient) {
	t.Helper()
	applyKyvernoCRDs(t, o, "kyverno.io_clusterpolicies.yaml", "policies.kyverno.io_mutatingpolicies.yaml")
}

// applyKyvernoCRDs creates the files of Kyverno's two CRD folders that the
// patterns match, and waits until ClusterPolicy and MutatingPolicy are served.
func applyKyvernoCRDs(t testing.TB, o *ObjectClient, kyvernoFiles, policiesFiles string) {
	t.Helper()
	ApplyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", "config/crds/kyverno/"+kyvernoFiles, schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "ClusterPolicy"})
	ApplyModuleCRDs(t, o, "github.com/kyverno/kyverno", "kyverno", "config/crds/policies.kyverno.io/"+policiesFiles, schema.GroupVersionKind{Group: "policies.kyverno.io", Version: "v1", Kind: "MutatingPolicy"})
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

// ApplyModuleCRDs creates the CRDs a Go module ships (located through the
// tools/<toolsDir> module that pins it) and waits until served is.
func ApplyModuleCRDs(t testing.TB, o *ObjectClient, module, toolsDir, glob string, served schema.GroupVersionKind) {
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
			ri, obj := o.Resource(t, d, "")
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
