package manifest

import "strings"

// AnnotationProxyConfig holds the record of the proxy configuration a Pod was
// given (the library's proxykit.proxy.record, "v1-" and 32 hex digits, never a
// credential). Whatever injects the proxy writes it on the Pod or its template,
// and the library's proxy Secret carries the value of what it gives now: a Pod
// whose record differs from its Secret's started on an old configuration.
const AnnotationProxyConfig = "proxykit.io/proxy-config"

// Record is the record of the configuration the container's Pod was given, ""
// when nothing recorded it (a Pod from before proxykit wrote records, or
// injected by something else).
func (c Container) Record() string { return c.Annotations[AnnotationProxyConfig] }

// SecretRecord is the record that the Secret the container's proxy variables
// read carries: what a container that starts now is given. secret names it
// ("Secret/NAME"); both are "" when no proxy variable reads a Secret of the
// manifests that carries a record.
func (m *Manifests) SecretRecord(c Container) (record, secret string) {
	env := m.ResolveEnv(c).Vars
	for _, name := range ProxyVariables {
		v, ok := env[name]
		if !ok {
			continue
		}
		kind, secretName, _ := strings.Cut(v.From, "/")
		if kind != "Secret" {
			continue
		}
		if o := m.FindIn("Secret", secretName, c.Namespace); o != nil {
			if r := o.Annotation(AnnotationProxyConfig); r != "" {
				return r, v.From
			}
		}
	}
	return "", ""
}
