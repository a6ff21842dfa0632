package relay

import (
	"encoding/base64"
	"fmt"
	"strings"

	ntlmssp "github.com/Azure/go-ntlmssp"
)

// authenticator writes the relay's Proxy-Authorization for one upstream
// connection: begin for the first request, then answer for each 407 the
// upstream sends back with a challenge (NTLM's second leg).
type authenticator interface {
	begin(c Credentials) (string, error)
	// answer returns the next Proxy-Authorization, or ok false when the
	// scheme has nothing more to say (the 407 is final).
	answer(c Credentials, challenges []string) (authorization string, ok bool, err error)
}

func newAuthenticator(s Scheme, o Options, upstreamHost string) (authenticator, error) {
	switch s {
	case SchemeBasic:
		return basicAuth{}, nil
	case SchemeNTLM:
		return ntlmAuth{}, nil
	case SchemeNegotiate:
		spn := o.SPN
		if spn == "" {
			spn = "HTTP/" + upstreamHost
		}
		return newNegotiateAuth(o.Krb5Config, spn)
	}
	return noAuth{}, nil
}

type noAuth struct{}

func (noAuth) begin(Credentials) (string, error) { return "", nil }
func (noAuth) answer(Credentials, []string) (string, bool, error) {
	return "", false, nil
}

type basicAuth struct{}

func (basicAuth) begin(c Credentials) (string, error) {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(c.Username+":"+c.Password)), nil
}
func (basicAuth) answer(Credentials, []string) (string, bool, error) { return "", false, nil }

// ntlmAuth is NTLMv2: a negotiate message, the upstream's challenge in a 407
// on the same connection, then the authenticate message.
type ntlmAuth struct{}

func (ntlmAuth) begin(Credentials) (string, error) {
	msg, err := ntlmssp.NewNegotiateMessage("", "")
	if err != nil {
		return "", fmt.Errorf("ntlm: negotiate message: %w", err)
	}
	return "NTLM " + base64.StdEncoding.EncodeToString(msg), nil
}

func (ntlmAuth) answer(c Credentials, challenges []string) (string, bool, error) {
	token, ok := challengeToken(challenges, "NTLM")
	if !ok {
		return "", false, nil
	}
	challenge, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return "", false, fmt.Errorf("ntlm: the upstream's challenge is not base64")
	}
	msg, err := ntlmssp.NewAuthenticateMessage(challenge, c.Username, c.Password, nil)
	if err != nil {
		return "", false, fmt.Errorf("ntlm: %w", err)
	}
	return "NTLM " + base64.StdEncoding.EncodeToString(msg), true, nil
}

// challengeToken finds "SCHEME token" among Proxy-Authenticate values; a
// bare "SCHEME" (the first 407, which offers the scheme) has no token.
func challengeToken(challenges []string, scheme string) (string, bool) {
	for _, c := range challenges {
		name, token, _ := strings.Cut(strings.TrimSpace(c), " ")
		if strings.EqualFold(name, scheme) && strings.TrimSpace(token) != "" {
			return strings.TrimSpace(token), true
		}
	}
	return "", false
}
