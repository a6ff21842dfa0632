package tests

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestTrustedCAReachesContainers(t *testing.T) {
	ca, _ := fixture.NewCA(t, "corp intercepting proxy")
	for _, key := range []string{"proxy", "cluster.proxy", "global.proxy"} {
		t.Run(key, func(t *testing.T) {
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.TrustValues(t, key, ca)))
			spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
			app := fixture.SpecContainer(t, spec, "app")
			assert.Equal(t, fixture.WithEnv(fixture.ProxyEnvPlain, fixture.TrustEnv...), app.Env, "the trust variables follow the proxy tier")
			assert.Equal(t, []corev1.VolumeMount{{Name: "proxykit-ca-bundle", MountPath: "/etc/proxykit/ca", ReadOnly: true}}, app.VolumeMounts)
			require.Len(t, spec.Volumes, 1)
			assert.Equal(t, "proxykit-ca-bundle", spec.Volumes[0].ConfigMap.Name)
			assert.Empty(t, spec.Volumes[0].ConfigMap.Items, "the whole ConfigMap: its one key is the file")
			assert.Empty(t, fixture.SpecContainer(t, spec, "sidecar").Env, `"proxy" false leaves the trust variables out too`)
		})
	}
	t.Run("no trusted CA: no variables, no volume", func(t *testing.T) {
		spec := proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy)), fixture.Release+"-app").Spec.Template.Spec
		assert.Equal(t, fixture.ProxyEnvPlain, fixture.SpecContainer(t, spec, "app").Env)
		assert.Empty(t, spec.Volumes)
	})
	t.Run("proxy wins over cluster.proxy", func(t *testing.T) {
		other, _ := fixture.NewCA(t, "another")
		values := strings.Replace(fixture.TrustValues(t, "proxy", ca), "cluster:\n", "cluster:\n  proxy:\n    trustedCA: "+fixture.YAMLQuote(other)+"\n", 1)
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(values+"contextCheck: {helper: proxykit.trust.ca, mode: root}\n"))
		assert.Equal(t, ca, proxytest.Get[corev1.Secret](t, r, fixture.Release+"-context-check").StringData["output"])
	})
}

