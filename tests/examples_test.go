package tests

import (
	"os"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var consumerApp = repoPath("examples", "consumer-app")

// provider is an example values file and the in-cluster destinations of that environment.
type provider struct {
	file        string
	bypass      []string // URLs that must not go through the proxy
	proxied     []string // URLs that must, besides externalURL
	credentials string   // the password in the proxy URL, if any
}

// externalURL must always go through the proxy.
const externalURL = "https://api.github.com"

var providers = []provider{
	{
		file: "eks.yaml",
		bypass: []string{
			"http://10.12.34.56:8080",                        // pod IP from the VPC
			"http://172.20.14.2:80",                          // service IP
			"https://172.20.0.1:443",                         // API server ClusterIP
			"http://web.shop.svc.cluster.local:8080",         // cluster DNS
			"http://web.shop.svc.cluster.local.:8080",        // cluster DNS with trailing dot
			"http://169.254.169.254/latest/meta-data/",       // instance metadata
			"https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com", // EKS endpoint from noProxy
		},
	},
	{
		file: "gke.yaml",
		bypass: []string{
			"http://10.1.2.3:8080", "http://10.4.12.7", "https://10.4.0.1",
			"http://web.shop.svc.cluster.local", "http://web.shop.svc.cluster.local.",
			"http://metadata.google.internal/computeMetadata/v1/", "http://169.254.169.254",
			"https://storage.googleapis.com",
		},
	},
	{
		file: "aks.yaml",
		bypass: []string{
			"http://10.244.7.7:8080", "http://10.0.44.5", "https://10.0.0.1",
			"http://web.shop.svc.cluster.local", "http://web.shop.svc.cluster.local.",
			"http://169.254.169.254/metadata/instance", "https://wc1-abc.hcp.westeurope.azmk8s.io",
		},
	},
	{
		file: "tkg.yaml",
		bypass: []string{
			"http://100.100.1.1:8080", "http://100.66.0.10", "https://100.64.0.1",
			"http://web.shop.svc.cluster.local", "http://web.shop.svc.cluster.local.",
			"http://169.254.169.254", "https://vcenter.corp.example/sdk", "http://192.168.10.20",
		},
	},
	{
		file: "ipv6.yaml",
		bypass: []string{
			"http://[fd00:10:244::1a]:8080", "http://[fd00:10:96::a]", "https://[fd00:10:96::1]:443",
			"http://web.shop.svc.k8s.internal", "http://web.shop.svc.k8s.internal.",
			"http://[fd00:ec2::254]", // anywhere in fd00::/8 from noProxy
		},
		proxied: []string{"http://web.shop.svc.cluster.local"}, // not this cluster's domain
	},
	{
		file: "mgmt-credentials.yaml",
		bypass: []string{
			"http://192.168.3.4:8080", "http://10.130.0.1", "https://10.128.0.1",
			"http://capi-webhook-service.capi-system.svc", "http://web.shop.svc.cluster.local.",
			"http://169.254.169.254", "https://git.corp.example",
		},
		credentials: "S3cr%40t&pass",
	},
}

// podSpecs collects the pod templates of every workload the consumer chart renders.
func podSpecs(t *testing.T, r *proxytest.Manifests) map[string]corev1.PodSpec {
	specs := map[string]corev1.PodSpec{}
	for _, d := range r.Objects {
		switch d.Kind {
		case "Deployment":
			specs[d.Kind+"/"+d.Name] = decodeStrict[appsv1.Deployment](t, d).Spec.Template.Spec
		case "DaemonSet":
			specs[d.Kind+"/"+d.Name] = decodeStrict[appsv1.DaemonSet](t, d).Spec.Template.Spec
		case "CronJob":
			specs[d.Kind+"/"+d.Name] = decodeStrict[batchv1.CronJob](t, d).Spec.JobTemplate.Spec.Template.Spec
		}
	}
	return specs
}

func envMap(env []corev1.EnvVar) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range env {
		m[e.Name] = e
	}
	return m
}

func TestConsumerAppWithProviderValues(t *testing.T) {
	for _, p := range providers {
		if p.credentials != "" {
			continue // TestProviderValuesAgainstEveryChart covers it
		}
		t.Run(p.file, func(t *testing.T) {
			values, err := os.ReadFile(repoPath("examples", "providers", p.file))
			require.NoError(t, err)
			r, err := renderCLI(t, consumerApp, string(values))
			require.NoError(t, err)
			var parsed struct{ Defaults struct{ Env []corev1.EnvVar } }
			require.NoError(t, yamlUnmarshal(string(values), &parsed))
			setsDefaults := len(parsed.Defaults.Env) > 0

			specs := podSpecs(t, r)
			require.Len(t, specs, 3, "Deployment, DaemonSet and CronJob")
			noProxy := ""
			for workload, spec := range specs {
				for _, c := range append(spec.InitContainers, spec.Containers...) {
					env := envMap(c.Env)
					if workload == "Deployment/test-api" && c.Name == "metrics" {
						assert.NotContains(t, env, "HTTP_PROXY", "the metrics sidecar opts out of the proxy tier")
						continue
					}
					for _, name := range []string{"HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"} {
						assert.Contains(t, env, name, "%s container %s", workload, c.Name)
					}
					assert.Equal(t, env["NO_PROXY"].Value, env["no_proxy"].Value, "both cases carry the same value")
					if setsDefaults {
						assert.Equal(t, "UTC", env["TZ"].Value, "defaults.env reaches %s/%s", workload, c.Name)
					}
					noProxy = env["NO_PROXY"].Value
				}
			}
			api := specs["Deployment/test-api"]
			assert.Equal(t, "8080", envMap(container(t, api, "api").Env)["LISTEN_PORT"].Value)
			agent := envMap(specs["DaemonSet/test-agent"].Containers[0].Env)
			assert.Equal(t, "spec.nodeName", agent["NODE_NAME"].ValueFrom.FieldRef.FieldPath)

			assertProxySelection(t, noProxy, p.bypass, append([]string{externalURL}, p.proxied...))
		})
	}
}

func TestConsumerAppWithCredentials(t *testing.T) {
	r, err := renderCLI(t, consumerApp, credentialValues(t, nil))
	require.NoError(t, err)
	secret := proxytest.Get[corev1.Secret](t, r, releaseName+"-proxy-credentials")
	assert.Equal(t, credHTTPS, string(secret.Data["HTTPS_PROXY"]))
	for workload, spec := range podSpecs(t, r) {
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			for _, e := range c.Env {
				if strings.Contains(strings.ToUpper(e.Name), "PROXY") {
					require.NotNil(t, e.ValueFrom, "%s/%s %s", workload, c.Name, e.Name)
					assert.Equal(t, releaseName+"-proxy-credentials", e.ValueFrom.SecretKeyRef.Name)
				}
			}
		}
	}
	assertNoCredentialsOutsideSecrets(t, r)
}
