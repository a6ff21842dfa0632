package noproxy

import (
	"net/netip"
)

// Option says what a client is started with, beyond the target.
type Option func(*decideOptions)

type decideOptions struct {
	noProxy string
	env     map[string]string
	addr    netip.Addr
}

// NoProxy decides on this NO_PROXY list, as if the client read it (and a proxy
// URL) from its variables. Without it, and without Env, nothing bypasses the proxy.
func NoProxy(list string) Option { return func(o *decideOptions) { o.noProxy = list } }

// Env decides for a client started with these variables: it reads the ones
// Reads names (the JVM its -D flags in JavaOptionVariables; Node.js only with
// NODE_USE_ENV_PROXY=1), and a target goes direct when it finds no proxy URL.
func Env(env map[string]string) Option { return func(o *decideOptions) { o.env = env } }

// ResolvedTo is the address the target's host resolves to, for a client that
// looks it up (ruby matches NO_PROXY's IPv4 addresses and CIDRs against it, and
// never proxies loopback). Without it only an IP literal and localhost have one.
func ResolvedTo(addr netip.Addr) Option { return func(o *decideOptions) { o.addr = addr } }

func grpcGoFamily(client Client, noProxy string, t target, addr netip.Addr) (bool, string, error) {
	d, e := grpcGoDecide(client, noProxy, t, addr)
	return d, e, nil
}

// refusal is a family's word that the client makes no request at all.
type refusal string

func (r refusal) Error() string { return string(r) }

// Decide tells whether client sends target (a URL, or host[:port]) directly or
// through the proxy, and which entry decided: on the NO_PROXY list of NoProxy,
// or on the variables of Env, with the address of ResolvedTo where the client
// looks one up.
func Decide(client Client, targetURL string, opts ...Option) (Decision, error) {
	var o decideOptions
	for _, opt := range opts {
		opt(&o)
	}
	fam, ok := registry[client]
	if !ok {
		_, err := ParseClient(string(client))
		return Decision{}, err
	}
	t, err := parseTarget(targetURL)
	if err != nil {
		return Decision{}, err
	}
	noProxy := o.noProxy
	if o.env != nil {
		if fam.DecideEnv != nil {
			direct, entry := fam.DecideEnv(client, o.env, t)
			return Decision{Target: t.raw, Client: client, Direct: direct, Entry: entry}, nil
		}
		read := fam.ReadEnv
		if read == nil {
			read = fromEnv
		}
		list, why, refused := read(client, o.env, t)
		switch {
		case refused != "":
			return Decision{Target: t.raw, Client: client, Refused: refused}, nil
		case why != "":
			return Decision{Target: t.raw, Client: client, Direct: true, Entry: why}, nil
		}
		noProxy = list
	}
	direct, entry, err := fam.Match(client, noProxy, t, o.addr)
	if r, ok := err.(refusal); ok {
		return Decision{Target: t.raw, Client: client, Refused: string(r)}, nil
	}
	if err != nil {
		return Decision{}, err
	}
	return Decision{Target: t.raw, Client: client, Direct: direct, Entry: entry}, nil
}

// fromEnv reads a client's variables as Reads says: the NO_PROXY list it
// matches, or why it sends every request directly.
func fromEnv(client Client, env map[string]string, _ target) (list, direct, refused string) {
	vars := Reads(client)
	if vars.pick(env, vars.Proxy) == "" {
		return "", "(no proxy variable this client reads)", ""
	}
	return vars.pickNoProxy(env), "", ""
}
