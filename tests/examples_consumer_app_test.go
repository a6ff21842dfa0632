package tests

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// podSpecs collects the pod templates of every workload the consumer chart renders.
func podSpecs(t *testing.T, r *proxytest.Manifests) map[string]corev1.PodSpec {
	specs := map[string]corev1.PodSpec{}
	for _, d := range r.Objects {
		switch d.Kind {
		case "Deployment":
			specs[d.Kind+"/"+d.Name] = fixture.Decode[appsv1.Deployment](t, d).Spec.Template.Spec
		case "DaemonSet":
			specs[d.Kind+"/"+d.Name] = fixture.Decode[appsv1.DaemonSet](t, d).Spec.Template.Spec
		case "CronJob":
			specs[d.Kind+"/"+d.Name] = fixture.Decode[batchv1.CronJob](t, d).Spec.JobTemplate.Spec.Template.Spec
		}
	}
	return specs
}

func TestConsumerAppWithProviderValues(t *testing.T) {
	for _, p := range fixture.Providers {
		if p.Credentials != "" {
			continue // TestProviderValuesAgainstEveryChart covers it
		}
		t.Run(p.File, func(t *testing.T) {
			values, err := os.ReadFile(fixture.Path("examples", "providers", p.File))
			require.NoError(t, err)
			r, err := fixture.RenderE(fixture.ConsumerApp, proxytest.Values(string(values)))
			require.NoError(t, err)
			var parsed struct{ Defaults struct{ Env []corev1.EnvVar } }
			require.NoError(t, yaml.Unmarshal([]byte(values), &parsed))
			setsDefaults := len(parsed.Defaults.Env) > 0

			specs := podSpecs(t, r)
			require.Len(t, specs, 3, "Deployment, DaemonSet and CronJob")
			noProxy := ""
			for workload, spec := range specs {
				for _, c := range append(spec.InitContainers, spec.Containers...) {
					env := fixture.EnvMap(c.Env)
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
			assert.Equal(t, "8080", fixture.EnvMap(fixture.SpecContainer(t, api, "api").Env)["LISTEN_PORT"].Value)
			agent := fixture.EnvMap(specs["DaemonSet/test-agent"].Containers[0].Env)
			assert.Equal(t, "spec.nodeName", agent["NODE_NAME"].ValueFrom.FieldRef.FieldPath)

			fixture.AssertProxySelection(t, noProxy, p.Bypass, append([]string{fixture.ExternalURL}, p.Proxied...))
		})
	}
}

func TestConsumerAppWithCredentials(t *testing.T) {
	r, err := fixture.RenderE(fixture.ConsumerApp, proxytest.Values(fixture.CredentialValues(t, nil)))
	require.NoError(t, err)
	secret := proxytest.Get[corev1.Secret](t, r, fixture.Release+"-proxy-credentials")
	assert.Equal(t, fixture.CredHTTPS, string(secret.Data["HTTPS_PROXY"]))
	for _, c := range r.Containers() {
		assert.Equal(t, secret.Annotations[proxytest.AnnotationProxyConfig], c.Record(), "%s: the record of what its Pod gets, as its Secret's", c.Object)
	}
	for workload, spec := range podSpecs(t, r) {
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			for _, e := range c.Env {
				if strings.Contains(strings.ToUpper(e.Name), "PROXY") {
					require.NotNil(t, e.ValueFrom, "%s/%s %s", workload, c.Name, e.Name)
					assert.Equal(t, fixture.Release+"-proxy-credentials", e.ValueFrom.SecretKeyRef.Name)
				}
			}
		}
	}
	fixture.AssertNoCredentialsOutsideSecrets(t, r)
}
