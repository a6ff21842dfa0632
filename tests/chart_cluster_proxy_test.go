package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// clusterValues is the YAML document in the cluster-values Secret.
type clusterValues struct {
	Cluster struct {
		Proxy proxyConfig `json:"proxy"`
	} `json:"cluster"`
	Proxy      proxyConfig     `json:"proxy"`
	HTTPProxy  string          `json:"http_proxy"`
	HTTPSProxy string          `json:"https_proxy"`
	NoProxy    string          `json:"no_proxy"`
	ExtraEnv   []corev1.EnvVar `json:"extraEnv"`
}

type proxyConfig struct {
	HTTP    string `json:"http"`
	HTTPS   string `json:"https"`
	NoProxy string `json:"noProxy"`
}

func decodeClusterValues(t *testing.T, s corev1.Secret) clusterValues {
	t.Helper()
	var v clusterValues
	require.NoError(t, yamlUnmarshalStrict(string(s.Data["values"]), &v), "key values:\n%s", s.Data["values"])
	return v
}

// assertCoversCluster checks a NO_PROXY against the destinations of clusterProxyPlain.
func assertCoversCluster(t *testing.T, noProxy string) {
	t.Helper()
	fixture.AssertProxySelection(t, noProxy, []string{
		"http://10.244.1.5:8080", "http://[fd00:10:244::5]:8080", "http://10.100.0.10", "https://10.96.0.1",
		"https://kubernetes.default.svc.cluster.local.", "http://web.shop.svc", "https://git.corp.example",
	}, []string{fixture.ExternalURL})
}

func TestClusterProxyPlain(t *testing.T) {
	r, err := fixture.RenderE(fixture.ClusterProxy, proxytest.Values(fixture.ClusterProxyPlain))
	require.NoError(t, err)

	values := decodeClusterValues(t, proxytest.Get[corev1.Secret](t, r, "wc1-cluster-values"))
	assert.Equal(t, "http://proxy.corp.example:3128", values.Cluster.Proxy.HTTP)
	assert.Equal(t, "http://proxy.corp.example:3129", values.Cluster.Proxy.HTTPS)
	assert.Equal(t, values.Cluster.Proxy, values.Proxy, "proxy.* carries the same as cluster.proxy.*")
	assert.Equal(t, values.Cluster.Proxy.HTTP, values.HTTPProxy)
	assert.Equal(t, values.Cluster.Proxy.HTTPS, values.HTTPSProxy)
	assert.Equal(t, values.Cluster.Proxy.NoProxy, values.NoProxy)
	assertCoversCluster(t, values.NoProxy)

	var certManager map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(proxytest.Get[corev1.Secret](t, r, "wc1-cluster-values").Data["certManagerValues"]), &certManager))
	assert.Equal(t, []string{"http_proxy", "https_proxy", "no_proxy"}, sortedKeys(certManager), "only keys cert-manager's schema allows")

	systemd := proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy")
	assert.Equal(t, fixture.Namespace, systemd.Namespace)
	for _, key := range []string{"containerdProxy", "kubeletProxy"} {
		names, env := parseDropIn(t, string(systemd.Data[key]))
		assert.Len(t, names, 6, key)
		assert.Equal(t, "http://proxy.corp.example:3128", env["HTTP_PROXY"])
		assert.Equal(t, values.NoProxy, env["NO_PROXY"], "the drop-in carries the full per-cluster NO_PROXY")
		assert.Equal(t, values.NoProxy, env["no_proxy"])
		assertCoversCluster(t, env["NO_PROXY"])
	}

	envFrom := proxytest.Get[corev1.ConfigMap](t, r, "proxy-env")
	assert.Equal(t, map[string]string{
		"HTTP_PROXY": "http://proxy.corp.example:3128", "http_proxy": "http://proxy.corp.example:3128",
		"HTTPS_PROXY": "http://proxy.corp.example:3129", "https_proxy": "http://proxy.corp.example:3129",
		"NO_PROXY": values.NoProxy, "no_proxy": values.NoProxy,
	}, envFrom.Data)

	assert.Nil(t, r.Find("Secret", fixture.Release+"-proxy-credentials"), "no credentials, no proxy Secret")
	assert.Empty(t, strings.TrimSpace(fixture.SourceText(r, "templates/proxy-secret.yaml")))
}

