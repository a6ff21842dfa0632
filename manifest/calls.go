package manifest

import (
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
)

// HostCall is a host a container calls, as the manifests show it (not to be
// confused with proxykit.Call, a library helper to render).
type HostCall struct {
	Host   string // lower case, as written (a trailing dot kept: clients tell it apart); no brackets
	Port   string // "" when not written
	Scheme string // "http", "https", "grpc", "postgres" ...; "" when not written
	// Where says where the manifests keep it: "env ES_URL", "args",
	// "ConfigMap/temporal key config.yaml, mounted at /etc/temporal".
	Where string
}

// Call is HostCall's name before 0.13.
//
// Deprecated: use HostCall.
type Call = HostCall

// Target is what a client is asked for: scheme://host[:port], http when the
// scheme is not written.
func (c HostCall) Target() string {
	scheme := c.Scheme
	if scheme == "" || !c.HTTP() {
		scheme = "http"
	}
	host := c.Host
	if c.Port != "" {
		host = net.JoinHostPort(c.Host, c.Port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// HostPort is host[:port] as a NO_PROXY entry or a message writes it.
func (c HostCall) HostPort() string {
	if c.Port == "" {
		return c.Host
	}
	return net.JoinHostPort(c.Host, c.Port)
}

// httpSchemes are those whose clients read the proxy variables (gRPC's too).
var httpSchemes = []string{"http", "https", "ws", "wss", "grpc", "grpcs", "h2c"}

// nonHTTPPorts are the well-known ports of databases and brokers, whose
// clients never read HTTP_PROXY: a host:port there is no HTTP call.
var nonHTTPPorts = []string{"22", "25", "53", "389", "636", "1433", "1521", "2181", "3306", "4222", "5432", "5671", "5672", "6379", "7000", "7001", "9042", "9092", "9093", "11211", "26379", "27017", "50000"}

// HTTP tells whether an HTTP client makes the call, so that the proxy
// variables decide its route: an http, https, ws or gRPC scheme, or none
// written at a port that is no database's or broker's.
func (c HostCall) HTTP() bool {
	if c.Scheme != "" {
		return slices.Contains(httpSchemes, c.Scheme)
	}
	return !slices.Contains(nonHTTPPorts, c.Port)
}

// expansion is Kubernetes' $(VAR) reference in env values, command and args.
var expansion = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// MaxEnvString is the longest environment string or argument the kernel passes
// to a program (MAX_ARG_STRLEN, 128 KiB): a container whose variable expands to
// more never starts, so expansion stops there.
const MaxEnvString = 128 << 10

// expand replaces $(VAR) with the variable's value as the kubelet does: an
// unknown reference stays as written, $$ is a literal $. A result longer than
// MaxEnvString is no string the container can get: the text stays as written
// (false), so that a few bytes of manifest never cost megabytes of reading.
func expand(text string, lookup func(string) (string, bool)) (string, bool) {
	if !strings.Contains(text, "$") {
		return text, true
	}
	var b strings.Builder
	last := 0
	for _, m := range expansion.FindAllStringSubmatchIndex(text, -1) {
		part := text[m[0]:m[1]]
		switch v, ok := lookup(text[max(m[2], 0):max(m[3], 0)]); {
		case part == "$$":
			part = "$"
		case ok:
			part = v
		}
		if b.Len()+(m[0]-last)+len(part) > MaxEnvString {
			return text, false
		}
		b.WriteString(text[last:m[0]])
		b.WriteString(part)
		last = m[1]
	}
	if b.Len()+len(text)-last > MaxEnvString {
		return text, false
	}
	b.WriteString(text[last:])
	return b.String(), true
}

// callVariables are the variables that set the proxy, not a call.
var callVariables = append(slices.Clone(ProxyVariables), "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS", "JAVA_OPTS_APPEND", "_JAVA_OPTIONS", "GRPC_PROXY", "grpc_proxy", "ALL_PROXY", "all_proxy")

// Calls lists the hosts a container calls, wherever the manifests keep them:
// its env values ($(VAR) expanded, valueFrom keys read from the stream's
// ConfigMaps and Secrets), envFrom sources, command and args, and the files of
// the ConfigMaps and Secrets it mounts (YAML, JSON, INI, properties or plain
// text: URLs, host:port, and a host key beside a port or scheme key). The proxy
// variables themselves are not calls. Each host and port is listed once, where
// it is first found, with its scheme when any place writes one. A value or file
// that names more than MaxHostsPerSource hosts is a list of hosts (a block list,
// a zone), not one program's calls: none of it is read, and ReadCalls names it.
func (m *Manifests) Calls(ctr Container) []HostCall {
	calls, _ := m.ReadCalls(ctr)
	return calls
}

// MaxHostsPerSource bounds the hosts one value or file is read for: past it
// the source is a list of hosts, which no NO_PROXY could hold (the kernel's
// 128 KiB for one variable is about 12,000 short names) and whose judgment
// would grow with hosts times NO_PROXY entries.
const MaxHostsPerSource = 512

// MaxCallsPerContainer bounds the hosts read for one container, whatever the
// number of its sources: each is judged for every client against NO_PROXY.
const MaxCallsPerContainer = 1024

// ReadCalls is Calls, and what it left unread: each value or file naming more
// than MaxHostsPerSource hosts ("ConfigMap/hosts key urls.txt, mounted at
// /etc/h (60000 hosts)"), and the hosts past MaxCallsPerContainer.
func (m *Manifests) ReadCalls(ctr Container) (calls []HostCall, hostLists []string) {
	resolved := m.ResolveEnv(ctr) // once, $(VAR) expanded as the kubelet does: env and args read it
	var r bounded
	m.readEnvFrom(&r, ctr)
	readHostPairs(&r, readEnv(&r, ctr, resolved))
	readArgs(&r, ctr, resolved)
	m.readMounts(&r, ctr)
	return r.calls("the container calls")
}

// readEnvFrom reads the keys of the envFrom sources, but the proxy's own
// variables and keys whose names say they hold a secret.
func (m *Manifests) readEnvFrom(r *bounded, ctr Container) {
	for _, src := range ctr.Sources().EnvFrom {
		data, _ := m.ObjectData(src.Kind, src.Name, ctr.Namespace)
		for _, key := range slices.Sorted(maps.Keys(data)) {
			if !slices.Contains(callVariables, src.Prefix+key) && !SecretName(key) {
				r.read(src.String()+" key "+key+" (envFrom)", data[key], scanText)
			}
		}
	}
}

// readEnv reads the env's values, resolved, and returns the known ones by
// name (for a host variable beside its port variable).
func readEnv(r *bounded, ctr Container, resolved Env) map[string]string {
	known := map[string]string{}
	for _, e := range ctr.Env {
		if slices.Contains(callVariables, e.Name) {
			continue
		}
		switch {
		case e.ValueFrom == nil:
			if v := resolved.Vars[e.Name]; !SecretName(e.Name) {
				r.add("env "+e.Name, scanText(v.Value))
				known[e.Name] = v.Value
			}
		case e.ValueFrom.ConfigMapKeyRef != nil || e.ValueFrom.SecretKeyRef != nil:
			if v := resolved.Vars[e.Name]; v.Known() && !SecretName(e.Name) {
				r.add("env "+e.Name+" ("+v.From+")", scanText(v.Value))
				known[e.Name] = v.Value
			}
		}
	}
	return known
}

// readHostPairs reads a host variable beside its port variable
// (POSTGRES_HOST, POSTGRES_PORT; KC_DB_URL_HOST, KC_DB_URL_PORT): each host
// with its own port.
func readHostPairs(r *bounded, known map[string]string) {
	for _, name := range slices.Sorted(maps.Keys(known)) {
		if hostKey.MatchString(name) {
			pair := map[string]string{name: known[name]}
			for _, k := range portKeys(name) {
				if v, ok := known[k]; ok {
					pair[k] = v
				}
			}
			r.add("env "+name, neighbours(pair))
		}
	}
}

// readArgs reads the command and args, $(VAR) expanded, as text and as flags.
func readArgs(r *bounded, ctr Container, resolved Env) {
	for _, list := range []struct {
		name string
		args []string
	}{{"command", ctr.Command}, {"args", ctr.Args}} {
		var expanded []string
		for _, arg := range list.args {
			arg, _ = expand(arg, resolved.lookup)
			expanded = append(expanded, arg)
			r.add(list.name, scanText(expanded[len(expanded)-1]))
		}
		r.add(list.name, scanFlags(expanded))
	}
}

// readMounts reads the files of mounted ConfigMaps and Secrets, as mounted
// (items, subPath), but keys whose names say they hold a secret.
func (m *Manifests) readMounts(r *bounded, ctr Container) {
	for _, src := range ctr.Sources().Mounts {
		data, _ := m.ObjectData(src.Kind, src.Name, ctr.Namespace)
		for _, key := range slices.Sorted(maps.Keys(data)) {
			if src.Items != nil && !slices.Contains(src.Items, key) {
				continue
			}
			if src.SubPath != "" && src.SubPath != key && !slices.Contains(src.Paths, src.SubPath) || SecretName(key) {
				continue
			}
			r.read(src.String()+" key "+key+", mounted at "+src.MountPath, data[key], scanFile)
		}
	}
}

// bounded gathers calls within the bounds: a source naming more than
// MaxHostsPerSource hosts is named, not read; past MaxCallsPerContainer hosts
// the rest is named.
type bounded struct {
	found     []HostCall
	hostLists []string
}

// MaxObjectData is the most a ConfigMap or Secret holds (the API server
// refuses more than 1 MiB): a longer value of a stream reaches no container,
// and is not read.
const MaxObjectData = 1 << 20

// read scans a ConfigMap's or Secret's value, unless it is longer than any
// cluster stores.
func (r *bounded) read(where, value string, scan func(string) []found) {
	if len(value) > MaxObjectData {
		r.hostLists = append(r.hostLists, fmt.Sprintf("%s (%d bytes, over the 1 MiB a ConfigMap or Secret holds)", where, len(value)))
		return
	}
	r.add(where, scan(value))
}

func (r *bounded) add(where string, fs []found) {
	if n := countHosts(fs); n > MaxHostsPerSource {
		r.hostLists = append(r.hostLists, fmt.Sprintf("%s (%d hosts)", where, n))
		return
	}
	for _, f := range fs {
		r.found = append(r.found, HostCall{Host: f.host, Port: f.port, Scheme: f.scheme, Where: where})
	}
}

// calls are the calls found, each host and port once, and what was left
// unread; whose says whose calls they are, for the name of what was left.
func (r *bounded) calls(whose string) ([]HostCall, []string) {
	calls := dedupeCalls(r.found)
	if len(calls) > MaxCallsPerContainer {
		r.hostLists = append(r.hostLists, fmt.Sprintf("%d more hosts past the first %d %s (from %s on)", len(calls)-MaxCallsPerContainer, MaxCallsPerContainer, whose, calls[MaxCallsPerContainer].Where))
		calls = calls[:MaxCallsPerContainer]
	}
	return calls, r.hostLists
}

// countHosts counts hosts once each, whatever their port or scheme.
func countHosts(fs []found) int {
	hosts := make(map[string]bool, len(fs))
	for _, f := range fs {
		hosts[f.host] = true
	}
	return len(hosts)
}

// dedupeCalls keeps each host and port once, where first found, with the
// scheme any place wrote for it.
func dedupeCalls(calls []HostCall) []HostCall {
	index := map[string]int{}
	var out []HostCall
	for _, c := range calls {
		key := c.Host + "\x00" + c.Port
		if i, seen := index[key]; seen {
			if out[i].Scheme == "" {
				out[i].Scheme = c.Scheme
			}
			continue
		}
		index[key] = len(out)
		out = append(out, c)
	}
	return out
}
