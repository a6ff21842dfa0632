package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// grafanaLike keeps its data sources in a ConfigMap that a sidecar loads by
// label: no container reads it, and Grafana calls those hosts all the same. A
// ConfigMap a container mounts is read as its calls, not as loose ones.
const grafanaLike = `apiVersion: v1
kind: ConfigMap
metadata: {name: datasources, namespace: monitoring, labels: {grafana_datasource: "1"}}
data:
  loki.yaml: |
    apiVersion: 1
    datasources:
      - {name: Loki, type: loki, url: "http://loki-gateway.logging"}
      - {name: Tempo, type: tempo, url: "http://tempo.tracing:3200"}
      - {name: Public, type: prometheus, url: "https://prometheus.example.com"}
---
apiVersion: v1
kind: Secret
metadata: {name: extra-datasources, namespace: monitoring}
stringData:
  mimir.yaml: "url: http://mimir-gateway.mimir/prometheus"
  password: "hunter2.corp:2020"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: grafana-ini, namespace: monitoring}
data:
  grafana.ini: "[server]\nroot_url = http://grafana:3000\n"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: grafana, namespace: monitoring}
spec:
  template:
    spec:
      volumes: [{name: ini, configMap: {name: grafana-ini}}]
      containers:
        - name: grafana
          image: x
          volumeMounts: [{name: ini, mountPath: /etc/grafana}]
`

func TestLooseCalls(t *testing.T) {
	m, err := Parse(grafanaLike)
	require.NoError(t, err)
	calls, lists := m.LooseCalls()
	assert.Empty(t, lists)
	got := map[string]string{}
	for _, c := range calls {
		got[c.HostPort()] = c.Where
	}
	assert.Equal(t, map[string]string{
		"loki-gateway.logging":   "ConfigMap/datasources key loki.yaml, which no container reads",
		"tempo.tracing:3200":     "ConfigMap/datasources key loki.yaml, which no container reads",
		"prometheus.example.com": "ConfigMap/datasources key loki.yaml, which no container reads",
		"mimir-gateway.mimir":    "Secret/extra-datasources key mimir.yaml, which no container reads",
	}, got, "the mounted grafana.ini is the container's, a password key is never read")
}

// A value longer than any ConfigMap a cluster stores (1 MiB) reaches no
// container: it is named, not read.
func TestValuesPastAnObjectsSizeAreNotRead(t *testing.T) {
	m, err := Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  x: \"http://h:80 " + strings.Repeat("a", MaxObjectData) + "\"\n")
	require.NoError(t, err)
	calls, lists := m.LooseCalls()
	assert.Empty(t, calls)
	require.Len(t, lists, 1)
	assert.Contains(t, lists[0], "ConfigMap/big key x, which no container reads (1048588 bytes, over the 1 MiB a ConfigMap or Secret holds)")
}
