package distros

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
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
	values := nodeValues("bottlerocket", proxyURL, ca, true)
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
	judgeNoProxy(t, "settings.network", n.HTTPSProxy, n.HTTPSProxy, strings.Join(n.NoProxy, ","))
	pki, ok := s.Settings.PKI["proxykit-ca"]
	if !ok || !pki.Trusted {
		t.Fatalf("no trusted settings.pki.proxykit-ca: %+v", s.Settings.PKI)
	}
	if pem, err := base64.StdEncoding.DecodeString(pki.Data); err != nil || strings.TrimSpace(string(pem)) != strings.TrimSpace(ca) {
		t.Errorf("settings.pki.proxykit-ca.data is not the CA: %v", err)
	}
}
