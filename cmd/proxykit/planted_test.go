package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantedStream keeps passwords wherever a chart may: a database URL whose
// password holds "@" in a Secret, a JVM trust store's password in an envFrom
// Secret, a password spliced into a URL through $(VAR) from a secretKeyRef, a
// proxy URL pasted into NO_PROXY, and a password line in a mounted ConfigMap.
const plantedStream = `apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop}
stringData:
  url: "postgres://app:P@Leak1word@db:5432/app"
  ES_PASS: "Xy@Leak3:9200"
  JAVA_TOOL_OPTIONS: "-Djavax.net.ssl.trustStorePassword=Leak2 -Dhttp.nonProxyHosts=*.internal"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config, namespace: shop}
data:
  app.ini: |
    [db]
    password = Leak5.corp:8443
    url = http://search-api:9200
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      volumes: [{name: cfg, configMap: {name: app-config}}]
      containers:
        - name: web
          image: x
          envFrom: [{secretRef: {name: db}}]
          env:
            - {name: ES_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: ES_PASS}}}
            - {name: ES_URL, value: "https://elastic:$(ES_PASSWORD)@es-master:9200"}
            - {name: DB_URL, valueFrom: {secretKeyRef: {name: db, key: url}}}
            - {name: NO_PROXY, value: "http://svc:Leak4@proxy.corp:3128,localhost"}
          volumeMounts: [{name: cfg, mountPath: /etc/app}]
`

// No planted password reaches any output of check or inject: stdout and
// stderr, text and JSON, injected stream (outside its Secrets) and notes.
func TestNoOutputCarriesAPlantedPassword(t *testing.T) {
	dir := t.TempDir()
	values := filepath.Join(dir, "values.yaml")
	require.NoError(t, os.WriteFile(values, []byte("proxy: {http: \"http://proxy.corp:3128\", runtimes: [java]}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\npolicy: {mergeNoProxy: true}\n"), 0o600))
	leaks := []string{"Leak1", "Leak2", "Leak3", "Leak4", "Leak5"}
	var outputs []string
	for _, args := range [][]string{
		{"check", "-f", values, "-"},
		{"check", "-f", values, "-o", "json", "-"},
		{"inject", "-f", values, "-n", "shop", "-"},
	} {
		code, stdout, stderr := runCLI(t, plantedStream, args...)
		assert.NotEqual(t, 2, code, "%v: %s", args, stderr)
		if args[0] == "inject" {
			// the stream keeps its own Secrets and ConfigMaps as they were: look
			// at what inject wrote
			var kept []string
			for _, doc := range strings.Split(stdout, "\n---\n") {
				if !strings.Contains(doc, "kind: Secret") && !strings.Contains(doc, "kind: ConfigMap") {
					kept = append(kept, doc)
				}
			}
			stdout = strings.Join(kept, "\n---\n")
			assert.Contains(t, stdout, "es-master", "the injected stream is there")
		}
		outputs = append(outputs, strings.Join(args, " ")+"\n"+stdout+stderr)
	}
	for _, out := range outputs {
		for _, leak := range leaks {
			assert.NotContains(t, out, leak, out)
		}
	}
	assert.Contains(t, outputs[0], "web", "check judged the Deployment")
}
