package distros

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"golang.org/x/net/http/httpproxy"
)

// bottlerocketSettings are the settings Bottlerocket documents for a proxy
// and a trusted CA: settings.network.https-proxy (one URL, for http and
// https) and no-proxy (a list), settings.pki.<name>.data (base64 PEM) and
// trusted. Bottlerocket's own model is Rust, with no Go package: the TOML is
// decoded strictly against these keys, any other key an error.
type bottlerocketSettings struct {
	Settings struct {
		Network struct {
			HTTPSProxy string   `toml:"https-proxy"`
			NoProxy    []string `toml:"no-proxy"`
		} `toml:"network"`
		PKI map[string]struct {
			Data    string `toml:"data"`
			Trusted bool   `toml:"trusted"`
		} `toml:"pki"`
	} `toml:"settings"`
}

// Bottlerocket's settings from cluster-proxy: TOML with exactly the keys
// Bottlerocket documents, the URL as given, a NO_PROXY list that Go's matcher
// (containerd, the kubelet; Bottlerocket joins the list with commas) decides
// right, the CA trusted; a URL with credentials is refused, as user data is
// readable from the instance metadata service.
func TestBottlerocketSettings(t *testing.T) {
	const proxyURL = "http://proxy.corp.example:3128"
	ca := newCA(t)
	values := `clusterName: wc1
bottlerocket: {enabled: true}
proxy:
  https: "` + proxyURL + `"
  noProxy: [registry.corp.example:5000]
  trustedCA: |
` + indent(ca, "    ") + `cluster:
  podCIDRs: [10.244.0.0/16]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: 10.0.0.10
`
	raw := renderSecrets(t, values)["wc1-bottlerocket-proxy"]["settings.toml"]
	var s bottlerocketSettings
	md, err := toml.Decode(string(raw), &s)
	if err != nil {
		t.Fatalf("not TOML: %v\n%s", err, raw)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		t.Fatalf("keys Bottlerocket does not document: %v", undecoded)
	}
	n := s.Settings.Network
	if n.HTTPSProxy != proxyURL {
		t.Errorf("https-proxy %q", n.HTTPSProxy)
	}
	decide := (&httpproxy.Config{HTTPProxy: n.HTTPSProxy, HTTPSProxy: n.HTTPSProxy, NoProxy: strings.Join(n.NoProxy, ",")}).ProxyFunc()
	for target, direct := range map[string]bool{
		"https://10.0.0.10:6443": true, "https://10.96.0.1": true, "http://10.244.3.7:8080": true,
		"https://registry.corp.example:5000/v2/": true, "http://169.254.169.254/latest/meta-data": true,
		"https://registry.k8s.io/v2/": false,
	} {
		u, _ := url.Parse(target)
		if proxy, err := decide(u); err != nil || (proxy == nil) != direct {
			t.Errorf("%s proxied %v, want direct %v", target, proxy != nil, direct)
		}
	}
	pki, ok := s.Settings.PKI["proxykit-ca"]
	if !ok || !pki.Trusted {
		t.Fatalf("no trusted settings.pki.proxykit-ca: %+v", s.Settings.PKI)
	}
	if pem, err := base64.StdEncoding.DecodeString(pki.Data); err != nil || strings.TrimSpace(string(pem)) != strings.TrimSpace(ca) {
		t.Errorf("settings.pki.proxykit-ca.data is not the CA: %v", err)
	}
}
