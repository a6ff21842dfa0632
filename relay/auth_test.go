package relay

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/internal/ntlmtest"
)

// Whatever an upstream sends as its challenge, the relay answers it or
// refuses it with an error, never a panic.
func FuzzNTLMAnswer(f *testing.F) {
	f.Add(ntlmtest.Challenge([]byte("12345678")))
	f.Add([]byte("NTLMSSP\x00\x02\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, m []byte) {
		ntlmAuth{}.answer(Credentials{Username: `D\u`, Password: "p"}, []string{"NTLM " + base64.StdEncoding.EncodeToString(m)})
	})
}

func TestChallengeToken(t *testing.T) {
	tok, ok := challengeToken([]string{"Basic realm=x", "NTLM", " ntlm  abc= "}, "NTLM")
	assert.True(t, ok)
	assert.Equal(t, "abc=", tok)
	_, ok = challengeToken([]string{"NTLM"}, "NTLM")
	assert.False(t, ok, "the first 407 offers the scheme without a token")
}
