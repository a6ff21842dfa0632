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
	"fmt"
	"io"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http/httpproxy"
	"gopkg.in/yaml.v3"
)

// root is the repository, two folders up; helm its CLI, which `make tools` builds.
var (
	root, _ = filepath.Abs(filepath.Join("..", ".."))
	helm    = filepath.Join(root, "bin", "helm")
)

// userCopy copies cluster-proxy and the library beside it, as the repository holds
// them, into a folder of the package's and builds the chart's dependency there,
// once for every render: the library as it is now, and never a write into the
// repository's charts/ folder, whose archive and times the packages' cached test
// results depend on. TestMain removes the folder.
var userCopy = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "distros-cluster-proxy")
	if err != nil {
		return "", err
	}
	copyDir = dir
	for _, part := range []string{filepath.Join("charts", "cluster-proxy"), filepath.Join("library", "proxykit")} {
		if err := os.CopyFS(filepath.Join(dir, part), os.DirFS(filepath.Join(root, part))); err != nil {
			return "", err
		}
	}
	chart := filepath.Join(dir, "charts", "cluster-proxy")
	if out, err := exec.Command(helm, "dependency", "build", chart).CombinedOutput(); err != nil {
		return "", fmt.Errorf("helm dependency build: %v\n%s", err, out)
	}
	return chart, nil
})

// copyDir is userCopy's folder, "" until it has made one.
var copyDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if copyDir != "" {
		_ = os.RemoveAll(copyDir)
	}
	os.Exit(code)
}

// renderSecrets renders cluster-proxy with values through bin/helm, as a user
// would, and returns its Secrets' and ConfigMaps' data by name.
func renderSecrets(t *testing.T, values string) map[string]map[string][]byte {
	t.Helper()
	if _, err := os.Stat(helm); err != nil {
		t.Fatalf("bin/helm is missing: `make tools` builds it")
	}
	file := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(file, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	chart, err := userCopy()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(helm, "template", "nodes", chart, "-f", file).CombinedOutput()
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

// nodeValues are cluster-proxy's values for one distribution (flag, such as
// "talos", turned on): the proxy URL for https (and http unless httpsOnly), a
// registry with its port in NO_PROXY, the CA, and the cluster's networks.
func nodeValues(flag, proxyURL, ca string, httpsOnly bool) string {
	proxy := "  https: \"" + proxyURL + "\"\n"
	if !httpsOnly {
		proxy = "  http: \"" + proxyURL + "\"\n" + proxy
	}
	return "clusterName: wc1\n" + flag + ": {enabled: true}\nproxy:\n" + proxy +
		"  noProxy: [registry.corp.example:5000]\n  trustedCA: |\n" + indent(ca, "    ") +
		"cluster:\n  podCIDRs: [10.244.0.0/16]\n  serviceCIDRs: [10.96.0.0/12]\n  apiServer: 10.0.0.10\n"
}

// judgeNoProxy holds a node's proxy settings to what its Go components
// (containerd, the kubelet, Talos's services) must decide: the API server, the
// Service and Pod networks, the registry on its port and the metadata service
// direct; the outside, and the registry on another port, through the proxy.
func judgeNoProxy(t *testing.T, label, httpURL, httpsURL, noProxy string) {
	t.Helper()
	judgeNoProxyFor(t, label, "https://10.0.0.10:6443", httpURL, httpsURL, noProxy)
}

// judgeNoProxyFor is judgeNoProxy for a cluster whose API server is apiServer
// (a URL).
func judgeNoProxyFor(t *testing.T, label, apiServer, httpURL, httpsURL, noProxy string) {
	t.Helper()
	decide := (&httpproxy.Config{HTTPProxy: httpURL, HTTPSProxy: httpsURL, NoProxy: noProxy}).ProxyFunc()
	for target, direct := range map[string]bool{
		apiServer:                                 true,
		"https://10.96.0.1":                       true, // the kubernetes Service
		"https://kubernetes.default.svc":          true,
		"http://10.244.3.7:8080":                  true, // a Pod
		"https://registry.corp.example:5000/v2/":  true, // the registry, with its port
		"http://169.254.169.254/latest/meta-data": true,
		"https://registry.k8s.io/v2/":             false, // the outside
		"https://registry.corp.example/v2/":       false, // another port: the entry names 5000
	} {
		u, _ := url.Parse(target)
		if proxy, err := decide(u); err != nil || (proxy == nil) != direct {
			t.Errorf("%s: %s proxied %v, want direct %v", label, target, proxy != nil, direct)
		}
	}
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString(prefix + line)
		}
	}
	return b.String()
}
