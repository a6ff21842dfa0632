//go:build integration

package itest

import (
	"fmt"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/proxykit/proxykit/hack/relayimage/image"
	"github.com/proxykit/proxykit/internal/ntlmtest"
)

// The NTLM helper role's settings: the one user it accepts, and the file that
// holds that user's password.
const (
	ntlmUserVar     = "PROXYKIT_NTLM_USER"
	ntlmPasswordVar = "PROXYKIT_NTLM_PASSWORD_FILE"
)

// playRelayRole runs the relay tests' helper roles:
//   - "ntlm-helper": squid's NTLM authenticator (ntlmtest.ServeSquidHelper),
//     with the user and password file its variables name;
//   - "push-relay-image HOST:PORT NAME:TAG BINARY": the relay's image as
//     hack/relayimage builds it (linux/amd64, from BINARY), pushed over plain HTTP.
func playRelayRole(role string) (int, bool) {
	switch role {
	case "ntlm-helper":
		password := func() string {
			b, _ := os.ReadFile(os.Getenv(ntlmPasswordVar))
			return strings.TrimSpace(string(b))
		}
		if err := ntlmtest.ServeSquidHelper(os.Stdin, os.Stdout, os.Getenv(ntlmUserVar), password); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return 0, true
	case "push-relay-image":
		args := flagArgs()
		idx, err := image.Index([]image.Binary{{Platform: v1.Platform{OS: "linux", Architecture: "amd64"}, Path: args[2]}}, "test")
		if err == nil {
			var ref name.Reference
			if ref, err = name.ParseReference(args[0]+"/"+args[1], name.Insecure); err == nil {
				err = remote.WriteIndex(ref, idx)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
