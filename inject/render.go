package inject

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/internal/blockyaml"
)

// injection is what every container gets, rendered by the library for the
// values: the same helpers the proxy-policies engines build their mutations from.
type injection struct {
	enabled      bool
	env          []corev1.EnvVar // proxykit.proxy.env (with the Services), then proxykit.trust.env
	fabric8Env   []corev1.EnvVar // env as a container that may run the fabric8 client gets it (MayRunFabric8)
	javaFlags    string          // env's JAVA_TOOL_OPTIONS: the JVM's flags with proxy.runtimes java, else ""
	volume       map[string]any  // the trust bundle's volume, nil without proxy.trustedCA
	mount        map[string]any  // its read-only mount
	record       string          // proxykit.proxy.record: stamped on every pod template injected
	credentials  bool            // env reads a Secret
	secretNeeded bool            // ... which the library renders (not proxy.existingSecret)
	values       map[string]any
}

// render asks the library for the injection, in one render: services are the
// calls that write the NO_PROXY entries of the stream's Services
// (serviceHosts), which every container gets and then the hosts the containers
// call; release names the proxy Secret.
func render(values map[string]any, services []proxykit.Call, called []string, release string) (*injection, error) {
	if values == nil {
		values = map[string]any{}
	}
	env := proxykit.Call{Helper: "proxykit.proxy.env"}
	if len(called) > 0 {
		env.Args = map[string]any{"noProxy": strings.Join(called, ",")}
	}
	if len(services) > 0 {
		env.Join = map[string][]string{"noProxy": nil}
		for _, c := range services {
			env.Join["noProxy"] = append(env.Join["noProxy"], c.Name)
		}
	}
	// the same env for a container that may run the fabric8 client: NO_PROXY without its bracketed entries
	fabric8 := proxykit.Call{Helper: "proxykit.proxy.fabric8Env", Name: fabric8EnvCall, Join: map[string][]string{"env": {"proxykit.proxy.env"}}}
	lists := []string{"proxykit.proxy.env", fabric8EnvCall, "proxykit.trust.env", "proxykit.trust.volumes", "proxykit.trust.volumeMounts"}
	calls := append(slices.Clone(services), proxykit.Call{Helper: "proxykit.proxy.enabled"}, proxykit.Call{Helper: "proxykit.proxy.hasCredentials"},
		proxykit.Call{Helper: "proxykit.proxy.secret"}, proxykit.Call{Helper: "proxykit.proxy.record"}, env, fabric8)
	for _, helper := range lists[2:] {
		calls = append(calls, proxykit.Call{Helper: helper})
	}
	answers, err := proxykit.Ask(values, release, "", calls...)
	if err != nil {
		return nil, err
	}
	inj := &injection{values: values}
	if inj.enabled = answers["proxykit.proxy.enabled"] == "true"; !inj.enabled {
		return inj, nil
	}
	decoded := map[string][]any{}
	for _, helper := range lists {
		if decoded[helper], err = decodeList(answers[helper]); err != nil {
			return nil, fmt.Errorf("proxykit: %s: %w", helper, err)
		}
	}
	if inj.env, err = typedEnv(append(decoded["proxykit.proxy.env"], decoded["proxykit.trust.env"]...)); err != nil {
		return nil, fmt.Errorf("proxykit: proxykit.proxy.env: %w", err)
	}
	if inj.fabric8Env, err = typedEnv(append(decoded[fabric8EnvCall], decoded["proxykit.trust.env"]...)); err != nil {
		return nil, fmt.Errorf("proxykit: proxykit.proxy.env: %w", err)
	}
	for _, e := range inj.env {
		if e.Name == "JAVA_TOOL_OPTIONS" {
			inj.javaFlags = e.Value
		}
	}
	if volumes, mounts := decoded["proxykit.trust.volumes"], decoded["proxykit.trust.volumeMounts"]; len(volumes) > 0 && len(mounts) > 0 {
		inj.volume, _ = volumes[0].(map[string]any)
		inj.mount, _ = mounts[0].(map[string]any)
	}
	inj.record = answers["proxykit.proxy.record"]
	inj.credentials = answers["proxykit.proxy.hasCredentials"] == "true"
	inj.secretNeeded = inj.credentials && answers["proxykit.proxy.secret"] != ""
	return inj, nil
}

// fabric8EnvCall names the answer of proxykit.proxy.fabric8Env.
const fabric8EnvCall = "proxykit.proxy.fabric8Env"

// decodeList reads a YAML list in the decoded-JSON shape of the stream.
func decodeList(text string) ([]any, error) {
	v, err := blockyaml.Decode([]byte(text))
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok && v != nil {
		return nil, fmt.Errorf("not a list")
	}
	return list, nil
}