// TestClusterProxyRuntimes: the env source carries the runtimes' variables, as
// plain values beside the URLs (the JVM's flags hold no credential).
func TestClusterProxyRuntimes(t *testing.T) {
	values := strings.Replace(fixture.ClusterProxyPlain, "  noProxy: [.corp.example]\n", "  noProxy: [.corp.example]\n  runtimes: [java, node]\n", 1) + "envFrom: {enabled: true, name: proxy-env}\n"
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	envFrom := proxytest.Get[corev1.ConfigMap](t, r, "proxy-env").Data
	assert.True(t, strings.HasPrefix(envFrom["JAVA_TOOL_OPTIONS"], "-Dhttp.proxyHost=proxy.corp.example -Dhttp.proxyPort=3128 -Dhttps.proxyHost=proxy.corp.example -Dhttps.proxyPort=3129 -Dhttp.nonProxyHosts=localhost|127.*|*.localhost|127.0.0.1|cluster.local|"), envFrom["JAVA_TOOL_OPTIONS"])
	assert.Contains(t, envFrom["JAVA_TOOL_OPTIONS"], "|10.244.*|", "the pod CIDR, as the JVM's patterns")
	assert.Equal(t, "1", envFrom["NODE_USE_ENV_PROXY"])
	assert.Contains(t, envFrom["NO_PROXY"], ",.svc,", "NO_PROXY with the forms Node.js needs")

	creds := fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt", "envFrom": map[string]any{"enabled": true, "name": "proxy-env"},
		"proxy": map[string]any{"http": fixture.CredHTTP, "runtimes": []string{"java"}}})
	secret := proxytest.Get[corev1.Secret](t, fixture.Render(t, fixture.ClusterProxy, proxytest.Values(creds)), "proxy-env").Data
	assert.Equal(t, fixture.CredHTTP, string(secret["HTTP_PROXY"]))
	assert.True(t, strings.HasPrefix(string(secret["JAVA_TOOL_OPTIONS"]), "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 "))
	assert.NotContains(t, string(secret["JAVA_TOOL_OPTIONS"]), fixture.LeakMarker)
}

