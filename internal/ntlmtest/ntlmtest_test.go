package ntlmtest

import (
	"bufio"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	ntlmssp "github.com/Azure/go-ntlmssp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// go-ntlmssp's answer to Challenge verifies with the right password only.
func TestVerify(t *testing.T) {
	server := []byte("8bytes!!")
	msg, err := ntlmssp.NewAuthenticateMessage(Challenge(server), `CORP\svc`, "pw", nil)
	require.NoError(t, err)
	user, ok := Verify(msg, server, `CORP\svc`, "pw")
	assert.True(t, ok)
	assert.Equal(t, `CORP\svc`, user)
	_, ok = Verify(msg, server, `CORP\svc`, "other")
	assert.False(t, ok, "a wrong password fails the proof")
	_, ok = Verify(msg, []byte("another!"), `CORP\svc`, "pw")
	assert.False(t, ok, "the proof is bound to the challenge")
	_, ok = Verify(msg, server, `CORP\bob`, "pw")
	assert.False(t, ok)
	_, ok = Verify([]byte("junk"), server, `CORP\svc`, "pw")
	assert.False(t, ok)
}

// The helper protocol as squid speaks it: YR, then KK.
func TestServeSquidHelper(t *testing.T) {
	negotiate, _ := ntlmssp.NewNegotiateMessage("", "")
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	replies := bufio.NewReader(outR)
	done := make(chan error)
	go func() { done <- ServeSquidHelper(pr, outW, `CORP\svc`, func() string { return "pw" }) }()
	ask := func(line string) string {
		io.WriteString(pw, line+"\n")
		reply, _ := replies.ReadString('\n')
		return strings.TrimSpace(reply)
	}
	tt := ask("YR " + base64.StdEncoding.EncodeToString(negotiate))
	require.True(t, strings.HasPrefix(tt, "TT "), tt)
	challenge, _ := base64.StdEncoding.DecodeString(tt[3:])
	auth, err := ntlmssp.NewAuthenticateMessage(challenge, `CORP\svc`, "pw", nil)
	require.NoError(t, err)
	assert.Equal(t, `AF CORP\svc`, ask("KK "+base64.StdEncoding.EncodeToString(auth)))
	ask("YR " + base64.StdEncoding.EncodeToString(negotiate))
	assert.True(t, strings.HasPrefix(ask("KK "+base64.StdEncoding.EncodeToString(auth)), "NA "), "an answer to an older challenge is refused")
	pw.Close()
	assert.NoError(t, <-done)
}
