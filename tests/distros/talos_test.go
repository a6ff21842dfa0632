package distros

import (
	"net/url"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
	"github.com/siderolabs/talos/pkg/machinery/config/validation"
)

// metal is the runtime mode a Talos machine on hardware validates in.
type metal struct{}

func (metal) String() string        { return "metal" }
func (metal) RequiresInstall() bool { return true }
func (metal) InContainer() bool     { return false }

// The Talos patch cluster-proxy renders is read by Talos's own machinery:
// loaded as a patch, applied to a generated worker config, validated strictly;
// machine.env then carries the URLs byte for byte (a password with an escape
// included) and a NO_PROXY that Go's matcher (Talos's services are Go)
// decides right for the API server, the Service and Pod networks, the
// registry and the outside; the CA is a TrustedRootsConfig document.
func TestTalosPatch(t *testing.T) {
	const proxyURL = "http://svc-user:Pa%40ss%25w0rd@proxy.corp.example:3128"
	ca := newCA(t)
	values := nodeValues("talos", proxyURL, ca, false)
	patch := renderSecrets(t, values)["wc1-talos-proxy"]["patch"]
	if patch == nil {
		t.Fatalf("no Secret wc1-talos-proxy with key patch")
	}
	p, err := configpatcher.LoadPatch(patch)
	if err != nil {
		t.Fatalf("Talos does not load the patch: %v\n%s", err, patch)
	}
	in, err := generate.NewInput("wc1", "https://10.0.0.10:6443", "1.34.0", generate.WithInstallDisk("/dev/sda"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := in.Config(machine.TypeWorker)
	if err != nil {
		t.Fatal(err)
	}
	out, err := configpatcher.Apply(configpatcher.WithConfig(base), []configpatcher.Patch{p})
	if err != nil {
		t.Fatalf("Talos does not apply the patch: %v", err)
	}
	cfg, err := out.Config()
	if err != nil {
		t.Fatal(err)
	}
	if warnings, err := cfg.Validate(metal{}, validation.WithStrict()); err != nil || len(warnings) > 0 {
		t.Fatalf("the patched config does not validate: %v %v", err, warnings)
	}

	env := cfg.Machine().Env()
	if env["http_proxy"] != proxyURL || env["https_proxy"] != proxyURL {
		t.Errorf("machine.env: %q %q, want the URL byte for byte", env["http_proxy"], env["https_proxy"])
	}
	if u, err := url.Parse(env["http_proxy"]); err != nil || u.User.Username() != "svc-user" {
		t.Errorf("the URL's user-info does not parse back: %v", err)
	} else if pw, _ := u.User.Password(); pw != "Pa@ss%w0rd" {
		t.Errorf("password read back as %q", pw)
	}
	judgeNoProxy(t, "machine.env", env["http_proxy"], env["https_proxy"], env["no_proxy"])
	roots := cfg.TrustedRoots().ExtraTrustedRootCertificates()
	// Talos writes each document's certificates under its name
	if len(roots) != 1 || !strings.Contains(roots[0], strings.TrimSpace(ca)) || !strings.Contains(roots[0], "proxykit-ca") {
		t.Errorf("trusted roots: %q, want the CA as document proxykit-ca", roots)
	}
}
