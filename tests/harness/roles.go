package harness

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"
)

// RoleVar names the role a test binary plays when it runs as a helper
// process (inside a network namespace, or as a node's helper) instead of its
// tests: a suite's TestMain asks PlayRole first, then its own roles.
const RoleVar = "PROXYKIT_TEST_ROLE"

// EchoPortsVar lists the ports the echo-server role listens on.
const EchoPortsVar = "PROXYKIT_ECHO_PORTS"

// PlayRole plays the roles the harness itself needs: "echo-server" answers
// "proxy" to a request that came through a proxy (a Via header) and "direct"
// to any other, on EchoPortsVar's ports (8080 and 5000 by default);
// "tls-echo-server" answers "secure" over HTTPS on 8443, with a certificate
// only a proxy told to skip verification accepts. false for another role.
func PlayRole(role string) (int, bool) {
	switch role {
	case "echo-server":
		ports := []string{"8080", "5000"}
		if p := os.Getenv(EchoPortsVar); p != "" {
			ports = strings.Split(p, ",")
		}
		return serve(ports), true
	case "tls-echo-server":
		l, err := net.Listen("tcp", ":8443")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "secure") }))
		server.Listener = l
		server.StartTLS()
		time.Sleep(10 * time.Minute) // the namespace's script kills it
		return 0, true
	}
	return 0, false
}

// serve runs the echo server on ports until the namespace's script kills it.
func serve(ports []string) int {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Via") != "" {
			fmt.Fprintln(w, "proxy")
		} else {
			fmt.Fprintln(w, "direct")
		}
	})
	for _, port := range ports {
		l, err := net.Listen("tcp", ":"+port)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		go http.Serve(l, handler)
	}
	time.Sleep(10 * time.Minute)
	return 0
}
