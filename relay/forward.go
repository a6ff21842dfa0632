package relay

import (
	"errors"
	"net/http"
	"time"
)

// roundTripper carries a plain http:// request to its destination: through
// the upstream proxy with the relay's credentials, or directly.
type roundTripper struct{ r *Relay }

func (t roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r, start := t.r, time.Now()
	route := r.route(req.URL)
	var resp *http.Response
	var err error
	if route == routeDirect {
		resp, err = r.direct.RoundTrip(req)
		if err != nil && !errors.Is(err, errLocalDestination) {
			err = upstreamError{"dial", err}
		}
	} else {
		resp, err = r.forwardUpstream(req)
	}
	r.observe("http", route, req.URL.Host, start, err)
	return resp, err
}

// forwardUpstream sends req through the upstream proxy: on a kept connection
// of the same credentials when req has no body (so a connection the upstream
// closed meanwhile is retried on a new one), else on a new connection with the
// whole handshake. A connection whose response was read to its end is kept.
func (r *Relay) forwardUpstream(req *http.Request) (*http.Response, error) {
	creds, err := r.credentials()
	if err != nil {
		return nil, errCredentials{err}
	}
	fp := creds.fingerprint()
	if req.Body == nil || req.Body == http.NoBody {
		for {
			pc, ok := r.pool.get(fp)
			if !ok {
				break
			}
			if resp, ok := r.reuse(req, creds, pc); ok {
				return resp, nil
			}
		}
	}
	resp, conn, br, err := r.exchange(req.Context(), req, creds)
	if err != nil {
		return nil, err
	}
	resp.Body = &keptBody{ReadCloser: resp.Body, pool: &r.pool, conn: pooledConn{conn: conn, br: br, fp: fp}, keep: !resp.Close}
	return resp, nil
}

// reuse sends req on a kept connection: an NTLM connection is authenticated
// already, the other schemes send their header again. Any failure, a 407
// included, closes the connection and says to try another.
func (r *Relay) reuse(req *http.Request, creds Credentials, pc pooledConn) (*http.Response, bool) {
	authz := ""
	if r.scheme != SchemeNTLM {
		var err error
		if authz, err = r.auth.begin(creds); err != nil {
			pc.conn.Close()
			return nil, false
		}
	}
	out := legRequest(req.Context(), req, authz, true)
	if err := out.WriteProxy(pc.conn); err != nil {
		pc.conn.Close()
		return nil, false
	}
	resp, err := http.ReadResponse(pc.br, out)
	if err != nil || resp.StatusCode == http.StatusProxyAuthRequired {
		pc.conn.Close()
		return nil, false
	}
	resp.Body = &keptBody{ReadCloser: resp.Body, pool: &r.pool, conn: pc, keep: !resp.Close}
	return resp, true
}

// forwardError answers a failed plain request; observe already counted it.
func (r *Relay) forwardError(w http.ResponseWriter, _ *http.Request, err error) {
	code, msg := statusOf(err)
	http.Error(w, msg, code)
}
