package noproxy

import (
	"net/netip"
	"strings"
)

// Guzzle reads the upper-case names, curl underneath its own (phpDecide);
// outside the CLI the httpoxy guard hides HTTP_PROXY from Guzzle.
var (
	_ = register(Family{Client: PHPGuzzle, Lists: []List{ListMain}, Rank: 120,
		Reads: Variables{Proxy: []string{"HTTP_PROXY"}, NoProxy: []string{"NO_PROXY"}},
		Match: func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
			d, e := phpDecide(phpEnv(noProxy), t, true)
			return d, e, nil
		},
		DecideEnv: func(_ Client, env map[string]string, t target) (bool, string) { return phpDecide(env, t, true) }})
	_ = register(Family{Client: PHPGuzzleWeb, Lists: []List{ListOther}, Rank: 230,
		Reads: Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy", "NO_PROXY"}},
		Match: func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
			d, e := phpDecide(phpEnv(noProxy), t, false)
			return d, e, nil
		},
		DecideEnv: func(_ Client, env map[string]string, t target) (bool, string) { return phpDecide(env, t, false) }})
)

// guzzleDecide models Guzzle 7.4's Utils::isHostInNoProxy: blanks are removed,
// entries split at commas; "*" matches every host; an entry matches a host equal
// to it, or, read with one leading dot, a host that ends with it. The host is
// the URI's, cut at its first colon, so an IPv6 host ("[fd00::1]") is "[fd00"
// and never matches; no CIDR, no case folding of entries.
func guzzleDecide(noProxy string, t target) (bool, string) {
	host := t.hostname
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	host, _, _ = strings.Cut(host, ":")
	for _, area := range strings.Split(strings.ReplaceAll(noProxy, " ", ""), ",") {
		if area == "*" || (area != "" && area == host) {
			return true, area
		}
		if area == "" {
			continue
		}
		if dotted := "." + strings.TrimLeft(area, "."); strings.HasSuffix(host, dotted) {
			return true, area
		}
	}
	return false, ""
}

// phpDecide models a Guzzle client on php-cli with the curl handler (Debian 12:
// Guzzle 7.4, libcurl 7.88). Guzzle reads HTTP_PROXY (only under the CLI: the
// httpoxy guard) or HTTPS_PROXY, and NO_PROXY, upper case only. When its
// NO_PROXY does not match, it hands curl the proxy, and curl still applies its
// own no_proxy (or NO_PROXY); when it matches, it hands curl none, and curl
// falls back to its own variable (http_proxy, lower case only; https_proxy or
// HTTPS_PROXY) with its own no_proxy. With both cases set, as proxykit writes
// them, curl decides alone.
//
// Under any other SAPI (php-fpm, php-cgi, mod_php: PHPGuzzleWeb) Guzzle never
// reads HTTP_PROXY, so for an http:// request curl beneath decides alone, on
// its own lower-case http_proxy.
func phpDecide(env map[string]string, t target, cli bool) (bool, string) {
	guzzleVar, curlVars := "HTTP_PROXY", []string{"http_proxy"}
	if !cli {
		guzzleVar = ""
	}
	if t.url.Scheme == "https" {
		guzzleVar, curlVars = "HTTPS_PROXY", []string{"https_proxy", "HTTPS_PROXY"}
	}
	curlNoProxy := pickFrom(env, []string{"no_proxy", "NO_PROXY"}, false)
	curlProxy := pickFrom(env, curlVars, false)
	if guzzleVar != "" && env[guzzleVar] != "" {
		matched, entry := guzzleDecide(env["NO_PROXY"], t)
		if !matched {
			return curlDecide(curlNoProxy, t)
		}
		if curlProxy == "" {
			return true, entry
		}
		return curlDecide(curlNoProxy, t)
	}
	if curlProxy == "" {
		return true, "(no proxy variable this client reads)"
	}
	return curlDecide(curlNoProxy, t)
}

// phpEnv are the variables as proxykit writes them, both cases, for a NO_PROXY list.
func phpEnv(noProxy string) map[string]string {
	env := map[string]string{"NO_PROXY": noProxy, "no_proxy": noProxy}
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		env[name] = "http://proxy:3128"
	}
	return env
}
