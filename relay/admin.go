package relay

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// readiness caches the last look at the upstream, so a probe every few
// seconds from each kubelet costs one dial at most per interval.
type readiness struct {
	mu      sync.Mutex
	checked time.Time
	err     error
}

const readyInterval = 5 * time.Second

// Ready tells whether the relay can serve: its credentials read and the
// upstream proxy accepts a connection.
func (r *Relay) Ready() error {
	r.ready.mu.Lock()
	defer r.ready.mu.Unlock()
	if time.Since(r.ready.checked) < readyInterval {
		return r.ready.err
	}
	r.ready.checked, r.ready.err = time.Now(), r.check()
	return r.ready.err
}

func (r *Relay) check() error {
	if _, err := r.credentials(); err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", r.upstream.Host, r.dialTimeout)
	if err != nil {
		return upstreamError{"dial", err}
	}
	return conn.Close()
}

// AdminHandler serves /healthz (the process answers), /readyz (Ready) and
// /metrics (Prometheus), on a port of its own apart from the proxy's.
func (r *Relay) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := r.Ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	mux.Handle("/metrics", promhttp.HandlerFor(r.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}
