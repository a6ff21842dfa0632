package tests

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// testCA makes a CA the way a TLS-intercepting proxy has one: certificate and key as PEM.
func testCA(t testing.TB, name string) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name, Organization: []string{"proxykit tests"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

// trustValues is plainProxy with a trusted CA under key (proxy, cluster.proxy or global.proxy).
func trustValues(t *testing.T, key, ca string) string {
	v := map[string]any{
		"proxy":   map[string]any{"http": "http://proxy.corp:3128", "https": "http://proxy.corp:3129"},
		"cluster": map[string]any{"podCIDRs": []string{"10.244.0.0/16"}, "serviceCIDRs": []string{"10.96.0.0/12"}, "apiServer": "10.96.0.1"},
	}
	switch key {
	case "proxy":
		v["proxy"].(map[string]any)["trustedCA"] = ca
	case "cluster.proxy":
		v["cluster"].(map[string]any)["proxy"] = map[string]any{"trustedCA": ca}
	case "global.proxy":
		v["global"] = map[string]any{"proxy": map[string]any{"trustedCA": ca}}
	}
	return valuesYAML(t, v)
}

const bundleFile = "/etc/proxykit/ca/ca-certificates.crt"

var trustEnv = []corev1.EnvVar{
	val("SSL_CERT_FILE", bundleFile), val("REQUESTS_CA_BUNDLE", bundleFile), val("CURL_CA_BUNDLE", bundleFile), val("NODE_EXTRA_CA_CERTS", bundleFile),
}

func TestTrustedCAReachesContainers(t *testing.T) {
	ca, _ := testCA(t, "corp intercepting proxy")
	for _, key := range []string{"proxy", "cluster.proxy", "global.proxy"} {
		t.Run(key, func(t *testing.T) {
			r := mustRenderSDK(t, fixtureChart, trustValues(t, key, ca))
			spec := proxytest.Get[appsv1.Deployment](t, r, releaseName+"-app").Spec.Template.Spec
			app := container(t, spec, "app")
			assert.Equal(t, withEnv(proxyEnvPlain, trustEnv...), app.Env, "the trust variables follow the proxy tier")
			assert.Equal(t, []corev1.VolumeMount{{Name: "proxykit-ca-bundle", MountPath: "/etc/proxykit/ca", ReadOnly: true}}, app.VolumeMounts)
			require.Len(t, spec.Volumes, 1)
			assert.Equal(t, "proxykit-ca-bundle", spec.Volumes[0].ConfigMap.Name)
			assert.Empty(t, spec.Volumes[0].ConfigMap.Items, "the whole ConfigMap: its one key is the file")
			assert.Empty(t, container(t, spec, "sidecar").Env, `"proxy" false leaves the trust variables out too`)
		})
	}
	t.Run("no trusted CA: no variables, no volume", func(t *testing.T) {
		spec := proxytest.Get[appsv1.Deployment](t, mustRenderSDK(t, fixtureChart, plainProxy), releaseName+"-app").Spec.Template.Spec
		assert.Equal(t, proxyEnvPlain, container(t, spec, "app").Env)
		assert.Empty(t, spec.Volumes)
	})
	t.Run("proxy wins over cluster.proxy", func(t *testing.T) {
		other, _ := testCA(t, "another")
		values := strings.Replace(trustValues(t, "proxy", ca), "cluster:\n", "cluster:\n  proxy:\n    trustedCA: "+yamlQuote(other)+"\n", 1)
		r := mustRenderSDK(t, fixtureChart, values+"contextCheck: {helper: proxykit.trust.ca, mode: root}\n")
		assert.Equal(t, ca, proxytest.Get[corev1.Secret](t, r, releaseName+"-context-check").StringData["output"])
	})
}

// yamlQuote writes a string as a YAML double-quoted scalar: a JSON string is one.
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestTrustedCABadValues(t *testing.T) {
	ca, key := testCA(t, "corp")
	body := strings.Split(ca, "\n")[1]
	cases := []struct{ name, value, want string }{
		{"not PEM", "corp-ca", "proxy.trustedCA holds no PEM certificate"},
		{"a private key beside the certificate", ca + key, "proxy.trustedCA holds text besides PEM certificates"},
		{"a broken body", strings.Replace(ca, body, "!"+body[1:], 1), "proxy.trustedCA: certificate 1 is not a base64 DER X.509 certificate"},
		{"base64 that is no certificate", "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n", "certificate 1 is not"},
		// the template checks the PEM and DER shape (a SEQUENCE with a long-form length), not every field
		{"the second of two broken", ca + strings.Replace(ca, body, "MAAA"+body[4:], 1), "certificate 2 is not"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := renderError(t, fixtureChart, trustValues(t, "proxy", tc.value))
			assert.Contains(t, err, tc.want)
			assert.NotContains(t, err, "PRIVATE KEY", "the key is never echoed")
			assertNoTemplateCrash(t, err)
		})
	}
	two, _ := testCA(t, "second")
	mustRenderSDK(t, fixtureChart, trustValues(t, "proxy", ca+two))
}

