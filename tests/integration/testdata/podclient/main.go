// Command podclient is the Go client the node suite runs inside its Pods: it
// fetches each URL of its arguments with net/http's default client, which reads
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY from the environment as every Go program
// does, and prints one line per URL: the URL, then the body (the echo server
// answers "proxy" or "direct") or "error: ...". Built static, it needs nothing
// else in the image.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	client := &http.Client{Timeout: 10 * time.Second}
	for _, u := range os.Args[1:] {
		resp, err := client.Get(u)
		if err != nil {
			fmt.Printf("%s error: %v\n", u, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s %s\n", u, strings.TrimSpace(string(body)))
	}
}