// TestTrustedCAFromClusterTrustBundles: with proxy.trustBundle clusterTrustBundle
// (at any tier) the same volume name, mount and variables, and the volume a
// projected one that joins every ClusterTrustBundle of signer
// proxykit.io/trusted-ca into the file the variables name; the record of the
// configuration changes with it (a Pod mounting the other bundle is stale), and a
// value that is neither bundle, or a JVM (whose store is PKCS#12), fails naming
// the keys.
func TestTrustedCAFromClusterTrustBundles(t *testing.T) {
	ca, _ := fixture.NewCA(t, "corp intercepting proxy")
	for _, key := range []string{"proxy", "cluster.proxy", "global.proxy"} {
		t.Run(key, func(t *testing.T) {
			values := withTrustBundle(fixture.TrustValues(t, "proxy", ca), key, "clusterTrustBundle")
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
			spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
			app := fixture.SpecContainer(t, spec, "app")
			assert.Equal(t, fixture.WithEnv(fixture.ProxyEnvPlain, fixture.TrustEnv...), app.Env, "the same variables, naming the same file")
			assert.Equal(t, []corev1.VolumeMount{{Name: "proxykit-ca-bundle", MountPath: "/etc/proxykit/ca", ReadOnly: true}}, app.VolumeMounts)
			require.Len(t, spec.Volumes, 1)
			v := spec.Volumes[0]
			assert.Nil(t, v.ConfigMap)
			require.NotNil(t, v.Projected)
			require.Len(t, v.Projected.Sources, 1)
			ctb := v.Projected.Sources[0].ClusterTrustBundle
			require.NotNil(t, ctb)
			assert.Nil(t, ctb.Name, "every bundle of the signer, not one by name")
			assert.Equal(t, "proxykit.io/trusted-ca", *ctb.SignerName)
			require.NotNil(t, ctb.LabelSelector, "an unset selector matches no bundle")
			assert.Equal(t, map[string]string{"proxykit.io/trusted-ca": "true"}, ctb.LabelSelector.MatchLabels, "the label cluster-proxy's bundle carries")
			assert.Equal(t, "ca-certificates.crt", ctb.Path)
			assert.Equal(t, fixture.BundleFile, app.VolumeMounts[0].MountPath+"/"+ctb.Path, "the file the variables name")
		})
	}
	t.Run("the record tells the bundles apart", func(t *testing.T) {
		configMap := fixture.Record(t, fixture.TrustValues(t, "proxy", ca))
		explicit := fixture.Record(t, withTrustBundle(fixture.TrustValues(t, "proxy", ca), "proxy", "configMap"))
		ctb := fixture.Record(t, withTrustBundle(fixture.TrustValues(t, "proxy", ca), "proxy", "clusterTrustBundle"))
		assert.Equal(t, configMap, explicit, "the default named is the default: no Pod goes stale")
		assert.NotEqual(t, configMap, ctb)
	})
	t.Run("bad values", func(t *testing.T) {
		err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(withTrustBundle(fixture.TrustValues(t, "proxy", ca), "cluster.proxy", "trustManager")))
		assert.Contains(t, err, `proxykit: cluster.proxy.trustBundle: unknown bundle "trustManager"; the bundles are: configMap`)
		err = fixture.RenderError(t, fixture.Fixture, proxytest.Values(strings.Replace(fixture.TrustValues(t, "proxy", ca), "proxy:\n", "proxy:\n  runtimes: [java]\n  trustBundle: clusterTrustBundle\n", 1)))
		assert.Contains(t, err, "proxykit: proxy.trustBundle is clusterTrustBundle and proxy.runtimes has java")
		assertNoTemplateCrash(t, err)
		err = fixture.RenderError(t, fixture.Fixture, proxytest.Values(withTrustBundle(fixture.TrustValues(t, "proxy", ca), "proxy", "[clusterTrustBundle]")))
		assert.Contains(t, err, "proxykit: proxy.trustBundle must be a string, got slice")
	})
}

// withTrustBundle sets trustBundle (a YAML value) at one tier of TrustValues' values.
func withTrustBundle(values, tier, bundle string) string {
	switch tier {
	case "proxy":
		return strings.Replace(values, "proxy:\n", "proxy:\n  trustBundle: "+bundle+"\n", 1)
	case "cluster.proxy":
		return strings.Replace(values, "cluster:\n", "cluster:\n  proxy:\n    trustBundle: "+bundle+"\n", 1)
	}
	return values + "global:\n  proxy:\n    trustBundle: " + bundle + "\n"
}

func TestTrustedCABadValues(t *testing.T) {
	ca, key := fixture.NewCA(t, "corp")
	body := strings.Split(ca, "\n")[1]
	cases := []struct{ name, value, want string }{
		{"not PEM", "corp-ca", "proxy.trustedCA holds no PEM certificate"},
		{"a private key beside the certificate", ca + key, "proxy.trustedCA holds text besides PEM certificates"},
		{"a broken body", strings.Replace(ca, body, "!"+body[1:], 1), "proxy.trustedCA: certificate 1 is not a base64 DER X.509 certificate"},
		{"base64 that is no certificate", "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n", "certificate 1 is not"},
		// the template checks the PEM and DER shape (a SEQUENCE with a long-form length), not every field
		{"the second of two broken", ca + strings.Replace(ca, body, "MAAA"+body[4:], 1), "certificate 2 is not"},
		// an RSA key's DER in CERTIFICATE armour: the shape of a certificate (a SEQUENCE
		// with a two-byte long-form length) holds, its first element does not
		{"a private key in CERTIFICATE armour", rsaKeyAsCertificate(t), "certificate 1 is not a base64 DER X.509 certificate"},
		// a certificate's first bytes and nothing after them: the shape check reads past
		// the end of a short body without crashing
		{"a body cut short", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "certificate 1 is not a base64 DER X.509 certificate"},
		{"a body cut short, three-byte length", "-----BEGIN CERTIFICATE-----\nMIMBAg==\n-----END CERTIFICATE-----\n", "certificate 1 is not a base64 DER X.509 certificate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(fixture.TrustValues(t, "proxy", tc.value)))
			assert.Contains(t, err, tc.want)
			assert.NotContains(t, err, "PRIVATE KEY", "the key is never echoed")
			assertNoTemplateCrash(t, err)
		})
	}
	two, _ := fixture.NewCA(t, "second")
	fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.TrustValues(t, "proxy", ca+two)))
}

