package distros

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"

	nodeadm "github.com/awslabs/amazon-eks-ami/nodeadm/api/v1alpha1"
	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// cloudConfig is the part of cloud-init's cloud-config the user data uses.
type cloudConfig struct {
	WriteFiles []struct {
		Path        string `yaml:"path"`
		Permissions string `yaml:"permissions"`
		Content     string `yaml:"content"`
	} `yaml:"write_files"`
	RunCmd [][]string `yaml:"runcmd"`
}

// The EKS user data from cluster-proxy is read as nodeadm reads user data: a
// MIME message (net/mail) whose multipart body holds parts by media type; the
// application/node.eks.aws part decodes strictly into nodeadm's own NodeConfig
// type, and the cloud-config part's drop-ins are read by systemd
// (systemd-analyze verify), the URL as given and a NO_PROXY Go's matcher
// (containerd, the kubelet) decides right for the EKS API server by its name.
func TestEKSUserData(t *testing.T) {
	const proxyURL = "http://proxy.corp.example:3128"
	const endpoint = "https://0123456789abcdef.gr7.eu-west-1.eks.amazonaws.com"
	ca := newCA(t)
	values := strings.Replace(nodeValues("eks", proxyURL, ca, false), "apiServer: 10.0.0.10", "apiServer: 0123456789abcdef.gr7.eu-west-1.eks.amazonaws.com", 1) +
		"eks:\n  enabled: true\n  cluster: {name: wc1, apiServerEndpoint: \"" + endpoint + "\", certificateAuthority: \"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\", cidr: 10.96.0.0/12}\n"
	raw := renderSecrets(t, values)["wc1-eks-proxy"]["userData"]
	if raw == nil {
		t.Fatalf("no Secret wc1-eks-proxy with key userData")
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a MIME message: %v\n%s", err, raw)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/mixed" {
		t.Fatalf("Content-Type %q: %v", mediaType, err)
	}
	parts := map[string][]byte{}
	reader := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := reader.NextPart()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("multipart: %v", err)
		}
		partType, _, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(part)
		parts[partType] = body
	}

	var nc nodeadm.NodeConfig
	if err := sigsyaml.UnmarshalStrict(parts["application/node.eks.aws"], &nc); err != nil {
		t.Fatalf("nodeadm's NodeConfig does not decode it: %v\n%s", err, parts["application/node.eks.aws"])
	}
	if nc.APIVersion != nodeadm.GroupVersion.String() || nc.Kind != "NodeConfig" {
		t.Errorf("%s %s, want %s NodeConfig", nc.APIVersion, nc.Kind, nodeadm.GroupVersion)
	}
	if c := nc.Spec.Cluster; c.Name != "wc1" || c.APIServerEndpoint != endpoint || c.CIDR != "10.96.0.0/12" || !strings.HasPrefix(string(c.CertificateAuthority), "-----BEGIN CERTIFICATE") {
		t.Errorf("spec.cluster %+v", c)
	}

	text := string(parts["text/cloud-config"])
	if !strings.HasPrefix(text, "#cloud-config\n") {
		t.Fatalf("cloud-config part without its header:\n%s", text)
	}
	var cc cloudConfig
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&cc); err != nil {
		t.Fatalf("cloud-config: %v", err)
	}
	files := map[string]string{}
	for _, f := range cc.WriteFiles {
		files[f.Path] = f.Content
	}
	for _, unit := range []string{"containerd", "kubelet"} {
		env := systemdEnvironment(t, files["/etc/systemd/system/"+unit+".service.d/http-proxy.conf"])
		if env["HTTPS_PROXY"] != proxyURL || env["http_proxy"] != proxyURL {
			t.Errorf("%s: systemd gives %q and %q, want %q", unit, env["HTTPS_PROXY"], env["http_proxy"], proxyURL)
		}
		judgeNoProxyFor(t, unit, endpoint+"/api", env["HTTP_PROXY"], env["HTTPS_PROXY"], env["NO_PROXY"])
	}
	if strings.TrimSpace(files["/etc/pki/ca-trust/source/anchors/proxykit-ca.pem"]) != strings.TrimSpace(ca) {
		t.Errorf("no CA among the trust anchors")
	}
	if len(cc.RunCmd) != 2 || strings.Join(cc.RunCmd[0], " ") != "update-ca-trust extract" || strings.Join(cc.RunCmd[1], " ") != "systemctl daemon-reload" {
		t.Errorf("runcmd %v", cc.RunCmd)
	}
}
