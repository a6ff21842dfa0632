package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"
)

// serveConnect opens a tunnel to req.Host, through the upstream proxy or
// directly, then splices the client to it.
func (r *Relay) serveConnect(w http.ResponseWriter, req *http.Request) {
	target := req.Host
	if !validTarget(target) {
		r.metrics.requests.WithLabelValues("connect", "", resultBadRequest).Inc()
		http.Error(w, "proxykit-relay: CONNECT needs host:port (a DNS name or an IP address, a port from 1 to 65535)", http.StatusBadRequest)
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
	splice(client, buf.Reader, up, upr, r.idleTimeout)
}

// validTarget tells whether a CONNECT target is host:port with a DNS name or
// an IP address and a port from 1 to 65535: no user-info, path or spaces
// reach the upstream in its request line.
func validTarget(target string) bool {
	host, port, err := net.SplitHostPort(target)
	if err != nil {
		return false
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 || strconv.Itoa(p) != port {
		return false
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr.Zone() == "" // a zone names an interface of the relay's own host
	}
	return dnsName.MatchString(host)
}

// dnsName is a host name as resolvers take it: labels of letters, digits, "-"
// and "_", at most 253 characters.
var dnsName = regexp.MustCompile(`^(?i)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$`)

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

// splice copies both ways until both sides are done, passing on each
// half-close; a tunnel no byte crosses for idle is closed.
func splice(client net.Conn, fromClient *bufio.Reader, up net.Conn, fromUp io.Reader, idle time.Duration) {
	var last atomic.Int64 // unix nanoseconds of the last byte either way
	last.Store(time.Now().UnixNano())
	done := make(chan struct{}, 2)
	copyHalf := func(dst net.Conn, src io.Reader) {
		io.Copy(activity{dst, &last}, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			dst.Close()
		}
		done <- struct{}{}
	}
	go copyHalf(up, fromClient)
	go copyHalf(client, fromUp)
	tick := time.NewTicker(max(idle/4, time.Millisecond))
	defer tick.Stop()
	for ended := 0; ended < 2; {
		select {
		case <-done:
			ended++
		case now := <-tick.C:
			if now.Sub(time.Unix(0, last.Load())) > idle {
				client.Close()
				up.Close() // both copies end, and report done
			}
		}
	}
	client.Close()
	up.Close()
}

// activity is a writer that records when it last wrote.
type activity struct {
	w    io.Writer
	last *atomic.Int64
}

func (a activity) Write(p []byte) (int, error) {
	a.last.Store(time.Now().UnixNano())
	return a.w.Write(p)
}
