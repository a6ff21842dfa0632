package relay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/proxykit/proxykit/internal/ntlmtest"
)

// testProxy is an upstream corporate proxy for the tests: it demands one
// scheme, checks the password itself (NTLMv2 by recomputing the proof, as a
// domain controller does), and forwards CONNECT and plain requests.
type testProxy struct {
	addr     string
	scheme   Scheme
	user     string // for NTLM: DOMAIN\user
	mu       sync.Mutex
	password string
	seen     []string // the authenticated user of each request it forwarded
	legs     int      // requests it read, handshake legs included
	conns    int      // connections it accepted
	// clientAuth are Proxy-Authorization headers it got that no scheme of its
	// own explains (a client's, passed on)
	clientAuth []string
}

func startTestProxy(t testing.TB, scheme Scheme, user, password string) *testProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &testProxy{addr: l.Addr().String(), scheme: scheme, user: user, password: password}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *testProxy) setPassword(pw string) { p.mu.Lock(); p.password = pw; p.mu.Unlock() }

func (p *testProxy) users() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// testDial reaches the tests' destinations: example.com (a name, as a Pod's
// destination is, and one httptest's certificate holds) is this machine.
func testDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, _ := net.SplitHostPort(addr)
	if host == "example.com" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// serve reads requests on one connection; NTLM's challenge lives as long as it.
func (p *testProxy) serve(c net.Conn) {
	defer c.Close()
	p.mu.Lock()
	p.conns++
	p.mu.Unlock()
	br := bufio.NewReader(c)
	var challenge []byte
	authed := "" // NTLM authenticates the connection, as squid does: later requests carry no header
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		p.mu.Lock()
		p.legs++
		p.mu.Unlock()
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		if h := req.Header.Get("Proxy-Authorization"); h != "" && p.scheme == SchemeNone {
			p.mu.Lock()
			p.clientAuth = append(p.clientAuth, h)
			p.mu.Unlock()
		}
		user, next, ok := p.authenticate(req.Header.Get("Proxy-Authorization"), &challenge)
		if !ok && authed != "" && req.Header.Get("Proxy-Authorization") == "" {
			user, ok = authed, true
		}
		if ok && p.scheme == SchemeNTLM {
			authed = user
		}
		if !ok {
			h := "Proxy-Authenticate: " + string(p.scheme)
			if p.scheme == SchemeNTLM {
				h = "Proxy-Authenticate: NTLM"
				if next != "" {
					h += " " + next
				}
			}
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\n"+h+"\r\nContent-Length: 4\r\n\r\ndeny")
			continue
		}
		p.mu.Lock()
		p.seen = append(p.seen, user)
		p.mu.Unlock()
		if req.Method == http.MethodConnect {
			dst, err := testDial(context.Background(), "tcp", req.Host)
			if err != nil {
				io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
				return
			}
			io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
			go io.Copy(dst, br)
			io.Copy(c, dst)
			dst.Close()
			return
		}
		req.RequestURI = ""
		req.Header.Del("Proxy-Authorization")
		resp, err := (&http.Transport{DialContext: testDial}).RoundTrip(req)
		if err != nil {
			io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
			return
		}
		resp.Write(c)
		resp.Body.Close()
	}
}

// authenticate checks one Proxy-Authorization. For NTLM a negotiate message
// gets a challenge (next) and the authenticate message is checked against it.
func (p *testProxy) authenticate(h string, challenge *[]byte) (user, next string, ok bool) {
	p.mu.Lock()
	password := p.password
	p.mu.Unlock()
	scheme, token, _ := strings.Cut(h, " ")
	switch p.scheme {
	case SchemeNone:
		return "-", "", true
	case SchemeBasic:
		raw, _ := base64.StdEncoding.DecodeString(token)
		u, pw, _ := strings.Cut(string(raw), ":")
		return u, "", strings.EqualFold(scheme, "Basic") && u == p.user && pw == password
	case SchemeNTLM:
		raw, _ := base64.StdEncoding.DecodeString(token)
		if !strings.EqualFold(scheme, "NTLM") || len(raw) < 12 {
			return "", "", false
		}
		switch binary.LittleEndian.Uint32(raw[8:]) {
		case 1:
			*challenge = []byte("8bytes!!")
			return "", base64.StdEncoding.EncodeToString(ntlmtest.Challenge(*challenge)), false
		case 3:
			u, good := ntlmtest.Verify(raw, *challenge, p.user, password)
			return u, "", good
		}
	}
	return "", "", false
}
