package relay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// Routes of a request: through the upstream proxy, or straight to the
// destination (a NoUpstream entry).
const (
	routeUpstream = "upstream"
	routeDirect   = "direct"
)

// Relay is the proxy: an http.Handler for the port clients use as their
// HTTP_PROXY, and AdminHandler for health and metrics.
type Relay struct {
	upstream    *url.URL
	scheme      Scheme
	auth        authenticator
	credsDir    string
	allow       []netip.Prefix
	bypass      func(*url.URL) (*url.URL, error)
	dialTimeout time.Duration
	dialDirect  func(ctx context.Context, network, addr string) (net.Conn, error)
	log         *slog.Logger
	metrics     *metrics
	forward     *httputil.ReverseProxy
	direct      *http.Transport // for NoUpstream destinations
	pool        upstreamPool    // upstream connections kept between plain requests
	idleTimeout time.Duration
	slots       chan struct{} // one per request or tunnel being served
	ready       readiness
}

// New checks o and returns a Relay; an error names the option at fault and
// never a credential.
func New(o Options) (*Relay, error) {
	up, err := o.upstream()
	if err != nil {
		return nil, err
	}
	scheme, err := o.scheme()
	if err != nil {
		return nil, err
	}
	auth, err := newAuthenticator(scheme, o, up.Hostname())
	if err != nil {
		return nil, err
	}
	for _, e := range o.NoUpstream {
		if t := strings.TrimSpace(e); t == "" || t == "*" {
			return nil, fmt.Errorf("noUpstream: %q would send every destination around the upstream proxy", e)
		}
	}
	r := &Relay{
		upstream: up, scheme: scheme, auth: auth, credsDir: o.CredentialsDir,
		allow:       o.Allow,
		bypass:      (&httpproxy.Config{HTTPProxy: up.String(), HTTPSProxy: up.String(), NoProxy: strings.Join(o.NoUpstream, ",")}).ProxyFunc(),
		dialTimeout: o.DialTimeout,
		dialDirect:  o.DialDirect,
		log:         o.Logger,
		metrics:     newMetrics(),
	}
	if r.dialTimeout == 0 {
		r.dialTimeout = 10 * time.Second
	}
	r.idleTimeout = cmp.Or(o.IdleTimeout, 10*time.Minute)
	if o.MaxConnections < 0 {
		return nil, fmt.Errorf("maxConnections: %d is negative", o.MaxConnections)
	}
	r.slots = make(chan struct{}, cmp.Or(o.MaxConnections, 1024))
	if r.dialDirect == nil {
		d := &net.Dialer{Timeout: r.dialTimeout, Control: refuseLocal}
		r.dialDirect = d.DialContext
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.direct = &http.Transport{DialContext: r.dialDirect, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second}
	r.forward = &httputil.ReverseProxy{
		// the request is already absolute; Rewrite (unlike Director) adds no
		// X-Forwarded-For, so the destination learns nothing of the cluster
		Rewrite:      func(*httputil.ProxyRequest) {},
		Transport:    roundTripper{r},
		ErrorHandler: r.forwardError,
	}
	return r, nil
}

// credentials reads the mounted Secret as it is now.
func (r *Relay) credentials() (Credentials, error) {
	if r.scheme == SchemeNone {
		return Credentials{}, nil
	}
	return readCredentials(r.credsDir)
}

// route tells whether u goes through the upstream or straight to it.
func (r *Relay) route(u *url.URL) string {
	if p, err := r.bypass(u); err == nil && p == nil {
		return routeDirect
	}
	return routeUpstream
}

// ServeHTTP serves one client request: a CONNECT, or an absolute-form
// http:// request, from a source the relay serves.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	method := "http"
	if req.Method == http.MethodConnect {
		method = "connect"
	}
	if !r.admits(req.RemoteAddr) {
		r.metrics.requests.WithLabelValues(method, "", resultRefused).Inc()
		r.log.Warn("refused a source the relay does not serve", "source", req.RemoteAddr)
		http.Error(w, "proxykit-relay: this source is not served", http.StatusForbidden)
		return
	}
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	default:
		r.metrics.requests.WithLabelValues(method, "", resultBusy).Inc()
		http.Error(w, fmt.Sprintf("proxykit-relay: serving its limit of %d connections; try again", cap(r.slots)), http.StatusServiceUnavailable)
		return
	}
	if method == "connect" {
		r.serveConnect(w, req)
		return
	}
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		r.metrics.requests.WithLabelValues(method, "", resultBadRequest).Inc()
		http.Error(w, "proxykit-relay is a proxy: send CONNECT or an absolute http:// URL", http.StatusBadRequest)
		return
	}
	r.forward.ServeHTTP(w, req)
}

// admits tells whether a client at remote (host:port) is served: loopback
// and the Allow networks.
func (r *Relay) admits(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return false
	}
	addr := ap.Addr().Unmap().WithZone("")
	if addr.IsLoopback() {
		return true
	}
	for _, p := range r.allow {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// refuseLocal keeps direct routes off the relay's own host: a loopback or
// unspecified address, checked after resolution (so no name points there).
func refuseLocal(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if a := ap.Addr().Unmap(); a.IsLoopback() || a.IsUnspecified() {
		return errLocalDestination
	}
	return nil
}

var errLocalDestination = errors.New("a loopback or unspecified destination is never relayed")

// result is the outcome label of err: any failure not named here is the
// upstream's or the destination's.
func result(err error) string {
	var ce errCredentials
	switch {
	case err == nil:
		return resultOK
	case errors.Is(err, errUpstreamAuth):
		return resultUpstreamAuth
	case errors.Is(err, errLocalDestination):
		return resultRefused
	case errors.As(err, &ce):
		return resultCredentials
	}
	return resultUpstreamError
}

// observe counts a finished attempt and logs what an operator must see.
func (r *Relay) observe(method, route, destination string, start time.Time, err error) {
	res := result(err)
	r.metrics.requests.WithLabelValues(method, route, res).Inc()
	var ue upstreamError
	switch {
	case res == resultOK:
		r.metrics.latency.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
	case res == resultUpstreamAuth:
		r.metrics.authFailed.WithLabelValues(string(r.scheme)).Inc()
		// the line names the scheme and where, never the user or the password
		r.log.Warn("the upstream proxy answered 407 to the relay's credentials",
			"upstream", r.upstream.Host, "scheme", string(r.scheme), "destination", destination)
	case errors.As(err, &ue):
		r.metrics.upstreamErr.WithLabelValues(ue.reason).Inc()
		r.log.Warn("upstream proxy failed", "upstream", r.upstream.Host, "reason", ue.reason, "destination", destination, "error", ue.err)
	case res == resultCredentials:
		r.log.Error("the relay's credentials could not be used", "error", err)
	}
}

// statusOf is what the client is told for err.
func statusOf(err error) (int, string) {
	switch result(err) {
	case resultRefused:
		return http.StatusForbidden, "proxykit-relay: " + errLocalDestination.Error()
	case resultUpstreamAuth:
		return http.StatusBadGateway, "proxykit-relay: " + errUpstreamAuth.Error()
	case resultCredentials:
		return http.StatusBadGateway, "proxykit-relay: the relay's credentials could not be used; see its log"
	}
	return http.StatusBadGateway, "proxykit-relay: " + err.Error()
}
