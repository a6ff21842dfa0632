package inject

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/internal/blockyaml"
)

// injection is what every container gets, rendered by the library for the
// values: the same helpers the proxy-policies engines build their mutations from.
type injection struct {
	enabled      bool
	env          []corev1.EnvVar // proxykit.proxy.env (with the Services), then proxykit.trust.env
	javaFlags    string          // env's JAVA_TOOL_OPTIONS: the JVM's flags with proxy.runtimes java, else ""
	volume       map[string]any  // the trust bundle's volume, nil without proxy.trustedCA
	mount        map[string]any  // its read-only mount
	record       string          // proxykit.proxy.record: stamped on every pod template injected
	credentials  bool            // env reads a Secret
	secretNeeded bool            // ... which the library renders (not proxy.existingSecret)
	values       map[string]any
}

// render asks the library for the injection, in one render. hosts are
// NO_PROXY entries for every container (the stream's Services); release names
// the proxy Secret.
func render(values map[string]any, hosts, release string) (*injection, error) {
	if values == nil {
		values = map[string]any{}
	}
	var args map[string]any
	if hosts != "" {
		args = map[string]any{"noProxy": hosts}
	}
	lists := []string{"proxykit.proxy.env", "proxykit.trust.env", "proxykit.trust.volumes", "proxykit.trust.volumeMounts"}
	calls := []proxykit.Call{{Helper: "proxykit.proxy.enabled"}, {Helper: "proxykit.proxy.hasCredentials"}, {Helper: "proxykit.proxy.secret"}, {Helper: "proxykit.proxy.record"}}
	for i, helper := range lists {
		call := proxykit.Call{Helper: helper}
		if i == 0 {
			call.Args = args
		}
		calls = append(calls, call)
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
