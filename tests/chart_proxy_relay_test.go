package tests

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chartutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// relayValues are the fixture's values with a YAML fragment's keys laid over
// them, map by map (Helm's -f twice).
func relayValues(extra string) string {
	var base, over map[string]any
	if err := yaml.Unmarshal([]byte(fixture.ProxyRelayValues), &base); err != nil {
		panic(err)
	}
	if err := yaml.Unmarshal([]byte(extra), &over); err != nil {
		panic(err)
	}
	out, _ := yaml.Marshal(chartutil.CoalesceTables(over, base))
	return string(out)
}

// The relay's objects, each from its template, with the password in the
// Secret only: every other object, the Pods' args among them, is free of it.
func TestProxyRelayChartObjects(t *testing.T) {
	r, err := fixture.RenderE(fixture.ProxyRelay, proxytest.Values(fixture.ProxyRelayValues))
	require.NoError(t, err)
	ns := "@" + fixture.Namespace
	assert.Equal(t, map[string][]string{
		"templates/deployment.yaml":          {"Deployment/test" + ns},
		"templates/service.yaml":             {"Service/test" + ns},
		"templates/secret.yaml":              {"Secret/test-credentials" + ns},
		"templates/poddisruptionbudget.yaml": {"PodDisruptionBudget/test" + ns},
		"templates/networkpolicy.yaml":       {"NetworkPolicy/test" + ns},
	}, objectsBySource(r))

	secret := proxytest.Get[corev1.Secret](t, r, "test-credentials")
	assert.Equal(t, map[string][]byte{"username": []byte(`CORP\svc-relay`), "password": []byte("S3cret-relay-pass")}, secret.Data)
	for _, d := range r.Objects {
		if d.Kind == "Secret" {
			continue
		}
		for _, leak := range []string{"S3cret-relay-pass", base64.StdEncoding.EncodeToString([]byte("S3cret-relay-pass"))} {
			assert.NotContains(t, d.Raw, leak, "%s/%s holds the password", d.Kind, d.Name)
		}
	}

	dep := proxytest.Get[appsv1.Deployment](t, r, fixture.Release)
	assert.Equal(t, int32(2), *dep.Spec.Replicas)
	spec := dep.Spec.Template.Spec
	c := fixture.SpecContainer(t, spec, "relay")
	assert.Equal(t, "registry.corp.example/proxykit-relay:0.19.0", c.Image, "the tag is the chart's appVersion")
	assert.Equal(t, []string{
		"--listen=:3128", "--admin-listen=:9090",
		"--upstream=http://proxy.corp.example:8080", "--scheme=ntlm",
		"--credentials-dir=/etc/proxykit-relay/credentials",
		"--allow=10.244.0.0/16,fd00:10:244::/56,192.168.10.0/24",
		"--no-upstream=cluster.local,10.96.0.0/12,10.244.0.0/16,fd00:10:244::/56,192.168.10.0/24,.corp.example",
		"--idle-timeout=10m", "--max-connections=1024",
	}, c.Args)
	assert.Empty(t, c.Env, "the relay reads no proxy variable: it is the proxy")
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.True(t, *spec.SecurityContext.RunAsNonRoot)
	require.Len(t, c.VolumeMounts, 1)
	assert.Empty(t, c.VolumeMounts[0].SubPath, "a subPath mount never sees the kubelet's updates: rotation needs the folder")
	assert.Equal(t, "/etc/proxykit-relay/credentials", c.VolumeMounts[0].MountPath)
	assert.Equal(t, "test-credentials", spec.Volumes[0].Secret.SecretName)
	assert.Equal(t, int64(65534), *spec.SecurityContext.FSGroup, "the Secret's files belong to the relay's group: it runs as nobody")
	assert.Equal(t, int32(0o440), *spec.Volumes[0].Secret.DefaultMode, "readable by that group, by no one else")
	assert.NotContains(t, dep.Spec.Template.Annotations, "checksum/credentials", "a rotated password must not restart the relay")
	assert.Len(t, spec.TopologySpreadConstraints, 1)

	svc := proxytest.Get[corev1.Service](t, r, fixture.Release)
	assert.Equal(t, int32(3128), svc.Spec.Ports[0].Port)
	assert.Equal(t, dep.Spec.Template.Labels["app.kubernetes.io/instance"], svc.Spec.Selector["app.kubernetes.io/instance"])

	pdb := proxytest.Get[policyv1.PodDisruptionBudget](t, r, fixture.Release)
	assert.Equal(t, 1, pdb.Spec.MinAvailable.IntValue())

	np := proxytest.Get[networkingv1.NetworkPolicy](t, r, fixture.Release)
	require.Len(t, np.Spec.Ingress, 2)
	assert.Equal(t, "proxy", np.Spec.Ingress[0].Ports[0].Port.String())
	require.Len(t, np.Spec.Ingress[0].From, 2)
	assert.Empty(t, np.Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions, "every namespace by default")
	assert.Equal(t, "192.168.10.0/24", np.Spec.Ingress[0].From[1].IPBlock.CIDR, "the nodes: kubelets, containerd, hostNetwork Pods")
	assert.Equal(t, "metrics", np.Spec.Ingress[1].Ports[0].Port.String())
}