func TestClusterProxyCredentials(t *testing.T) {
	r, err := fixture.RenderE(fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt"})))
	require.NoError(t, err)
	secretName := fixture.Release + "-proxy-credentials"

	values := decodeClusterValues(t, proxytest.Get[corev1.Secret](t, r, "mgmt-cluster-values"))
	assert.Equal(t, fixture.CredHTTP, values.Cluster.Proxy.HTTP, "byte-exact inside the Secret")
	assert.Equal(t, fixture.CredHTTPS, values.Proxy.HTTPS)
	assert.Empty(t, values.HTTPProxy, "cert-manager would write the URL into a plain env value")
	assert.Equal(t, fixture.SecretEnv(secretName, true), values.ExtraEnv)

	for _, key := range []string{"containerdProxy", "kubeletProxy"} {
		_, env := parseDropIn(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-systemd-proxy").Data[key]))
		assert.Equal(t, fixture.CredHTTP, env["HTTP_PROXY"], "%s: systemd unquotes to the exact URL", key)
		assert.Equal(t, fixture.CredHTTPS, env["https_proxy"])
	}
	assert.Contains(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-systemd-proxy").Data["kubeletProxy"]), "Zq%%40w%%25&", "% doubled for systemd")

	envFrom := proxytest.Get[corev1.Secret](t, r, "proxy-env")
	assert.Equal(t, fixture.CredHTTP, string(envFrom.Data["HTTP_PROXY"]))
	assert.Equal(t, fixture.CredHTTPS, string(envFrom.Data["https_proxy"]))

	// the secretKeyRefs in extraEnv resolve in the release namespace and in cert-manager's
	var namespaces []string
	for _, d := range r.Objects {
		if d.Kind == "Secret" && d.Name == secretName {
			s := fixture.Decode[corev1.Secret](t, d)
			assert.Equal(t, fixture.CredHTTPS, string(s.Data["HTTPS_PROXY"]))
			namespaces = append(namespaces, s.Namespace)
		}
	}
	assert.ElementsMatch(t, []string{fixture.Namespace, "kube-system"}, namespaces)
	fixture.AssertNoCredentialsOutsideSecrets(t, r)
}

func TestClusterProxySwitches(t *testing.T) {
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.ClusterProxyPlain+`
clusterValues: {enabled: false}
systemd: {enabled: false}
envFrom: {enabled: true, name: corp-proxy-env}
`))

	assert.Equal(t, []string{"ConfigMap/corp-proxy-env"}, r.IDs())

	off := fixture.Render(t, fixture.ClusterProxy, proxytest.Values("clusterName: wc1\n"))
	assert.Equal(t, []string{"Secret/wc1-cluster-values"}, off.IDs(), "without a proxy only the (empty) cluster values remain")
	assert.Equal(t, proxyConfig{}, decodeClusterValues(t, proxytest.Get[corev1.Secret](t, off, "wc1-cluster-values")).Proxy)
}

func TestClusterProxyBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"clusterName missing", `proxy: {http: "http://p:1"}`, "clusterName"},
		{"clusterName not a DNS label", `clusterName: WC_1`, "/clusterName"},
		{"proxy URL without scheme", "clusterName: wc1\nproxy: {http: p:3128}", "proxy.http"},
		{"pod CIDR out of range", "clusterName: wc1\nproxy: {http: 'http://p:1'}\ncluster: {podCIDRs: [10.0.0.0/33]}", "cluster.podCIDRs"},
		{"lowercase not a boolean", "clusterName: wc1\nproxy: {lowercase: 'no'}", "/proxy/lowercase"},
		{"envFrom name not a DNS name", "clusterName: wc1\nenvFrom: {name: Proxy_Env}", "/envFrom/name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { fixture.AssertFailsNaming(t, fixture.ClusterProxy, tc.values, tc.want) })
	}
}

