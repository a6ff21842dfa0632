package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/manifest"
)

// Inputs that used to pass Check with nothing judged (issue: false all-clear).
func TestParseReadsEveryObject(t *testing.T) {
	const bare = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n"
	cases := []struct {
		name, manifests string
		want            []string // IDs
	}{
		{"a List, as kubectl get -o yaml prints it", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec: {containers: [{name: c, image: x}]}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n",
			[]string{"Pod/a", "ConfigMap/b"}},
		{"a typed list (PodList)", "apiVersion: v1\nkind: PodList\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c, image: x}]}}\n", []string{"Pod/a"}},
		{"a separator with a comment keeps the next document", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- # the workload\n" + bare, []string{"ConfigMap/a", "Deployment/d"}},
		{"a separator with trailing blanks", "--- \t\n" + bare, []string{"Deployment/d"}},
		{"a document that starts on the separator line", "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", []string{"ConfigMap/a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := manifest.Parse(tc.manifests)
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.IDs())
		})
	}
	t.Run("the List's Pod is checked", func(t *testing.T) {
		m, err := manifest.Parse(cases[0].manifests)
		require.NoError(t, err)
		assert.Equal(t, []string{RuleMissingProxyEnv}, rules(Check(m, WithCluster(testCluster))))
	})
}

func TestParseRejectsWhatCheckCouldNotJudge(t *testing.T) {
	for name, manifests := range map[string]string{
		"a pod template that does not decode": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers: [{name: c, env: {HTTP_PROXY: x}}]\n",
		"a List whose items are not a list":   "apiVersion: v1\nkind: List\nitems: {a: b}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := manifest.Parse(manifests)
			assert.Error(t, err)
		})
	}
}

// A Pod reads Secrets of its own namespace only.
func TestSecretKeyRefsReadTheirOwnNamespace(t *testing.T) {
	secret := func(ns string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata: {name: proxy, namespace: " + ns + "}\nstringData: {HTTP_PROXY: 'http://u:p@proxy:3128', NO_PROXY: '" + goodNoProxy + "'}\n"
	}
	env := "- {name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}\n- {name: HTTPS_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}\n- {name: NO_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: NO_PROXY}}}\n" +
		"- {name: http_proxy, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}\n- {name: https_proxy, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}\n- {name: no_proxy, valueFrom: {secretKeyRef: {name: proxy, key: NO_PROXY}}}"
	podIn := func(ns string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: " + ns + "}\nspec:\n  containers:\n    - name: c\n      image: x\n      env:\n" + indent(env, "        ")
	}
	m, err := manifest.Parse(podIn("apps") + "---\n" + secret("other"))
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.Equal(t, []string{RuleMissingSecret}, rules(findings), "%v", findings)
	m, err = manifest.Parse(podIn("apps") + "---\n" + secret("other") + "---\n" + secret("apps"))
	require.NoError(t, err)
	assert.Empty(t, Check(m, WithCluster(testCluster)))
}

// URLs with user-info are found whatever their scheme and whatever the password holds.
func TestCredentialsOfEveryShapeAreFound(t *testing.T) {
	for _, url := range []string{
		`http://user:"quoted"@proxy.corp:3128`,
		`http://user:it's@proxy.corp:3128`,
		`socks5://user:pw@proxy.corp:1080`,
		`socks5h://user:pw@proxy.corp:1080`,
		`HTTPS://user:pw@proxy.corp`,
	} {
		t.Run(url, func(t *testing.T) {
			assert.True(t, manifest.HasUserInfo(url))
			m, err := manifest.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {url: '" + url + "'}\n")
			if err != nil { // a quote that YAML's single quotes cannot hold raw: use a block scalar
				m, err = manifest.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  url: |-\n    " + url + "\n")
			}
			require.NoError(t, err)
			assert.Equal(t, []string{RuleCredentialsExposed}, rules(Check(m, WithCluster(testCluster))))
		})
	}
	for _, notCredentials := range []string{"https://registry.corp/charts/app", "registry.corp/app@sha256:0123", "https://host/path@v1"} {
		assert.False(t, manifest.HasUserInfo(notCredentials), notCredentials)
	}
}

// FromObjects reads typed objects as a cluster's client returns them.
func TestFromObjects(t *testing.T) {
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "x", Env: []corev1.EnvVar{
			{Name: "HTTP_PROXY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "proxy"}, Key: "HTTP_PROXY"}}}}}}}}
	secret := corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "proxy", Namespace: "shop"},
		Data: map[string][]byte{"HTTP_PROXY": []byte("http://proxy:3128")}}
	m, err := manifest.FromObjects(&pod, secret)
	require.NoError(t, err)
	require.Len(t, m.Containers(), 1)
	assert.Equal(t, "shop", m.Containers()[0].Namespace)
	assert.Equal(t, "http://proxy:3128", m.Environment(m.Containers()[0])["HTTP_PROXY"], "the Secret of the same objects is read")
	for _, f := range Check(m, WithCluster(testCluster)) {
		assert.NotEqual(t, RuleMissingSecret, f.Rule, "%s", f)
		assert.Equal(t, "shop", f.Namespace)
	}

	_, err = manifest.FromObjects(corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bare"}})
	assert.ErrorContains(t, err, "object 1 has no kind")
}

// Inputs `proxykit check` may be handed: read as Helm reads them, or refused