// The choices a user makes, each as the relay's Pods then run.
func TestProxyRelayChartChoices(t *testing.T) {
	t.Run("no scheme: no Secret, no credentials folder", func(t *testing.T) {
		r := fixture.Render(t, fixture.ProxyRelay, proxytest.Values(relayValues("upstream: {scheme: none}\ncredentials: {username: \"\", password: \"\"}\n")))
		assert.Nil(t, r.Find("Secret", "test-credentials"))
		c := fixture.SpecContainer(t, proxytest.Get[appsv1.Deployment](t, r, fixture.Release).Spec.Template.Spec, "relay")
		assert.Contains(t, c.Args, "--scheme=none")
		assert.NotContains(t, strings.Join(c.Args, " "), "--credentials-dir")
		assert.Empty(t, c.VolumeMounts)
	})
	t.Run("existingSecret: the user's Secret, none rendered", func(t *testing.T) {
		r := fixture.Render(t, fixture.ProxyRelay, proxytest.Values(relayValues("credentials: {existingSecret: corp-proxy, username: \"\", password: \"\"}\n")))
		assert.Nil(t, r.Find("Secret", "test-credentials"))
		spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release).Spec.Template.Spec
		assert.Equal(t, "corp-proxy", spec.Volumes[0].Secret.SecretName)
	})
	t.Run("negotiate with a keytab and krb5.conf", func(t *testing.T) {
		keytab := base64.StdEncoding.EncodeToString([]byte("\x05\x02keytab"))
		r := fixture.Render(t, fixture.ProxyRelay, proxytest.Values(relayValues(`upstream: {url: "http://proxy.corp.example:8080", scheme: negotiate, spn: HTTP/proxy.corp.example@CORP.EXAMPLE}
credentials: {username: svc-relay@CORP.EXAMPLE, password: "", keytabBase64: "`+keytab+`"}
kerberos:
  krb5Conf: |
    [libdefaults]
      default_realm = CORP.EXAMPLE
`)))

		secret := proxytest.Get[corev1.Secret](t, r, "test-credentials")
		assert.Equal(t, []byte("\x05\x02keytab"), secret.Data["keytab"])
		assert.NotContains(t, secret.Data, "password")
		assert.Equal(t, []string{"ConfigMap/test-krb5@" + fixture.Namespace}, objectsBySource(r)["templates/configmap.yaml"])
		cm := proxytest.Get[corev1.ConfigMap](t, r, "test-krb5")
		assert.Equal(t, "[libdefaults]\n  default_realm = CORP.EXAMPLE\n", cm.Data["krb5.conf"])
		dep := proxytest.Get[appsv1.Deployment](t, r, fixture.Release)
		c := fixture.SpecContainer(t, dep.Spec.Template.Spec, "relay")
		assert.Contains(t, c.Args, "--krb5-config=/etc/proxykit-relay/krb5/krb5.conf")
		assert.Contains(t, c.Args, "--spn=HTTP/proxy.corp.example@CORP.EXAMPLE")
		assert.Len(t, c.VolumeMounts, 2)
		assert.NotEmpty(t, dep.Spec.Template.Annotations["checksum/krb5"], "a changed krb5.conf rolls the Pods")
	})
	t.Run("one replica: no budget that would block every drain", func(t *testing.T) {
		r := fixture.Render(t, fixture.ProxyRelay, proxytest.Values(relayValues("replicas: 1\n")))
		assert.Nil(t, r.Find("PodDisruptionBudget", fixture.Release))
	})
	t.Run("namespaces named: the policy admits those", func(t *testing.T) {
		r := fixture.Render(t, fixture.ProxyRelay, proxytest.Values(relayValues("networkPolicy: {namespaces: [apps, ci], metricsNamespaces: [monitoring]}\n")))
		np := proxytest.Get[networkingv1.NetworkPolicy](t, r, fixture.Release)
		assert.Equal(t, []string{"apps", "ci"}, np.Spec.Ingress[0].From[0].NamespaceSelector.MatchExpressions[0].Values)
		assert.Equal(t, []string{"monitoring"}, np.Spec.Ingress[1].From[0].NamespaceSelector.MatchExpressions[0].Values)
	})
	t.Run("no NetworkPolicy when disabled", func(t *testing.T) {
		r := fixture.Render(t, fixture.ProxyRelay, proxytest.Values(relayValues("networkPolicy: {enabled: false}\n")))
		assert.Nil(t, r.Find("NetworkPolicy", fixture.Release))
	})
}

