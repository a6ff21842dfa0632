package proxytest_test

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/proxytest"
)

// Render a chart with a provider's values and list its containers.
func ExampleRenderE() {
	m, err := proxytest.RenderE("../examples/consumer-app",
		proxytest.ValuesFile("../examples/providers/eks.yaml"), proxytest.Release("shop", "shop"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range m.Containers() {
		fmt.Println(c.Object, c.List, c.Name, len(c.Env) > 0)
	}
	// Output:
	// DaemonSet/shop-agent containers agent true
	// Deployment/shop-api initContainers migrate true
	// Deployment/shop-api containers api true
	// Deployment/shop-api containers metrics true
	// CronJob/shop-report containers report true
}

// ClusterFromValues reads cluster.* as the library does, checks included.
func ExampleClusterFromValues() {
	c, err := proxytest.ClusterFromValues(map[string]any{
		"cluster": map[string]any{"podCIDRs": "10.244.0.0/16, fd00:10:244::/56", "apiServer": "[fd00:10:96::1]", "domain": "k8s.internal."},
	})
	fmt.Printf("%+v %v\n", c, err)
	_, err = proxytest.ClusterFromValues(map[string]any{"cluster": map[string]any{"podCIDR": "10.0.0.0/8"}})
	fmt.Println(err)
	// Output:
	// {Domain:k8s.internal PodCIDRs:[10.244.0.0/16 fd00:10:244::/56] ServiceCIDRs:[] NodeCIDRs:[] APIServer:fd00:10:96::1 Metadata:true} <nil>
	// proxykit: unknown key cluster.podCIDR (did you mean cluster.podCIDRs?); the keys under cluster are: proxy, domain, podCIDRs, serviceCIDRs, nodeCIDRs, apiServer, metadataEndpoints, requireNetworks
}

// Check manifests from `helm template` and read the findings.
func ExampleCheck() {
	m, _ := proxytest.Parse(`
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
    - name: web
      image: nginx
      env:
        - {name: HTTP_PROXY, value: "http://proxy:3128"}
        - {name: HTTPS_PROXY, value: "http://proxy:3128"}
        - {name: NO_PROXY, value: "localhost,.cluster.local"}
        - {name: http_proxy, value: "http://proxy:3128"}
        - {name: https_proxy, value: "http://proxy:3128"}
        - {name: no_proxy, value: "localhost,.cluster.local"}
`)
	c := proxytest.Cluster{Domain: "cluster.local", ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1"}
	for _, f := range proxytest.Check(m, c) {
		fmt.Println(f.Rule, f.Message[:strings.Index(f.Message, " with")])
	}
	// Output:
	// no-proxy-gap https://kubernetes.default.svc goes through the proxy
	// no-proxy-gap https://kubernetes.default.svc.cluster.local. goes through the proxy
	// no-proxy-gap http://web.shop.svc.cluster.local.:8080 goes through the proxy
	// no-proxy-gap https://10.96.0.1:443 goes through the proxy
	// no-proxy-gap http://10.96.0.0:8080 goes through the proxy
	// no-proxy-gap http://10.104.0.0:8080 goes through the proxy
	// no-proxy-gap http://10.111.255.255:8080 goes through the proxy
}
