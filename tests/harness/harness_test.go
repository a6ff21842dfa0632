//go:build integration

package harness

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(RoleVar); role != "" {
		code, _ := PlayRole(role)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// A namespace has the addresses and names it was given, and its echo server
// tells a direct request from one a proxy carried (a Via header).
func TestNetnsEchoServer(t *testing.T) {
	out := Netns{Addrs: []string{"192.0.2.1"}, Hosts: "192.0.2.1 echo.test\n", EchoPorts: []string{"8080"}}.Run(t,
		`curl -s --noproxy '*' http://echo.test:8080/; curl -s --noproxy '*' -H 'Via: 1.1 proxy' http://192.0.2.1:8080/`)
	assert.Equal(t, "direct\nproxy\n", out[strings.Index(out, "direct"):])
}
