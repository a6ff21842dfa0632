package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// k8s-sidecar's selection, read as Grafana's chart configures it, and what it
// is not: no LABEL or FOLDER (another program's env), Secrets only.
func TestSelectsByLabel(t *testing.T) {
	sidecar := func(env ...string) corev1.Container {
		c := corev1.Container{Name: "grafana-sc-datasources"}
		for i := 0; i < len(env); i += 2 {
			c.Env = append(c.Env, corev1.EnvVar{Name: env[i], Value: env[i+1]})
		}
		return c
	}
	s, ok := SelectsByLabel(sidecar("LABEL", "grafana_datasource", "LABEL_VALUE", "1", "FOLDER", "/etc/grafana/provisioning/datasources", "RESOURCE", "both"))
	assert.True(t, ok)
	assert.True(t, s.Selects("monitoring", "monitoring", map[string]string{"grafana_datasource": "1"}))
	assert.False(t, s.Selects("monitoring", "monitoring", map[string]string{"grafana_datasource": "0"}), "LABEL_VALUE must match")
	assert.False(t, s.Selects("monitoring", "logging", map[string]string{"grafana_datasource": "1"}), "the Pod's own namespace by default")

	s, ok = SelectsByLabel(sidecar("LABEL", "grafana_dashboard", "FOLDER", "/tmp/dashboards", "NAMESPACE", "logging, tracing"))
	assert.True(t, ok)
	assert.True(t, s.Selects("monitoring", "tracing", map[string]string{"grafana_dashboard": "any"}), "any value without LABEL_VALUE")
	assert.False(t, s.Selects("monitoring", "monitoring", map[string]string{"grafana_dashboard": "x"}))
	s, _ = SelectsByLabel(sidecar("LABEL", "grafana_dashboard", "FOLDER", "/tmp/dashboards", "NAMESPACE", "ALL"))
	assert.True(t, s.Selects("monitoring", "anywhere", map[string]string{"grafana_dashboard": "1"}))

	for _, c := range []corev1.Container{
		sidecar("LABEL", "app"),    // an app's own LABEL, no FOLDER
		sidecar("FOLDER", "/data"), // no LABEL
		sidecar("LABEL", "x", "FOLDER", "/data", "RESOURCE", "Secret"), // Secrets only
	} {
		_, ok := SelectsByLabel(c)
		assert.False(t, ok, "%v", c.Env)
	}
}
