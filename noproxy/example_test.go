package noproxy_test

import (
	"fmt"

	"github.com/proxykit/proxykit/noproxy"
)

func ExampleDecide() {
	for _, c := range noproxy.Clients {
		d, _ := noproxy.Decide(c, "localhost,10.96.0.0/12,fd00:10:96::1,[fd00:10:96::1]", "https://[fd00:10:96::1]:443")
		fmt.Println(d.Client, d.Direct, d.Entry)
	}
	// Output:
	// go true fd00:10:96::1
	// curl true fd00:10:96::1
	// wget true fd00:10:96::1
	// python-requests true fd00:10:96::1
	// python-urllib true [fd00:10:96::1]
}