// Bad input fails the render naming the key, and never shows a credential.
func TestProxyRelayChartRefusesBadValues(t *testing.T) {
	const password = "hunter2-Secret"
	cases := map[string]struct{ values, want string }{
		"no upstream":            {"upstream: {url: \"\"}\n", "upstream.url is required"},
		"user-info in the URL":   {"upstream: {url: \"http://svc:" + password + "@proxy.corp.example:8080\"}\n", "upstream.url carries user-info"},
		"https upstream":         {"upstream: {url: \"https://proxy.corp.example:8443\"}\n", "upstream.url: the relay speaks plain HTTP"},
		"unknown scheme":         {"upstream: {scheme: digest}\n", "/upstream/scheme"},
		"credentials, no scheme": {"upstream: {scheme: none}\n", "upstream.scheme is none"},
		"no user":                {"credentials: {username: \"\", password: " + password + "}\n", "credentials.username"},
		"no password":            {"credentials: {password: \"\"}\n", "credentials.password"},
		"keytab for ntlm":        {"credentials: {keytabBase64: AAAA}\n", "credentials.keytabBase64 is for upstream.scheme negotiate"},
		"keytab not base64":      {"upstream: {scheme: negotiate}\nkerberos: {krb5Conf: x}\ncredentials: {keytabBase64: \"not base64!\"}\n", "credentials.keytabBase64 is not base64"},
		"negotiate, no krb5":     {"upstream: {scheme: negotiate}\n", "kerberos.krb5Conf"},
		"two places":             {"credentials: {existingSecret: corp}\n", "credentials.existingSecret and credentials.username"},
		"bad Secret name":        {"credentials: {existingSecret: Corp_Proxy, username: \"\", password: \"\"}\n", "credentials.existingSecret"},
		"noUpstream *":           {"upstream: {noUpstream: [\"*\"]}\n", "upstream.noUpstream"},
		"bad allow":              {"allow: [10.0.0.0/40]\n", "allow[0]"},
		"allow not an address":   {"allow: [corp.example]\n", "allow[0]"},
		"no replicas":            {"replicas: 0\n", "replicas"},
		"same ports":             {"ports: {proxy: 9090, metrics: 9090}\n", "ports.proxy and ports.metrics"},
		"idle timeout":           {"connections: {idleTimeout: \"10 minutes\"}\n", "connections.idleTimeout"},
		"idle timeout as YAML":   {"connections: {idleTimeout: \"1m\\\"\\n- --evil\"}\n", "connections.idleTimeout"},
		"no image":               {"image: {repository: \"\"}\n", "image.repository is required"},
		"no networks":            {"cluster: {podCIDRs: [], nodeCIDRs: []}\n", "cluster.podCIDRs and cluster.nodeCIDRs"},
		"control character":      {"credentials: {username: \"svc\\nrelay\"}\n", "credentials.username"},
		"spn that is YAML":       {"upstream: {scheme: negotiate, spn: \"HTTP/x: {evil: 1}\"}\nkerberos: {krb5Conf: x}\n", "upstream.spn"},
		"krb5.conf with a NUL":   {"upstream: {scheme: negotiate}\nkerberos: {krb5Conf: \"[libdefaults]\\u0000\"}\n", "kerberos.krb5Conf"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := fixture.RenderE(fixture.ProxyRelay, proxytest.Values(relayValues(tc.values)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), password)
			assert.NotContains(t, err.Error(), "S3cret-relay-pass")
		})
	}
}