// rsaKeyAsCertificate is a 2048-bit RSA private key (PKCS#8, 1,200 bytes of DER)
// written as a CERTIFICATE PEM block.
func rsaKeyAsCertificate(t *testing.T) string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(der), "0\x82"), "a long-form SEQUENCE, as a certificate's")
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestTrustedCAForTheJVM: the JVM ignores SSL_CERT_FILE, so with proxy.runtimes
// java a container's JAVA_TOOL_OPTIONS also points at the bundle's PKCS#12 trust
// store, in the same mount; a machine's drop-in does not (it has no such file),
// and proxykit.java.options, for a chart's own JAVA_OPTS, carries them too.
func TestTrustedCAForTheJVM(t *testing.T) {
	ca, _ := fixture.NewCA(t, "corp intercepting proxy")
	trustFlags := " -Djavax.net.ssl.trustStore=/etc/proxykit/ca/ca-certificates.p12 -Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword="
	values := strings.Replace(fixture.TrustValues(t, "proxy", ca), "proxy:\n", "proxy:\n  runtimes: [java]\n", 1) + "javaOptions: true\n"
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
	spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
	app := fixture.SpecContainer(t, spec, "app")
	opts := javaEnv(t, app.Env)
	assert.True(t, strings.HasPrefix(opts, "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 "), opts)
	assert.True(t, strings.HasSuffix(opts, trustFlags), "the trust store flags come last: %s", opts)
	assert.Equal(t, 1, strings.Count(opts, "trustStore="))
	assert.Equal(t, opts, fixture.Helpers(t, r)["javaOptions"], "proxykit.java.options gives the same flags")
	assert.Equal(t, "/etc/proxykit/ca", app.VolumeMounts[0].MountPath, "the store is in the bundle's mount")

	helpers := fixture.Helpers(t, r)
	_, machine := parseDropIn(t, helpers["dropIn"])
	assert.Equal(t, strings.TrimSuffix(opts, trustFlags), machine["JAVA_TOOL_OPTIONS"], "a machine gets the proxy flags alone")

	t.Run("per-call NO_PROXY entries keep the trust flags", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(values+"caller: {services: [api]}\n"))
		checked := 0
		for _, c := range proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-caller").Spec.Template.Spec.Containers {
			if o := javaEnv(t, c.Env); o != "" {
				assert.True(t, strings.HasSuffix(o, trustFlags), "%s: %s", c.Name, o)
				if c.Name != "plain" {
					assert.Contains(t, o, "|api|", "%s: the per-call entries are in http.nonProxyHosts", c.Name)
					checked++
				}
			}
		}
		assert.Equal(t, 2, checked, "generateEnv's and proxykit.proxy.env's containers")
	})
	t.Run("without a CA: no trust store", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(plainWith("runtimes: [java]")+"javaOptions: true\n"))
		assert.NotContains(t, fixture.Helpers(t, r)["javaOptions"], "trustStore")
	})
	t.Run("java.options without java among the runtimes", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.TrustValues(t, "proxy", ca)+"javaOptions: true\n"))
		assert.True(t, strings.HasSuffix(fixture.Helpers(t, r)["javaOptions"], trustFlags))
		assert.Empty(t, javaEnv(t, fixture.SpecContainer(t, proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec, "app").Env))
	})
}
