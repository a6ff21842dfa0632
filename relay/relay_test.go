package relay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testUser     = `CORP\svc-relay`
	testPassword = "p@ss:w0rd/with%odd chars"
)

// echo answers with the method and the body it got.
func echo() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+string(b))
	})
}

func writeCredentials(t testing.TB, dir, user, password string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, fileUsername), []byte(user+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, filePassword), []byte(password), 0o600))
}

// syncBuffer is a log sink the relay's goroutines may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

type setup struct {
	relay    *Relay
	upstream *testProxy
	client   *http.Client
	dir      string
	log      *syncBuffer
	plain    string // http://example.com:PORT/, an echo server
	tls      string // https://example.com:PORT/, the same over TLS
}

func newSetup(t testing.TB, scheme Scheme, tweak func(*Options)) *setup {
	t.Helper()
	s := &setup{dir: t.TempDir(), log: &syncBuffer{}}
	s.upstream = startTestProxy(t, scheme, testUser, testPassword)
	writeCredentials(t, s.dir, testUser, testPassword)
	o := Options{Upstream: "http://" + s.upstream.addr, Scheme: scheme, CredentialsDir: s.dir,
		Logger: slog.New(slog.NewTextHandler(s.log, nil))}
	if tweak != nil {
		tweak(&o)
	}
	var err error
	s.relay, err = New(o)
	require.NoError(t, err)
	front := httptest.NewServer(s.relay)
	t.Cleanup(front.Close)
	plain, secure := httptest.NewServer(echo()), httptest.NewTLSServer(echo())
	t.Cleanup(plain.Close)
	t.Cleanup(secure.Close)
	s.plain = strings.Replace(plain.URL, "127.0.0.1", "example.com", 1) + "/"
	s.tls = strings.Replace(secure.URL, "127.0.0.1", "example.com", 1) + "/"
	proxyURL, _ := url.Parse(front.URL)
	tr := secure.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(proxyURL)
	s.client = &http.Client{Transport: tr}
	return s
}

func (s *setup) call(t *testing.T, method, target, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, target, strings.NewReader(body))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Pods call through the relay with no credentials of their own; the upstream
// sees the relay's user on every request, plain and tunnelled, bodies intact.
func TestRelayAuthenticatesForClients(t *testing.T) {
	for _, scheme := range []Scheme{SchemeNone, SchemeBasic, SchemeNTLM} {
		t.Run(string(scheme), func(t *testing.T) {
			s := newSetup(t, scheme, nil)
			code, body := s.call(t, http.MethodPost, s.plain+"upload", "payload")
			assert.Equal(t, http.StatusOK, code, body)
			assert.Equal(t, "POST payload", body, "the body reaches the destination once, after the handshake")
			code, body = s.call(t, http.MethodPost, s.tls+"upload", "secret payload")
			assert.Equal(t, http.StatusOK, code, body)
			assert.Equal(t, "POST secret payload", body)
			want := "-"
			if scheme != SchemeNone {
				want = testUser
			}
			assert.Equal(t, []string{want, want}, s.upstream.users())
			assert.Equal(t, 2.0, testutil.ToFloat64(s.relay.metrics.requests.WithLabelValues("http", routeUpstream, resultOK))+
				testutil.ToFloat64(s.relay.metrics.requests.WithLabelValues("connect", routeUpstream, resultOK)))
		})
	}
}

// A password rotated at the upstream fails with a metric and a log line that
// name no credential; the Secret's new password is used by the next request.
func TestRelayRotationWithoutRestart(t *testing.T) {
	for _, scheme := range []Scheme{SchemeBasic, SchemeNTLM} {
		t.Run(string(scheme), func(t *testing.T) {
			s := newSetup(t, scheme, nil)
			const rotated = "rotated-Secret-2"
			s.upstream.setPassword(rotated)
			code, body := s.call(t, http.MethodGet, s.plain, "")
			assert.Equal(t, http.StatusBadGateway, code)
			assert.Contains(t, body, "refused the relay's credentials (407)")
			_, err := s.client.Get(s.tls)
			assert.Error(t, err, "a CONNECT the upstream refused is no tunnel")
			assert.Equal(t, 2.0, testutil.ToFloat64(s.relay.metrics.authFailed.WithLabelValues(string(scheme))))
			log := s.log.String()
			assert.Contains(t, log, "answered 407")
			for _, secret := range []string{testPassword, rotated, "svc-relay"} {
				assert.NotContains(t, log, secret, "the log names no credential")
				assert.NotContains(t, body, secret)
			}

			writeCredentials(t, s.dir, testUser, rotated)
			code, body = s.call(t, http.MethodGet, s.plain, "")
			assert.Equal(t, http.StatusOK, code, body)
			code, _ = s.call(t, http.MethodGet, s.tls, "")
			assert.Equal(t, http.StatusOK, code)
		})
	}
}

