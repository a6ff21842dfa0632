package relay

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/spnego"
)

// negotiateAuth is Negotiate with Kerberos: one SPNEGO token per upstream
// request, from a service ticket for the upstream's principal. gokrb5 renews
// the ticket-granting ticket before it expires and logs in again with the
// keytab or password when it cannot; a rotated credential starts a new client.
type negotiateAuth struct {
	krb5conf *config.Config
	spn      string

	mu          sync.Mutex
	client      *client.Client
	fingerprint [32]byte
}

func newNegotiateAuth(krb5confPath, spn string) (*negotiateAuth, error) {
	cfg, err := config.Load(krb5confPath)
	if err != nil {
		return nil, fmt.Errorf("negotiate: krb5.conf %s: %w", krb5confPath, err)
	}
	return &negotiateAuth{krb5conf: cfg, spn: spn}, nil
}

func (n *negotiateAuth) begin(c Credentials) (string, error) {
	cl, err := n.clientFor(c)
	if err != nil {
		return "", err
	}
	s := spnego.SPNEGOClient(cl, n.spn)
	if err := s.AcquireCred(); err != nil {
		return "", fmt.Errorf("negotiate: ticket for %s: %w", n.spn, err)
	}
	token, err := s.InitSecContext()
	if err != nil {
		return "", fmt.Errorf("negotiate: security context for %s: %w", n.spn, err)
	}
	raw, err := token.Marshal()
	if err != nil {
		return "", fmt.Errorf("negotiate: token: %w", err)
	}
	return "Negotiate " + base64.StdEncoding.EncodeToString(raw), nil
}

// answer: a 407 to a Kerberos token is final (the KDC or the proxy refused it).
func (n *negotiateAuth) answer(Credentials, []string) (string, bool, error) {
	return "", false, nil
}

// clientFor returns the logged-in client of these credentials, logging in
// anew when they changed since the last request.
func (n *negotiateAuth) clientFor(c Credentials) (*client.Client, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fp := c.fingerprint()
	if n.client != nil && fp == n.fingerprint {
		return n.client, nil
	}
	user, realm, ok := strings.Cut(c.Username, "@")
	if !ok {
		realm = n.krb5conf.LibDefaults.DefaultRealm
	}
	if realm == "" {
		return nil, fmt.Errorf("negotiate: the username has no @REALM and krb5.conf no default_realm")
	}
	var cl *client.Client
	if len(c.Keytab) > 0 {
		kt := keytab.New()
		if err := kt.Unmarshal(c.Keytab); err != nil {
			return nil, fmt.Errorf("negotiate: the keytab does not parse: %w", err)
		}
		cl = client.NewWithKeytab(user, realm, kt, n.krb5conf, client.DisablePAFXFAST(true))
	} else {
		cl = client.NewWithPassword(user, realm, c.Password, n.krb5conf, client.DisablePAFXFAST(true))
	}
	if err := cl.Login(); err != nil {
		return nil, fmt.Errorf("negotiate: login to %s: %s", realm, redactKerberos(err))
	}
	if n.client != nil {
		n.client.Destroy()
	}
	n.client, n.fingerprint = cl, fp
	return cl, nil
}

// redactKerberos keeps the first line of a gokrb5 error: the KDC's reason,
// without the request dump that follows it.
func redactKerberos(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
