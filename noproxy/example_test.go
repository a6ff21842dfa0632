package noproxy_test

import (
	"fmt"

	"github.com/proxykit/proxykit/noproxy"
)

func ExampleDecide() {
	for _, c := range noproxy.Clients {
		d, _ := noproxy.Decide(c, "https://[fd00:10:96::1]:443", noproxy.NoProxy("localhost,10.96.0.0/12,fd00:10:96::1,[fd00:10:96::1]"))
		fmt.Printf("%s %v %q\n", d.Client, d.Direct, d.Entry)
	}
	// Output:
	// go true "fd00:10:96::1"
	// curl true "fd00:10:96::1"
	// wget true "fd00:10:96::1"
	// python-requests true "fd00:10:96::1"
	// python-urllib true "[fd00:10:96::1]"
	// python-httpx false ""
	// ruby false ""
	// java true "[fd00:10:96::1]"
	// node-http true "fd00:10:96::1"
	// node-fetch true "[fd00:10:96::1]"
	// deno true "fd00:10:96::1"
	// bun true "fd00:10:96::1"
	// php-guzzle true "fd00:10:96::1"
	// dotnet true "[fd00:10:96::1]"
	// grpc-core true "fd00:10:96::1"
	// grpc-go true "fd00:10:96::1"
}

// The JVM's http.nonProxyHosts has no CIDR: the library expands an IPv4 CIDR to
// the exact patterns, and cannot express an IPv6 one.
func ExampleJavaNotExpressed() {
	d, _ := noproxy.Decide(noproxy.Java, "http://10.100.0.1", noproxy.NoProxy("10.96.0.0/12,fd00:10:96::/112"))
	fmt.Println(d.Direct, d.Entry)
	skipped, _ := noproxy.JavaNotExpressed("10.96.0.0/12,fd00:10:96::/112")
	fmt.Println(skipped[0].Entry)
	// Output:
	// true 10.100.*
	// fd00:10:96::/112
}