func TestClusterProxyCarriesTheTrust(t *testing.T) {
	ca, _ := testCA(t, "corp")
	values := strings.Replace(clusterProxyPlain, "\nproxy:\n", "\nproxy:\n  trustedCA: "+yamlQuote(ca)+"\n", 1)
	require.Contains(t, values, "trustedCA")
	r, err := renderCLI(t, clusterProxyChart, values)
	require.NoError(t, err)
	source := proxytest.Get[corev1.ConfigMap](t, r, "proxykit-ca")
	assert.Equal(t, "cert-manager", source.Namespace, "trust-manager's trust namespace")
	assert.Equal(t, ca, source.Data["ca.crt"])
	var bundle struct {
		Metadata struct{ Name string } `json:"metadata"`
		Spec     struct {
			Sources []struct {
				UseDefaultCAs *bool `json:"useDefaultCAs"`
				ConfigMap     *struct{ Name, Key string }
			} `json:"sources"`
			Target struct {
				ConfigMap struct{ Key string } `json:"configMap"`
			} `json:"target"`
		} `json:"spec"`
	}
	require.NoError(t, yamlUnmarshal(string(find(t, r, "Bundle", "proxykit-ca-bundle").Raw), &bundle))
	require.Len(t, bundle.Spec.Sources, 2)
	assert.True(t, *bundle.Spec.Sources[0].UseDefaultCAs, "public roots, so the bundle can replace a client's roots")
	assert.Equal(t, "proxykit-ca", bundle.Spec.Sources[1].ConfigMap.Name)
	assert.Equal(t, "ca.crt", bundle.Spec.Sources[1].ConfigMap.Key)
	// the target is what proxykit.trust.volumes mounts
	spec := proxytest.Get[appsv1.Deployment](t, mustRenderSDK(t, fixtureChart, trustValues(t, "proxy", ca)), releaseName+"-app").Spec.Template.Spec
	assert.Equal(t, spec.Volumes[0].ConfigMap.Name, bundle.Metadata.Name)
	assert.Equal(t, "ca-certificates.crt", bundle.Spec.Target.ConfigMap.Key, "the file name the trust variables point at")
	assert.ElementsMatch(t, []string{"ConfigMap/proxykit-ca@cert-manager", "Bundle/proxykit-ca-bundle"}, objectsBySource(r)["templates/trust-bundle.yaml"])
	// the nodes' copy, for the trust store
	assert.Equal(t, ca, string(proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy").Data["trustedCA"]))

	t.Run("without a trusted CA: no Bundle, no key", func(t *testing.T) {
		r := mustRenderSDK(t, clusterProxyChart, clusterProxyPlain)
		assert.False(t, has(r, "Bundle", "proxykit-ca-bundle"))
		assert.NotContains(t, proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy").Data, "trustedCA")
	})
	t.Run("the CAPI example installs the CA before containerd restarts", func(t *testing.T) {
		capi, err := renderCLI(t, repoPath("examples", "capi"), "clusterName: wc1\ntrustedCA: true\n")
		require.NoError(t, err)
		var kcp struct {
			Spec struct {
				KubeadmConfigSpec kubeadmConfigSpec `json:"kubeadmConfigSpec"`
			} `json:"spec"`
		}
		require.NoError(t, yamlUnmarshal(string(find(t, capi, "KubeadmControlPlane", "wc1-control-plane").Raw), &kcp))
		commands := kcp.Spec.KubeadmConfigSpec.PreKubeadmCommands
		assert.Equal(t, "update-ca-certificates", commands[0])
		assert.Equal(t, "systemctl restart containerd", commands[2])
		var keys []string
		for _, f := range kcp.Spec.KubeadmConfigSpec.Files {
			keys = append(keys, f.ContentFrom.Secret.Key)
			if f.ContentFrom.Secret.Key == "trustedCA" {
				assert.Equal(t, "/usr/local/share/ca-certificates/proxykit-proxy-ca.crt", f.Path, "where update-ca-certificates looks")
			}
		}
		assert.Contains(t, keys, "trustedCA")
	})
}

func TestChartOperatorAndCertManagerCarryTheTrust(t *testing.T) {
	ca, _ := testCA(t, "corp")
	values := trustValues(t, "proxy", ca)
	spec := operatorSpec(t, mustRenderSDK(t, chartOperatorChart, values))
	op := container(t, spec, "chart-operator")
	assert.Equal(t, trustEnv, op.Env[6:10], "after the proxy tier")
	assert.Equal(t, "/etc/proxykit/ca", op.VolumeMounts[0].MountPath)
	assert.Equal(t, "proxykit-ca-bundle", spec.Volumes[0].ConfigMap.Name)

	for name, v := range map[string]string{"plain": values, "credentials": strings.Replace(values, "http://proxy.corp:3128", "http://u:pw@proxy.corp:3128", 1)} {
		t.Run("cert-manager values, "+name, func(t *testing.T) {
			var got struct {
				ExtraEnv     []corev1.EnvVar      `json:"extraEnv"`
				Volumes      []corev1.Volume      `json:"volumes"`
				VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
			}
			require.NoError(t, yamlUnmarshal(helpers(t, mustRenderSDK(t, fixtureChart, v))["certManager"], &got))
			assert.Equal(t, trustEnv, got.ExtraEnv[len(got.ExtraEnv)-4:])
			assert.Equal(t, "proxykit-ca-bundle", got.Volumes[0].ConfigMap.Name)
			assert.Equal(t, "/etc/proxykit/ca", got.VolumeMounts[0].MountPath)
		})
	}
}

// operatorSpec is chart-operator's pod spec.
func operatorSpec(t *testing.T, r *proxytest.Manifests) corev1.PodSpec {
	t.Helper()
	return proxytest.Get[appsv1.Deployment](t, r, releaseName).Spec.Template.Spec
}
