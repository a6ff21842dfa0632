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

// forwardUpstream sends req through the upstream proxy on a connection of
// its own, closed with the response body.
func (r *Relay) forwardUpstream(req *http.Request) (*http.Response, error) {
	resp, conn, _, err := r.exchange(req.Context(), req)
	if err != nil {
		return nil, err
	}
	resp.Body = closeWithConn{resp.Body, conn}
	return resp, nil
}

// forwardError answers a failed plain request; observe already counted it.
func (r *Relay) forwardError(w http.ResponseWriter, _ *http.Request, err error) {
	code, msg := statusOf(err)
	http.Error(w, msg, code)
}
