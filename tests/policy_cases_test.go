package tests

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/proxytest"
)

// Pod fixtures for the injection policies. The table is engine-neutral: the
// Kyverno CLI tests run it now, and a live API server can run it against the
// native MutatingAdmissionPolicy with the same expectations.

const policyNamespace = namespace // the proxy-policies release namespace in tests

const policyValuesPlain = `
proxy:
  http: http://proxy.corp.example:3128
  https: http://proxy.corp.example:3129
` + policyScopeValues + `native:
  enabled: true
`

// policyScopeValues is the cluster and the scope every policy test shares.
const policyScopeValues = `cluster:
  podCIDRs: [10.244.0.0/16]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: 10.96.0.1
  metadataEndpoints: false
exclude:
  names: ["capi-*"]
# kube-system is excluded even though the list does not name it; kube-public by the pattern
namespaces:
  exclude: [monitoring, "kube-p*"]
`

const policyNoProxy = "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.244.0.0/16,10.96.0.0/12,10.96.0.1"

// clusterPolicyKind selects the ClusterPolicy engine; the tests of that kind append it.
const clusterPolicyKind = "kyverno:\n  policyKind: ClusterPolicy\n"

// policyProxyEnv is what policyValuesPlain injects, in order.
var policyProxyEnv = []corev1.EnvVar{
	val("HTTP_PROXY", "http://proxy.corp.example:3128"),
	val("HTTPS_PROXY", "http://proxy.corp.example:3129"),
	val("NO_PROXY", policyNoProxy),
	val("http_proxy", "http://proxy.corp.example:3128"),
	val("https_proxy", "http://proxy.corp.example:3129"),
	val("no_proxy", policyNoProxy),
}

// podCase is one Pod and what injection must make of it.
type podCase struct {
	name     string
	pod      corev1.Pod
	injected bool // false: the Pod must come out unchanged
}

func pod(name, ns string, annotations map[string]string, containers ...corev1.Container) corev1.Pod {
	return corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: annotations},
		Spec:       corev1.PodSpec{Containers: containers},
	}
}

func ctr(name string, env ...corev1.EnvVar) corev1.Container {
	return corev1.Container{Name: name, Image: "busybox:1.36", Env: env}
}

func configMapRef(name, cm, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key}}}
}

// podCases is the shared fixture table.
func podCases() []podCase {
	withInit := pod("with-init", "apps", nil, ctr("app"), ctr("sidecar", val("A", "1")))
	withInit.Spec.InitContainers = []corev1.Container{ctr("init-1"), ctr("init-2", val("HTTP_PROXY", "http://init-own:1"))}
	skipping := pod("skip-containers", "apps", map[string]string{proxytest.AnnotationSkipContainers: " metrics ,init-skip"}, ctr("app"), ctr("metrics", val("A", "1")))
	skipping.Spec.InitContainers = []corev1.Container{ctr("init-skip"), ctr("init-app")}
	withEphemeral := pod("with-ephemeral", "apps", nil, ctr("app"))
	withEphemeral.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:1.36"}}}

	return []podCase{
		{name: "plain", pod: pod("plain", "apps", nil, ctr("app"), ctr("worker")), injected: true},
		{name: "own value", pod: pod("own-value", "apps", nil,
			ctr("app", val("TZ", "UTC"), val("HTTP_PROXY", "http://own:8080"))), injected: true},
		{name: "own valueFrom", pod: pod("own-value-from", "apps", nil,
			ctr("app", configMapRef("HTTPS_PROXY", "proxy", "url"), val("no_proxy", "own.example"))), injected: true},
		{name: "init containers keep their order", pod: withInit, injected: true},
		{name: "ephemeral containers", pod: withEphemeral, injected: true},
		{name: "kube-system", pod: pod("in-kube-system", "kube-system", nil, ctr("app")), injected: false},
		{name: "engine namespace", pod: pod("in-kyverno", "kyverno", nil, ctr("app")), injected: false},
		{name: "release namespace", pod: pod("in-release", policyNamespace, nil, ctr("app")), injected: false},
		{name: "opt-out proxykit.io/inject", pod: pod("opt-out", "apps", map[string]string{"proxykit.io/inject": "false"}, ctr("app")), injected: false},
		{name: "opt-out kyverno annotation", pod: pod("opt-out-kyverno", "apps", map[string]string{"policies.kyverno.io/inject-proxy-env": "exclude"}, ctr("app")), injected: false},
		{name: "opt-in annotation value is not an opt-out", pod: pod("inject-true", "apps", map[string]string{"proxykit.io/inject": "true"}, ctr("app")), injected: true},
		{name: "name pattern", pod: pod("capi-controller-manager", "apps", nil, ctr("manager")), injected: false},
		{name: "opt-out AKS annotation", pod: pod("opt-out-aks", "apps", map[string]string{"kubernetes.azure.com/no-http-proxy-vars": "true"}, ctr("app")), injected: false},
		{name: "excluded namespace pattern kube-*", pod: pod("in-kube-public", "kube-public", nil, ctr("app")), injected: false},
		// injected, but not into the containers proxykit.io/skip-containers names
		{name: "opt-out proxykit.io/skip-containers", pod: skipping, injected: true},
	}
}

// expectedEnv is the injection rule written out independently of the policies:
// own entries stay in place (replaced by the proxy entry when override is on),
// and the proxy entries a container lacks are appended in proxy order.
func expectedEnv(own, proxy []corev1.EnvVar, override bool) []corev1.EnvVar {
	byName := map[string]corev1.EnvVar{}
	for _, e := range proxy {
		byName[e.Name] = e
	}
	var out []corev1.EnvVar
	has := map[string]bool{}
	for _, e := range own {
		if p, ok := byName[e.Name]; ok && override {
			e = p
		}
		has[e.Name] = true
		out = append(out, e)
	}
	for _, e := range proxy {
		if !has[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

// skipped tells whether a container ("list/name", as containerEnvs keys them) opts
// out of the proxy by the Pod's annotations, judged by proxytest's own vocabulary.
func skipped(p corev1.Pod, key string) bool {
	name := key[strings.Index(key, "/")+1:]
	return proxytest.Container{Annotations: p.Annotations, Container: corev1.Container{Name: name}}.OptedOut() != ""
}

// containerEnvs lists every container's env of a Pod, keyed "list/name".
func containerEnvs(p corev1.Pod) map[string][]corev1.EnvVar {
	envs := map[string][]corev1.EnvVar{}
	for _, c := range p.Spec.InitContainers {
		envs["initContainers/"+c.Name] = c.Env
	}
	for _, c := range p.Spec.Containers {
		envs["containers/"+c.Name] = c.Env
	}
	for _, c := range p.Spec.EphemeralContainers {
		envs["ephemeralContainers/"+c.Name] = c.Env
	}
	return envs
}

// containerOrder lists container names per list, to check that nothing moved.
func containerOrder(p corev1.Pod) string {
	var s string
	for _, c := range p.Spec.InitContainers {
		s += "init:" + c.Name + " "
	}
	for _, c := range p.Spec.Containers {
		s += "main:" + c.Name + " "
	}
	for _, c := range p.Spec.EphemeralContainers {
		s += "ephemeral:" + c.Name + " "
	}
	return fmt.Sprint(s)
}
