// Command proxykit-relay runs package relay: an in-cluster proxy that Pods and
// nodes use without credentials, which authenticates to the upstream
// corporate proxy with Basic, NTLMv2 or Negotiate/Kerberos.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/relay"
)

// options are the command's flags, turned into relay.Options by complete.
type options struct {
	listen, adminListen       string
	upstream, scheme          string
	credentialsDir            string
	krb5Config, spn           string
	allow, noUpstream         []string
	dialTimeout, drainTimeout time.Duration
	idleTimeout               time.Duration
	maxConnections            int
}

func main() {
	if err := newCommand().Execute(); err != nil {
		os.Exit(1)
	}
}

func newCommand() *cobra.Command { return commandFor(&options{}) }

// commandFor binds the flags to o.
func commandFor(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "proxykit-relay --upstream http://proxy.corp:8080 --scheme ntlm --credentials-dir DIR --allow CIDR...",
		Short:         "A proxy for Pods and nodes that holds the upstream proxy's credentials itself",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: false,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ro, err := o.complete()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return o.run(ctx, ro)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", ":3128", "address the proxy listens on")
	f.StringVar(&o.adminListen, "admin-listen", ":9090", "address of /healthz, /readyz and /metrics")
	f.StringVar(&o.upstream, "upstream", "", "the corporate proxy, http://host:port (no credentials: they are files in --credentials-dir)")
	f.StringVar(&o.scheme, "scheme", "none", "how the relay authenticates to the upstream: none, basic, ntlm or negotiate")
	f.StringVar(&o.credentialsDir, "credentials-dir", "", "the mounted Secret: username, and password or keytab; read again on every upstream connection")
	f.StringVar(&o.krb5Config, "krb5-config", "", "krb5.conf naming the realm's KDCs (negotiate)")
	f.StringVar(&o.spn, "spn", "", "the upstream's service principal (negotiate); HTTP/<upstream host> when empty")
	f.StringSliceVar(&o.allow, "allow", nil, "source networks served (CIDRs); loopback is always served, every other source refused")
	f.StringSliceVar(&o.noUpstream, "no-upstream", nil, "destinations reached directly, in NO_PROXY's syntax")
	f.DurationVar(&o.dialTimeout, "dial-timeout", 10*time.Second, "bound on a connection to the upstream or a direct destination")
	f.DurationVar(&o.drainTimeout, "drain-timeout", 20*time.Second, "time given to requests in flight on SIGTERM")
	f.DurationVar(&o.idleTimeout, "idle-timeout", 10*time.Minute, "a tunnel no byte crosses for this long is closed")
	f.IntVar(&o.maxConnections, "max-connections", 1024, "requests and tunnels served at once; past it a client gets 503")
	return cmd
}

// complete turns the flags into relay.Options; errors name the flag.
func (o *options) complete() (relay.Options, error) {
	ro := relay.Options{
		Upstream: o.upstream, Scheme: relay.Scheme(o.scheme), CredentialsDir: o.credentialsDir,
		Krb5Config: o.krb5Config, SPN: o.spn, NoUpstream: o.noUpstream, DialTimeout: o.dialTimeout,
		IdleTimeout: o.idleTimeout, MaxConnections: o.maxConnections,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, nil)),
	}
	for _, a := range o.allow {
		a = strings.TrimSpace(a)
		p, err := netip.ParsePrefix(a)
		if err != nil {
			addr, aerr := netip.ParseAddr(a)
			if aerr != nil {
				return ro, fmt.Errorf("--allow: %q is neither a CIDR nor an address", a)
			}
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		ro.Allow = append(ro.Allow, p.Masked())
	}
	return ro, nil
}

// run serves the proxy and the admin port until ctx ends, then drains.
func (o *options) run(ctx context.Context, ro relay.Options) error {
	r, err := relay.New(ro)
	if err != nil {
		return err
	}
	proxy := &http.Server{Addr: o.listen, Handler: r, ReadHeaderTimeout: 30 * time.Second}
	admin := &http.Server{Addr: o.adminListen, Handler: r.AdminHandler(), ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, 2)
	for _, s := range []*http.Server{proxy, admin} {
		l, err := net.Listen("tcp", s.Addr)
		if err != nil {
			return err
		}
		go func() { errs <- s.Serve(l) }()
	}
	ro.Logger.Info("serving", "listen", o.listen, "admin", o.adminListen, "scheme", string(relay.Scheme(o.scheme)))
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), o.drainTimeout)
	defer cancel()
	err = errors.Join(proxy.Shutdown(drain), admin.Shutdown(drain))
	if errors.Is(err, context.DeadlineExceeded) {
		return nil // tunnels still open at the deadline end with the process
	}
	return err
}