// Plain requests share upstream connections, per credentials: five requests
// one connection (NTLM's handshake once), a rotated password a new one.
func TestRelayKeepsUpstreamConnections(t *testing.T) {
	for _, scheme := range []Scheme{SchemeBasic, SchemeNTLM} {
		t.Run(string(scheme), func(t *testing.T) {
			s := newSetup(t, scheme, nil)
			for range 5 {
				code, body := s.call(t, http.MethodGet, s.plain, "")
				require.Equal(t, http.StatusOK, code, body)
			}
			assert.Equal(t, 1, s.upstream.conns, "one upstream connection for five requests")
			wantLegs := 5
			if scheme == SchemeNTLM {
				wantLegs = 6 // the negotiate leg, once
			}
			assert.Equal(t, wantLegs, s.upstream.legs)

			const rotated = "rotated-pw"
			s.upstream.setPassword(rotated)
			writeCredentials(t, s.dir, testUser, rotated)
			code, body := s.call(t, http.MethodGet, s.plain, "")
			require.Equal(t, http.StatusOK, code, body)
			assert.Equal(t, 2, s.upstream.conns, "new credentials, a new connection")
			code, body = s.call(t, http.MethodPost, s.plain, "with a body")
			require.Equal(t, http.StatusOK, code, body)
			assert.Equal(t, "POST with a body", body, "a request with a body takes a connection of its own, whose handshake it survives")
		})
	}
}

// Only loopback and the networks the relay serves may use it.
func TestRelayRefusesOtherSources(t *testing.T) {
	s := newSetup(t, SchemeNone, func(o *Options) { o.Allow = []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")} })
	for remote, want := range map[string]int{
		"10.9.9.9:4000":         http.StatusForbidden,
		"[fd00::1]:4000":        http.StatusForbidden,
		"garbage":               http.StatusForbidden,
		"10.244.3.4:4000":       http.StatusOK,
		"[::ffff:10.244.0.9]:1": http.StatusOK,
		"[::1]:4000":            http.StatusOK,
	} {
		req := httptest.NewRequest(http.MethodGet, s.plain, nil)
		req.RemoteAddr = remote
		w := httptest.NewRecorder()
		s.relay.ServeHTTP(w, req)
		assert.Equal(t, want, w.Code, remote)
	}
	req := httptest.NewRequest(http.MethodGet, "/not-a-proxy-request", nil)
	req.RemoteAddr = "127.0.0.1:1"
	w := httptest.NewRecorder()
	s.relay.ServeHTTP(w, req)
	assert.Equal(t, http.StatusBadRequest, w.Code, "an origin-form request is not a proxy request")
}

// noUpstream destinations go direct, never to the upstream; and never to the
// relay's own loopback, whatever the list says.
func TestRelayNoUpstream(t *testing.T) {
	s := newSetup(t, SchemeBasic, func(o *Options) { o.NoUpstream = []string{"example.com"} })
	for _, local := range []string{"127.0.0.1", "localhost", "[::1]"} {
		code, body := s.call(t, http.MethodGet, strings.Replace(s.plain, "example.com", local, 1), "")
		assert.Equal(t, http.StatusForbidden, code, "%s is refused: %s", local, body)
		_, err := s.client.Get(strings.Replace(s.tls, "example.com", local, 1))
		assert.Error(t, err, local)
	}
	assert.Equal(t, 0, s.upstream.legs, "no loopback destination reaches the upstream either")

	open := newSetup(t, SchemeBasic, func(o *Options) {
		o.NoUpstream = []string{"example.com"}
		o.DialDirect = testDial
	})
	code, body := open.call(t, http.MethodGet, open.plain, "")
	assert.Equal(t, http.StatusOK, code, body)
	code, _ = open.call(t, http.MethodGet, open.tls, "")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, 0, open.upstream.legs)
	assert.Equal(t, 1.0, testutil.ToFloat64(open.relay.metrics.requests.WithLabelValues("connect", routeDirect, resultOK)))
}

// Bad options fail naming the option, and never echo user-info.
func TestRelayOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"upstream":           {},
		"upstream user-info": {Upstream: "http://svc:hunter2@proxy:8080"},
		"upstream scheme":    {Upstream: "socks5://proxy:1080"},
		"scheme":             {Upstream: "http://proxy:8080", Scheme: "digest"},
		"credentials":        {Upstream: "http://proxy:8080", Scheme: SchemeNTLM},
		"krb5":               {Upstream: "http://proxy:8080", Scheme: SchemeNegotiate, CredentialsDir: "/x"},
		"noUpstream":         {Upstream: "http://proxy:8080", NoUpstream: []string{"*"}},
	} {
		_, err := New(o)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), "hunter2", name)
	}
	_, err := New(Options{Upstream: "http://proxy:8080", Scheme: "NTLM", CredentialsDir: "/x"})
	assert.NoError(t, err, "a scheme is read without regard to case")
}

