package distros

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// root is the repository, two folders up.
var root, _ = filepath.Abs(filepath.Join("..", ".."))

// renderSecrets renders cluster-proxy with values through bin/helm, as a user
// would, and returns its Secrets' and ConfigMaps' data by name.
func renderSecrets(t *testing.T, values string) map[string]map[string][]byte {
	t.Helper()
	helm := filepath.Join(root, "bin", "helm")
	if _, err := os.Stat(helm); err != nil {
		t.Fatalf("bin/helm is missing: `make tools` builds it")
	}
	file := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(file, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(helm, "dependency", "build", filepath.Join(root, "charts", "cluster-proxy"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helm dependency build: %v\n%s", err, out)
	}
	out, err := exec.Command(helm, "template", "nodes", filepath.Join(root, "charts", "cluster-proxy"), "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	secrets := map[string]map[string][]byte{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var doc struct {
			Kind     string                `yaml:"kind"`
			Metadata struct{ Name string } `yaml:"metadata"`
			Data     map[string]string     `yaml:"data"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if doc.Kind != "Secret" && doc.Kind != "ConfigMap" {
			continue
		}
		data := map[string][]byte{}
		for k, v := range doc.Data {
			if doc.Kind == "ConfigMap" {
				data[k] = []byte(v)
				continue
			}
			raw, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				t.Fatal(err)
			}
			data[k] = raw
		}
		secrets[doc.Metadata.Name] = data
	}
	return secrets
}

// newCA is a CA certificate of the test's own, PEM: the intercepting proxy's.
func newCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "corp intercepting proxy"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