func TestClusterProxyCarriesTheTrust(t *testing.T) {
	ca, _ := fixture.NewCA(t, "corp")
	values := strings.Replace(fixture.ClusterProxyPlain, "\nproxy:\n", "\nproxy:\n  trustedCA: "+fixture.YAMLQuote(ca)+"\n", 1)
	require.Contains(t, values, "trustedCA")
	r, err := fixture.RenderE(fixture.ClusterProxy, proxytest.Values(values))
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
				ConfigMap         struct{ Key string } `json:"configMap"`
				AdditionalFormats struct {
					PKCS12 map[string]any `json:"pkcs12"`
				} `json:"additionalFormats"`
			} `json:"target"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "Bundle", "proxykit-ca-bundle").Raw), &bundle))
	require.Len(t, bundle.Spec.Sources, 2)
	assert.True(t, *bundle.Spec.Sources[0].UseDefaultCAs, "public roots, so the bundle can replace a client's roots")
	assert.Equal(t, "proxykit-ca", bundle.Spec.Sources[1].ConfigMap.Name)
	assert.Equal(t, "ca.crt", bundle.Spec.Sources[1].ConfigMap.Key)
	// the target is what proxykit.trust.volumes mounts
	spec := proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.TrustValues(t, "proxy", ca))), fixture.Release+"-app").Spec.Template.Spec
	assert.Equal(t, spec.Volumes[0].ConfigMap.Name, bundle.Metadata.Name)
	assert.Equal(t, "ca-certificates.crt", bundle.Spec.Target.ConfigMap.Key, "the file name the trust variables point at")
	// and, password-less (no password key: trust-manager's default ""), the JVM's trust store
	assert.Equal(t, map[string]any{"key": "ca-certificates.p12"}, bundle.Spec.Target.AdditionalFormats.PKCS12)
	withJava := strings.Replace(fixture.TrustValues(t, "proxy", ca), "proxy:\n", "proxy:\n  runtimes: [java]\n", 1)
	app := fixture.SpecContainer(t, proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(withJava)), fixture.Release+"-app").Spec.Template.Spec, "app")
	assert.Contains(t, javaEnv(t, app.Env), "-Djavax.net.ssl.trustStore=/etc/proxykit/ca/ca-certificates.p12 ", "the file the JVM's flags point at")
	assert.ElementsMatch(t, []string{"ConfigMap/proxykit-ca@cert-manager", "Bundle/proxykit-ca-bundle"}, objectsBySource(r)["templates/trust-bundle.yaml"])
	// the nodes' copy, for the trust store
	assert.Equal(t, ca, string(proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy").Data["trustedCA"]))

	t.Run("without a trusted CA: no Bundle, no key", func(t *testing.T) {
		r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.ClusterProxyPlain))
		assert.Nil(t, r.Find("Bundle", "proxykit-ca-bundle"))
		assert.NotContains(t, proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy").Data, "trustedCA")
	})
	t.Run("the CAPI example installs the CA before containerd restarts", func(t *testing.T) {
		capi, err := fixture.RenderE(fixture.Path("examples", "capi"), proxytest.Values("clusterName: wc1\nproxy: {trustedCA: "+fixture.YAMLQuote(ca)+"}\n"))
		require.NoError(t, err)
		var kcp struct {
			Spec struct {
				KubeadmConfigSpec fixture.KubeadmConfigSpec `json:"kubeadmConfigSpec"`
			} `json:"spec"`
		}
		require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, capi, "KubeadmControlPlane", "wc1-control-plane").Raw), &kcp))
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

// componentKeys are the values keys each component's chart documents for its
// proxy; the mappings must write exactly these.
var componentKeys = map[string][]string{
	// TKG's kapp-controller package values (kapp-controller's config: httpProxy, httpsProxy, noProxy)
	"kapp-controller": {"kappController.config.httpProxy", "kappController.config.httpsProxy", "kappController.config.noProxy"},
	// TKG's vsphere-cpi and vsphere-csi packages
	"vsphere-cpi": {"vsphereCPI.http_proxy", "vsphereCPI.https_proxy", "vsphereCPI.no_proxy"},
	"vsphere-csi": {"vsphereCSI.http_proxy", "vsphereCSI.https_proxy", "vsphereCSI.no_proxy"},
}

func TestClusterProxyComponentValues(t *testing.T) {
	values := fixture.ClusterProxyPlain + "components: {kappController: true, vsphereCPI: true, vsphereCSI: true}\n"
	r, err := fixture.RenderE(fixture.ClusterProxy, proxytest.Values(values))
	require.NoError(t, err)
	noProxy := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.ClusterProxyPlain)))["noProxy"]
	for component, keys := range componentKeys {
		t.Run(component, func(t *testing.T) {
			secret := proxytest.Get[corev1.Secret](t, r, "wc1-"+component+"-proxy-values")
			var v map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(secret.Data["values"]), &v))
			got := map[string]string{}
			fixture.Leaves("", v, got)
			want := map[string]string{keys[0]: "http://proxy.corp.example:3128", keys[1]: "http://proxy.corp.example:3129", keys[2]: noProxy}
			assert.Equal(t, want, got)
		})
	}
	assert.Equal(t, map[string][]string{"templates/component-values-secrets.yaml": {
		"Secret/wc1-kapp-controller-proxy-values@proxykit-test", "Secret/wc1-vsphere-cpi-proxy-values@proxykit-test", "Secret/wc1-vsphere-csi-proxy-values@proxykit-test",
	}}, map[string][]string{"templates/component-values-secrets.yaml": objectsBySource(r)["templates/component-values-secrets.yaml"]})

	t.Run("off by default", func(t *testing.T) {
		r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.ClusterProxyPlain))
		assert.Nil(t, r.Find("Secret", "wc1-kapp-controller-proxy-values"))
	})
	t.Run("with credentials the values stay in Secrets", func(t *testing.T) {
		r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt",
			"components": map[string]any{"kappController": true, "vsphereCPI": true}, "flux": map[string]any{"enabled": true}})))

		fixture.AssertNoCredentialsOutsideSecrets(t, r)
		assert.Contains(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-kapp-controller-proxy-values").Data["values"]), "httpProxy: "+fixture.CredHTTP)
	})
}

// The Talos patch: machine.env with the library's URLs and NO_PROXY, in a
// Secret (the URLs carry credentials); off by default; with proxy.existingSecret
// alone there is no URL to carry, and the render says so. Talos's own machinery
// reads the patch in tests/distros.
func TestClusterProxyTalosPatch(t *testing.T) {
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "wc1", "talos": map[string]any{"enabled": true}})))
	patch := string(proxytest.Get[corev1.Secret](t, r, "wc1-talos-proxy").Data["patch"])
	assert.Contains(t, patch, "machine:\n  env:\n    http_proxy: "+fixture.CredHTTP+"\n")
	assert.Contains(t, patch, "    https_proxy: "+fixture.CredHTTPS+"\n")
	assert.Contains(t, patch, "    no_proxy: localhost,127.0.0.1,")
	assert.NotContains(t, patch, "TrustedRootsConfig", "no CA, no document")

	off := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "wc1"})))
	assert.Nil(t, off.Find("Secret", "wc1-talos-proxy"), "off unless talos.enabled")

	err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values("clusterName: wc1\ntalos: {enabled: true}\nproxy: {existingSecret: corp-proxy}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n"))
	assert.Contains(t, err, "talos.enabled")
}

// The Flatcar Butane config: the same drop-ins as Cluster API's, for
// containerd and the kubelet, in a Secret; off by default; nothing to carry
// with proxy.existingSecret alone. Butane, Ignition and systemd read it in
// tests/distros.
func TestClusterProxyFlatcarButane(t *testing.T) {
	values := fixture.CredentialValues(t, map[string]any{"clusterName": "wc1", "flatcar": map[string]any{"enabled": true}})
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	butane := string(proxytest.Get[corev1.Secret](t, r, "wc1-flatcar-proxy").Data["butane"])
	dropIn := string(proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy").Data["containerdProxy"])
	assert.Contains(t, butane, "variant: flatcar\n")
	assert.Equal(t, 2, strings.Count(butane, "name: http-proxy.conf"), "containerd's and the kubelet's")
	assert.Contains(t, butane, strings.ReplaceAll(strings.TrimSpace(dropIn), "\n", "\n        "), "the Cluster API drop-in, as it is")

	off := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "wc1"})))
	assert.Nil(t, off.Find("Secret", "wc1-flatcar-proxy"))
	err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values("clusterName: wc1\nflatcar: {enabled: true}\nproxy: {existingSecret: corp-proxy}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n"))
	assert.Contains(t, err, "flatcar.enabled")
}

// Bottlerocket's settings: https-proxy, the no-proxy list and the CA, in a
// ConfigMap; a URL with credentials is refused, naming why and never the URL
// (user data is readable from the instance metadata service). The TOML is
// decoded strictly in tests/distros.
func TestClusterProxyBottlerocketSettings(t *testing.T) {
	values := "clusterName: wc1\nbottlerocket: {enabled: true}\n" + fixture.PlainProxy
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	assert.Equal(t, []string{"ConfigMap/wc1-bottlerocket-proxy@" + fixture.Namespace}, objectsBySource(r)["templates/bottlerocket-settings-configmap.yaml"])
	settings := proxytest.Get[corev1.ConfigMap](t, r, "wc1-bottlerocket-proxy").Data["settings.toml"]
	assert.Contains(t, settings, "[settings.network]\nhttps-proxy = \"http://proxy.corp:3129\"\nno-proxy = [\"localhost\",")
	assert.NotContains(t, settings, "settings.pki", "no CA, no pki")

	err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "wc1", "bottlerocket": map[string]any{"enabled": true}})))
	assert.Contains(t, err, "bottlerocket.enabled")
	assert.Contains(t, err, "proxy.relay")
	assert.NotContains(t, err, fixture.LeakMarker)
}

// The EKS user data: the drop-ins (and a NodeConfig with eks.cluster) in a
// MIME multipart Secret; off by default. Credentials are refused (user data is
// readable from the instance metadata service), and so are a NodeConfig field
// nodeadm lacks, a service CIDR NO_PROXY lacks, and an API server endpoint
// NO_PROXY does not list, each naming its key. nodeadm's types, MIME and
// systemd read it in tests/distros.
func TestClusterProxyEKSUserData(t *testing.T) {
	const eks = "clusterName: wc1\neks: {enabled: true, cluster: {name: wc1, apiServerEndpoint: \"https://ABC.gr7.eu-west-1.eks.amazonaws.com\", cidr: 10.96.0.0/12}}\n"
	values := eks + strings.Replace(fixture.PlainProxy, "apiServer: 10.96.0.1", "apiServer: abc.gr7.eu-west-1.eks.amazonaws.com", 1)
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	assert.Equal(t, []string{"Secret/wc1-eks-proxy@" + fixture.Namespace}, objectsBySource(r)["templates/eks-userdata-secret.yaml"])
	userData := string(proxytest.Get[corev1.Secret](t, r, "wc1-eks-proxy").Data["userData"])
	dropIn := string(proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy").Data["containerdProxy"])
	assert.True(t, strings.HasPrefix(userData, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="), userData)
	assert.Contains(t, userData, "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n")
	assert.Contains(t, userData, "#cloud-config\n")
	assert.Equal(t, 2, strings.Count(userData, strings.ReplaceAll(strings.TrimSpace(dropIn), "\n", "\n    ")), "containerd's and the kubelet's drop-in, as Cluster API's")

	karpenter := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(strings.Replace(values, ", cluster: {name: wc1, apiServerEndpoint: \"https://ABC.gr7.eu-west-1.eks.amazonaws.com\", cidr: 10.96.0.0/12}", "", 1)))
	assert.NotContains(t, string(proxytest.Get[corev1.Secret](t, karpenter, "wc1-eks-proxy").Data["userData"]), "NodeConfig", "without eks.cluster no NodeConfig: Karpenter and managed node groups write their own")
	assert.Nil(t, fixture.Render(t, fixture.ClusterProxy, proxytest.Values("clusterName: wc1\n"+fixture.PlainProxy)).Find("Secret", "wc1-eks-proxy"), "off by default")

	for bad, key := range map[string]string{
		strings.Replace(values, "cidr: 10.96.0.0/12", "cidr: 172.20.0.0/16", 1):                                           "eks.cluster.cidr 172.20.0.0/16 is not among cluster.serviceCIDRs",
		strings.Replace(values, "name: wc1,", "name: wc1, ipFamily: ipv6,", 1):                                            "eks.cluster.ipFamily is no field of nodeadm's NodeConfig",
		strings.Replace(values, "apiServer: abc.gr7", "apiServer: other.gr7", 1):                                          "eks.cluster.apiServerEndpoint: the nodes call the API server by ABC.gr7.eu-west-1.eks.amazonaws.com",
		eks + "proxy: {existingSecret: corp-proxy}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n": "eks.enabled: the drop-ins carry the proxy URLs",
	} {
		assert.Contains(t, fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values(bad)), "cluster-proxy: "+key)
	}
	err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "wc1", "eks": map[string]any{"enabled": true}})))
	assert.Contains(t, err, "eks.enabled")
	assert.Contains(t, err, "proxy.relay")
	assert.NotContains(t, err, fixture.LeakMarker)
}

// The CA as a ClusterTrustBundle: off by default; on Kubernetes 1.37 (the
// version proxytest renders for) certificates.k8s.io/v1, of signer
// proxykit.io/trusted-ca (the signer the library's projected volume joins) and
// named after it, with the CA and then trust.publicRoots; roots that are not
// certificates, or where neither version is known to be served, fail the render
// naming the key. The loopback API server (1.36, v1beta1) stores it in
// TestClusterTrustBundleOnTheAPIServer.
func TestClusterProxyClusterTrustBundle(t *testing.T) {
	ca, _ := fixture.NewCA(t, "corp")
	root, _ := fixture.NewCA(t, "a public root")
	name := "proxykit.io:trusted-ca:wc1"
	values := fixture.ValuesYAML(t, map[string]any{"clusterName": "wc1", "trust": map[string]any{"clusterTrustBundle": true},
		"proxy": map[string]any{"http": "http://proxy.corp:3128", "trustedCA": ca}, "cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"}})
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	assert.Equal(t, []string{"ClusterTrustBundle/" + name}, objectsBySource(r)["templates/cluster-trust-bundle.yaml"])
	bundle := proxytest.Get[certificatesv1.ClusterTrustBundle](t, r, name)
	assert.Equal(t, "certificates.k8s.io/v1", bundle.APIVersion)
	assert.Equal(t, "proxykit.io/trusted-ca", bundle.Spec.SignerName)
	assert.Equal(t, "true", bundle.Labels["proxykit.io/trusted-ca"], "the label the library's volume selects")
	assert.Equal(t, strings.TrimSpace(ca), strings.TrimSpace(bundle.Spec.TrustBundle), "the CA alone without public roots")

	withRoots := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values+fixture.ValuesYAML(t, map[string]any{"trust": map[string]any{"clusterTrustBundle": true, "publicRoots": root + "\n"}})))
	joined := proxytest.Get[certificatesv1.ClusterTrustBundle](t, withRoots, name).Spec.TrustBundle
	assert.Equal(t, strings.TrimSpace(ca)+"\n"+strings.TrimSpace(root), strings.TrimSpace(joined), "the CA, then the public roots")

	off := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(strings.Replace(values, "clusterTrustBundle: true", "clusterTrustBundle: false", 1)))
	assert.Nil(t, off.Find("ClusterTrustBundle", name))
	_, err := proxytest.RenderE(fixture.ClusterProxy, proxytest.Values(values), proxytest.EmbeddedLibrary(), proxytest.KubeVersion("v1.36.3"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cluster-proxy: trust.clusterTrustBundle: the cluster serves no ClusterTrustBundle")

	for roots, want := range map[string]string{
		"not a certificate": "trust.publicRoots holds no PEM certificate",
		root + "junk":       "trust.publicRoots holds text besides PEM certificates",
	} {
		err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values(values+fixture.ValuesYAML(t, map[string]any{"trust": map[string]any{"clusterTrustBundle": true, "publicRoots": roots}})))
		assert.Contains(t, err, want)
		assertNoTemplateCrash(t, err)
	}
}

// RKE2's and k3s's environment files: the library's proxykit.systemd.environmentFile
// in a Secret each (it may carry credentials), the CONTAINERD_ variables alone
// with containerdOnly; off by default; nothing to carry with proxy.existingSecret
// alone. systemd's own parser reads them in tests/distros.
func TestClusterProxyRKE2AndK3sEnvironment(t *testing.T) {
	values := fixture.CredentialValues(t, map[string]any{"clusterName": "wc1", "rke2": map[string]any{"enabled": true}, "k3s": map[string]any{"enabled": true, "containerdOnly": true}})
	r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	assert.ElementsMatch(t, []string{"Secret/wc1-rke2-proxy@" + fixture.Namespace, "Secret/wc1-k3s-proxy@" + fixture.Namespace}, objectsBySource(r)["templates/rke2-k3s-environment-secrets.yaml"])
	rke2 := string(proxytest.Get[corev1.Secret](t, r, "wc1-rke2-proxy").Data["environment"])
	k3s := string(proxytest.Get[corev1.Secret](t, r, "wc1-k3s-proxy").Data["environment"])
	assert.Contains(t, rke2, "\nHTTP_PROXY=\"http://")
	assert.Contains(t, rke2, "\nno_proxy=\"localhost,")
	assert.NotContains(t, rke2, "export ")
	assert.Contains(t, k3s, "\nCONTAINERD_HTTP_PROXY=\"http://")
	assert.NotContains(t, k3s, "\nHTTP_PROXY=", "containerd alone")

	off := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.CredentialValues(t, map[string]any{"clusterName": "wc1"})))
	assert.Nil(t, off.Find("Secret", "wc1-rke2-proxy"))
	err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values("clusterName: wc1\nk3s: {enabled: true}\nproxy: {existingSecret: corp-proxy}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n"))
	assert.Contains(t, err, "cluster-proxy: k3s.enabled: the environment file carries the proxy URLs")
}
