package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// serveConnect opens a tunnel to req.Host, through the upstream proxy or
// directly, then splices the client to it.
func (r *Relay) serveConnect(w http.ResponseWriter, req *http.Request) {
	target := req.Host
	if _, port, err := net.SplitHostPort(target); err != nil || port == "" {
		r.metrics.requests.WithLabelValues("connect", "", resultBadRequest).Inc()
		http.Error(w, "proxykit-relay: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	start := time.Now()
	route := r.route(&url.URL{Scheme: "https", Host: target})
	up, upr, status, err := r.tunnel(req, route, target)
	r.observe("connect", route, target, start, err)
	if err != nil {
		code, msg := statusOf(err)
		http.Error(w, msg, code)
		return
	}
	if status != nil {
		// the upstream refused the tunnel for a reason of its own (403, 502...)
		defer up.Close()
		http.Error(w, fmt.Sprintf("proxykit-relay: the upstream proxy answered %s", status.Status), status.StatusCode)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "proxykit-relay: CONNECT needs HTTP/1.1", http.StatusHTTPVersionNotSupported)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		client.Close()
		up.Close()
		return
	}
	splice(client, buf.Reader, up, upr)
}

// tunnel opens the connection behind a CONNECT. A non-200 answer of the
// upstream comes back as status, with err nil.
func (r *Relay) tunnel(req *http.Request, route, target string) (net.Conn, io.Reader, *http.Response, error) {
	if route == routeDirect {
		conn, err := r.dialDirect(req.Context(), "tcp", target)
		if err != nil {
			if !errors.Is(err, errLocalDestination) {
				err = upstreamError{"dial", err}
			}
			return nil, nil, nil, err
		}
		return conn, conn, nil, nil
	}
	creds, err := r.credentials()
	if err != nil {
		return nil, nil, nil, errCredentials{err}
	}
	resp, conn, br, err := r.exchange(req.Context(), connectRequest(req.Context(), target), creds)
	if err != nil {
		return nil, nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		r.metrics.upstreamErr.WithLabelValues("status").Inc()
		return conn, nil, resp, nil
	}
	return conn, br, nil, nil
}

// splice copies both ways until both sides are done, passing on each half-close.
func splice(client net.Conn, fromClient *bufio.Reader, up net.Conn, fromUp io.Reader) {
	done := make(chan struct{}, 2)
	copyHalf := func(dst net.Conn, src io.Reader) {
		io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			dst.Close()
		}
		done <- struct{}{}
	}
	go copyHalf(up, fromClient)
	go copyHalf(client, fromUp)
	<-done
	<-done
	client.Close()
	up.Close()
}