// Readiness: credentials readable and the upstream accepting connections.
func TestRelayReady(t *testing.T) {
	s := newSetup(t, SchemeBasic, nil)
	admin := httptest.NewServer(s.relay.AdminHandler())
	defer admin.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(admin.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, _ := get("/readyz")
	assert.Equal(t, http.StatusOK, code)
	s.call(t, http.MethodGet, s.plain, "")
	code, metrics := get("/metrics")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, metrics, `proxykit_relay_requests_total{method="http",result="ok",route="upstream"} 1`)

	os.Remove(filepath.Join(s.dir, filePassword))
	s.relay.ready.checked = s.relay.ready.checked.Add(-readyInterval)
	code, body := get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "password")
	assert.NotContains(t, body, testPassword)
}

// The default direct dialer refuses loopback after resolution.
func TestRefuseLocal(t *testing.T) {
	d := &net.Dialer{Control: refuseLocal}
	for _, addr := range []string{"127.0.0.1:1", "[::1]:1", "0.0.0.0:1", "localhost:1"} {
		_, err := d.DialContext(context.Background(), "tcp", addr)
		assert.ErrorIs(t, err, errLocalDestination, addr)
	}
}

// Hostile clients: a CONNECT target that is not host:port never reaches the
// upstream's request line, and a client's own Proxy-Authorization never
// reaches the upstream (the relay's credentials are the only ones it sends).
func TestRelayHostileClients(t *testing.T) {
	s := newSetup(t, SchemeNone, nil)
	for _, target := range []string{"example.com", "user:pw@example.com:443", "example.com:0", "example.com:65536", "example.com:+443",
		"exa mple.com:443", "example.com/x:443", "[::1:443", strings.Repeat("a", 300) + ":443", "example.com:443\r\nX-Evil: 1"} {
		req := httptest.NewRequest(http.MethodConnect, "http://relay/", nil)
		req.Host, req.RemoteAddr = target, "127.0.0.1:1"
		w := httptest.NewRecorder()
		s.relay.ServeHTTP(w, req)
		assert.Equal(t, http.StatusBadRequest, w.Code, "%q", target)
	}
	assert.Zero(t, s.upstream.legs, "nothing reached the upstream")
	for _, good := range []string{"example.com:443", "10.0.0.1:8443", "[fd00::1]:443", "my_host.corp.:443"} {
		assert.True(t, validTarget(good), good)
	}

	req, _ := http.NewRequest(http.MethodGet, s.plain, nil)
	req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("someone:else")))
	resp, err := s.client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	s.upstream.mu.Lock()
	defer s.upstream.mu.Unlock()
	assert.Empty(t, s.upstream.clientAuth, "the client's Proxy-Authorization stopped at the relay")
}

// Whatever a client sends as a CONNECT target, what the relay accepts puts
// nothing but host:port in the upstream's request line.
func FuzzValidTarget(f *testing.F) {
	for _, seed := range []string{"example.com:443", "[fd00::1]:443", "a@b:1", "x:1\r\nY: z", "[::1%eth0]:443"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		if !validTarget(target) {
			return
		}
		if strings.ContainsAny(target, "@/?# \t\r\n\"'\\") {
			t.Fatalf("accepted %q", target)
		}
		for _, r := range target {
			if r < 0x21 || r > 0x7e {
				t.Fatalf("accepted %q", target)
			}
		}
	})
}

// A tunnel no byte crosses for IdleTimeout is closed; MaxConnections bounds
// what is served at once, the rest told 503 at once.
func TestRelayBounds(t *testing.T) {
	s := newSetup(t, SchemeNone, func(o *Options) { o.IdleTimeout = 200 * time.Millisecond; o.MaxConnections = 1 })
	front := httptest.NewServer(s.relay)
	defer front.Close()
	target := strings.TrimPrefix(strings.TrimSuffix(s.tls, "/"), "https://")
	conn, err := net.Dial("tcp", strings.TrimPrefix(front.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// the one slot is the tunnel's: another client waits for nothing
	code, body := s.call(t, http.MethodGet, s.plain, "")
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	assert.Contains(t, body, "limit of 1 connections")
	assert.Equal(t, 1.0, testutil.ToFloat64(s.relay.metrics.requests.WithLabelValues("http", "", resultBusy)))

	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	began := time.Now()
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the idle tunnel was closed")
	assert.Less(t, time.Since(began), 2*time.Second)

	require.Eventually(t, func() bool {
		code, _ := s.call(t, http.MethodGet, s.plain, "")
		return code == http.StatusOK
	}, 2*time.Second, 20*time.Millisecond, "the slot is free again")
	_, err = New(Options{Upstream: "http://proxy:8080", MaxConnections: -1})
	assert.ErrorContains(t, err, "maxConnections")
}
