package distros

import (
	"net/url"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/tests/harness/systemdenv"
)

// The environment files cluster-proxy renders for RKE2 and k3s, read by
// systemd's own parser of such files (what their units' EnvironmentFile= does):
// the URL byte for byte (a password with a quote and a percent-escape), a
// NO_PROXY Go's matcher (containerd, the kubelet, RKE2 and k3s themselves)
// decides right; with containerdOnly only the CONTAINERD_ variables, which they
// hand containerd alone.
func TestRKE2AndK3sEnvironmentFiles(t *testing.T) {
	const proxyURL = "http://svc-user:it's%40w0rd@proxy.corp.example:3128"
	values := strings.Replace(nodeValues("rke2", proxyURL, newCA(t), false), "rke2: {enabled: true}", "rke2: {enabled: true}\nk3s: {enabled: true, containerdOnly: true}", 1)
	secrets := renderSecrets(t, values)

	rke2 := systemdenv.EnvironmentFile(t, string(secrets["wc1-rke2-proxy"]["environment"]))
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		if rke2[name] != proxyURL {
			t.Errorf("rke2: systemd reads %s=%q, want the URL byte for byte", name, rke2[name])
		}
	}
	if u, err := url.Parse(rke2["HTTPS_PROXY"]); err != nil {
		t.Error(err)
	} else if pw, _ := u.User.Password(); pw != "it's@w0rd" {
		t.Errorf("rke2: password read back as %q", pw)
	}
	if rke2["NO_PROXY"] != rke2["no_proxy"] {
		t.Errorf("rke2: the twins disagree")
	}
	judgeNoProxy(t, "rke2", rke2["HTTP_PROXY"], rke2["HTTPS_PROXY"], rke2["NO_PROXY"])

	k3s := systemdenv.EnvironmentFile(t, string(secrets["wc1-k3s-proxy"]["environment"]))
	for name := range k3s {
		if strings.Contains(strings.ToLower(name), "proxy") && !strings.HasPrefix(name, "CONTAINERD_") {
			t.Errorf("k3s with containerdOnly sets %s, which k3s itself would read", name)
		}
	}
	judgeNoProxy(t, "k3s containerd", k3s["CONTAINERD_HTTP_PROXY"], k3s["CONTAINERD_HTTPS_PROXY"], k3s["CONTAINERD_NO_PROXY"])
}
