package relay

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Outcomes of a request, the result label of proxykit_relay_requests_total.
const (
	resultOK            = "ok"
	resultRefused       = "refused"        // a source the relay does not serve, or a loopback destination
	resultBadRequest    = "bad_request"    // not a proxy request
	resultUpstreamAuth  = "upstream_auth"  // the upstream answered 407 to the relay's credentials
	resultUpstreamError = "upstream_error" // the upstream or the destination could not be reached
	resultCredentials   = "credentials"    // the relay's own credentials could not be read or used
	resultBusy          = "busy"           // the relay served MaxConnections already
)

// metrics are what an operator graphs and alerts on: requests by route and
// outcome, the upstream's 407s and errors, and the time to the first byte.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	authFailed  *prometheus.CounterVec
	upstreamErr *prometheus.CounterVec
	latency     *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proxykit_relay_requests_total",
			Help: "Requests served, by method (connect or http), route (upstream or direct) and result.",
		}, []string{"method", "route", "result"}),
		authFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proxykit_relay_upstream_auth_failures_total",
			Help: "407 answers of the upstream proxy to the relay's credentials, by scheme.",
		}, []string{"scheme"}),
		upstreamErr: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proxykit_relay_upstream_errors_total",
			Help: "Upstream proxy failures other than 407, by reason (dial, protocol, status).",
		}, []string{"reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "proxykit_relay_request_duration_seconds",
			Help:    "Time until a tunnel is open or a response's headers arrive, by method and route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"method", "route"}),
	}
	m.registry.MustRegister(m.requests, m.authFailed, m.upstreamErr, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
