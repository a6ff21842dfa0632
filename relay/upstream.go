package relay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
)

// maxLegs bounds a handshake: NTLM takes two requests, the others one.
const maxLegs = 3

// errUpstreamAuth is the upstream's final 407 to the relay's credentials.
var errUpstreamAuth = errors.New("the upstream proxy refused the relay's credentials (407)")

// errCredentials wraps a failure to read or use the relay's own credentials.
type errCredentials struct{ err error }

func (e errCredentials) Error() string { return e.err.Error() }
func (e errCredentials) Unwrap() error { return e.err }

// upstreamError is a failure to reach or speak to the upstream, with the
// reason label of proxykit_relay_upstream_errors_total.
type upstreamError struct {
	reason string
	err    error
}

func (e upstreamError) Error() string { return fmt.Sprintf("upstream proxy: %v", e.err) }
func (e upstreamError) Unwrap() error { return e.err }

// exchange sends req to the upstream proxy on a connection of its own, with
// the relay's credentials, answering the upstream's challenges on that same
// connection (NTLM is bound to it). req's body is sent on the last leg only,
// so it is read once and streamed: a first NTLM leg carries none. The final response is returned with its
// connection; for a CONNECT its body is empty and the connection is the tunnel.
func (r *Relay) exchange(ctx context.Context, req *http.Request, creds Credentials) (*http.Response, net.Conn, *bufio.Reader, error) {
	authz, err := r.auth.begin(creds)
	if err != nil {
		return nil, nil, nil, errCredentials{err}
	}
	d := net.Dialer{Timeout: r.dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", r.upstream.Host)
	if err != nil {
		return nil, nil, nil, upstreamError{"dial", err}
	}
	br := bufio.NewReader(conn)
	fail := func(err error) (*http.Response, net.Conn, *bufio.Reader, error) {
		conn.Close()
		return nil, nil, nil, err
	}
	for leg := 0; ; leg++ {
		last := r.scheme != SchemeNTLM || leg > 0
		out := legRequest(ctx, req, authz, last)
		write := out.WriteProxy
		if out.Method == http.MethodConnect {
			write = out.Write // authority form: CONNECT host:port
		}
		if err := write(conn); err != nil {
			return fail(upstreamError{"protocol", err})
		}
		resp, err := http.ReadResponse(br, out)
		if err != nil {
			return fail(upstreamError{"protocol", err})
		}
		if resp.StatusCode != http.StatusProxyAuthRequired {
			return resp, conn, br, nil
		}
		next, ok, err := r.auth.answer(creds, resp.Header.Values("Proxy-Authenticate"))
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return fail(errCredentials{err})
		}
		if !ok || leg+1 >= maxLegs {
			return fail(errUpstreamAuth)
		}
		if resp.Close {
			return fail(upstreamError{"protocol", fmt.Errorf("it closed the connection in the middle of the %s handshake", r.scheme)})
		}
		authz = next
	}
}

// legRequest is req as one leg of the handshake sends it.
func legRequest(ctx context.Context, req *http.Request, authz string, last bool) *http.Request {
	out := req.Clone(ctx)
	if authz != "" {
		out.Header.Set("Proxy-Authorization", authz)
	}
	if !last {
		// a first NTLM leg only asks for the challenge
		out.Body, out.ContentLength = http.NoBody, 0
		out.TransferEncoding = nil
		out.Header.Del("Content-Type")
	}
	return out
}

// connectRequest asks the upstream for a tunnel to target (host:port).
func connectRequest(ctx context.Context, target string) *http.Request {
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Host: target}, Host: target, Header: http.Header{}}
	return req.WithContext(ctx)
}
