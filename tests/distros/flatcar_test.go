package distros

import (
	"net/url"
	"strings"
	"testing"

	"github.com/coreos/butane/config"
	"github.com/coreos/butane/config/common"
	ignition "github.com/coreos/ignition/v2/config/v3_4"

	"github.com/proxykit/proxykit/tests/harness/systemdenv"
)

// The Butane config cluster-proxy renders for Flatcar is translated by
// Butane itself (strict: a warning fails it) into Ignition, which Ignition's
// own parser reads; each drop-in it writes is then read by systemd
// (systemd-analyze verify), as the node would: the URL byte for byte, a
// NO_PROXY Go's matcher (containerd, the kubelet) decides right, the CA file.
func TestFlatcarButane(t *testing.T) {
	const proxyURL = "http://svc-user:Pa%40ss%25w0rd@proxy.corp.example:3128"
	ca := newCA(t)
	values := nodeValues("flatcar", proxyURL, ca, false)
	butane := renderSecrets(t, values)["wc1-flatcar-proxy"]["butane"]
	if butane == nil {
		t.Fatalf("no Secret wc1-flatcar-proxy with key butane")
	}
	raw, report, err := config.TranslateBytes(butane, common.TranslateBytesOptions{})
	if err != nil || len(report.Entries) > 0 {
		t.Fatalf("Butane does not translate it cleanly: %v %s\n%s", err, report.String(), butane)
	}
	ign, report, err := ignition.Parse(raw)
	if err != nil || len(report.Entries) > 0 {
		t.Fatalf("Ignition does not parse it: %v %s", err, report.String())
	}
	units := map[string]string{}
	for _, u := range ign.Systemd.Units {
		for _, d := range u.Dropins {
			if d.Name == "http-proxy.conf" && d.Contents != nil {
				units[u.Name] = *d.Contents
			}
		}
	}
	for _, unit := range []string{"containerd.service", "kubelet.service"} {
		env := systemdEnvironment(t, units[unit])
		if env["HTTP_PROXY"] != proxyURL || env["https_proxy"] != proxyURL {
			t.Errorf("%s: systemd gives %q and %q, want the URL byte for byte", unit, env["HTTP_PROXY"], env["https_proxy"])
		}
		if u, err := url.Parse(env["HTTPS_PROXY"]); err != nil {
			t.Errorf("%s: %v", unit, err)
		} else if pw, _ := u.User.Password(); pw != "Pa@ss%w0rd" {
			t.Errorf("%s: password read back as %q", unit, pw)
		}
		judgeNoProxy(t, unit, env["HTTP_PROXY"], env["HTTPS_PROXY"], env["NO_PROXY"])
	}
	var caFile string
	for _, f := range ign.Storage.Files {
		if f.Path == "/etc/ssl/certs/proxykit-ca.pem" && f.Contents.Source != nil {
			caFile = *f.Contents.Source
		}
	}
	if !strings.Contains(caFile, "data:") {
		t.Errorf("no CA file in /etc/ssl/certs: %q", caFile)
	}
}

// systemdEnvironment is the environment systemd gives a unit with dropIn: the
// node suites' reader (tests/harness/systemdenv).
func systemdEnvironment(t *testing.T, dropIn string) map[string]string {
	t.Helper()
	env, _ := systemdenv.Environment(t, dropIn)
	return env
}
