package proxytest_test

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/proxykit/proxykit/proxytest"
)

// Render a chart with a provider's values: every container of every pod
// template, the cluster facts the library read in that render, and what each
// container opts out of.
func ExampleRenderE() {
	m, err := proxytest.RenderE("../examples/consumer-app",
		proxytest.ValuesFile("../examples/providers/eks.yaml"), proxytest.Release("shop", "shop"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Cluster.PodCIDRs, m.Cluster.ServiceCIDRs, m.Cluster.APIServer)
	for _, c := range m.Containers() {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(c.Object, c.List, c.Name, len(c.Env) > 0, c.OptedOut())))
	}
	// Output:
	// [10.0.0.0/8] [172.20.0.0/16] 172.20.0.1
	// DaemonSet/shop-agent containers agent true
	// Deployment/shop-api initContainers migrate true
	// Deployment/shop-api containers api true
	// Deployment/shop-api containers metrics true proxykit.io/skip-containers names it
	// CronJob/shop-report containers report true
}

// Check a render against the facts it was rendered with: the chart's own
// values.yaml names its cluster's networks, so only the proxy is passed.
func ExampleCheck() {
	m, err := proxytest.RenderE("../examples/consumer-app", proxytest.Values(`proxy: {http: http://proxy.corp.example:3128}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Cluster.PodCIDRs, m.Variables)
	fmt.Println(len(proxytest.Check(m)), "findings")
	// Output:
	// [10.244.0.0/16] [HTTP_PROXY NO_PROXY http_proxy no_proxy]
	// 0 findings
}

// Check manifests from `helm template` (or terratest's RenderTemplate): one
// finding per container and rule.
func ExampleParse() {
	m, _ := proxytest.Parse(`
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  initContainers:
    - name: setup
      image: busybox
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
	for _, f := range proxytest.Check(m, proxytest.WithCluster(c)) {
		fmt.Println(f.Container, f.Rule, f.Message[:strings.Index(f.Message, ";")])
	}
	// Output:
	// setup missing-proxy-env HTTP_PROXY, HTTPS_PROXY, NO_PROXY, http_proxy, https_proxy, no_proxy are not set (an init container, in initContainers)
	// web no-proxy-gap NO_PROXY sends https://kubernetes.default.svc, https://kubernetes.default.svc.cluster.local., http://web.shop.svc.cluster.local.:8080, https://10.96.0.1:443, http://10.96.0.0:8080, http://10.104.0.0:8080, http://10.111.255.255:8080 through the proxy
}

// ClusterFromValues reads cluster.* as the library does, checks included.
func ExampleClusterFromValues() {
	c, err := proxytest.ClusterFromValues(map[string]any{
		"cluster": map[string]any{"podCIDRs": "10.244.0.0/16, fd00:10:244::/56", "apiServer": "[fd00:10:96::1]", "domain": "k8s.internal.", "namespaces": "security,data"},
	})
	fmt.Printf("%+v %v\n", c, err)
	_, err = proxytest.ClusterFromValues(map[string]any{"cluster": map[string]any{"podCIDR": "10.0.0.0/8"}})
	fmt.Println(err)
	// Output:
	// {Domain:k8s.internal PodCIDRs:[10.244.0.0/16 fd00:10:244::/56] ServiceCIDRs:[] NodeCIDRs:[] APIServer:fd00:10:96::1 Metadata:true Namespaces:[security data] Relay:} <nil>
	// proxykit: unknown key cluster.podCIDR (did you mean cluster.podCIDRs?); the keys under cluster are: proxy, domain, podCIDRs, serviceCIDRs, nodeCIDRs, apiServer, metadataEndpoints, requireNetworks, namespaces
}

// Typed access: an object as its k8s.io/api type (in a test, proxytest.Get[appsv1.Deployment](t, m, name)),
// a container by object and name, and its environment as the kubelet builds it.
func ExampleManifests_Decode() {
	m, err := proxytest.RenderE("../examples/consumer-app", proxytest.ValuesFile("../examples/providers/gke.yaml"), proxytest.Release("shop", "shop"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var d appsv1.Deployment
	if err := m.Decode("Deployment", "shop-api", &d); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(*d.Spec.Replicas, d.Spec.Template.Annotations["proxykit.io/skip-containers"])
	migrate, err := m.ContainerE("Deployment/shop-api", "migrate")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(migrate.Env[0].Name, m.Environment(migrate)["HTTPS_PROXY"])
	// Output:
	// 2 metrics
	// HTTP_PROXY http://proxy.corp.example:3128
}
