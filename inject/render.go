package inject

import (
	"fmt"

	"github.com/proxykit/proxykit"
)

// injection is what every container gets, rendered by the library for the
// values: the same helpers the proxy-policies engines build their mutations from.
type injection struct {
	enabled      bool
	env          []map[string]any // proxykit.proxy.env (with the Services), then proxykit.trust.env
	javaOptions  string           // the flags an own JAVA_TOOL_OPTIONS is joined after
	volume       map[string]any   // the trust bundle's volume, nil without proxy.trustedCA
	mount        map[string]any   // its read-only mount
	credentials  bool             // env reads a Secret
	secretNeeded bool             // ... which the library renders (not proxy.existingSecret)
	values       map[string]any
}

// render asks the library for the injection. hosts are NO_PROXY entries for
// every container (the stream's Services); release names the proxy Secret.
func render(values map[string]any, hosts, release string) (*injection, error) {
	if values == nil {
		values = map[string]any{}
	}
	include := func(helper string, args map[string]any) (string, error) {
		return proxykit.Call{Helper: helper, Values: values, Args: args, Release: release}.Include()
	}
	inj := &injection{values: values}
	enabled, err := include("proxykit.proxy.enabled", nil)
	if err != nil {
		return nil, err
	}
	if inj.enabled = enabled == "true"; !inj.enabled {
		return inj, nil
	}
	var args map[string]any
	if hosts != "" {
		args = map[string]any{"noProxy": hosts}
	}
	var lists [4][]any
	for i, helper := range []string{"proxykit.proxy.env", "proxykit.trust.env", "proxykit.trust.volumes", "proxykit.trust.volumeMounts"} {
		a := args
		if i > 0 {
			a = nil
		}
		out, err := include(helper, a)
		if err != nil {
			return nil, err
		}
		if lists[i], err = decodeList(out); err != nil {
			return nil, fmt.Errorf("proxykit: %s: %w", helper, err)
		}
	}
	for _, e := range append(lists[0], lists[1]...) {
		entry, _ := e.(map[string]any)
		inj.env = append(inj.env, entry)
		if entry["name"] == "JAVA_TOOL_OPTIONS" {
			inj.javaOptions, _ = entry["value"].(string)
		}
	}
	if len(lists[2]) > 0 && len(lists[3]) > 0 {
		inj.volume, _ = lists[2][0].(map[string]any)
		inj.mount, _ = lists[3][0].(map[string]any)
	}
	credentials, err := include("proxykit.proxy.hasCredentials", nil)
	if err != nil {
		return nil, err
	}
	inj.credentials = credentials == "true"
	if inj.credentials {
		secret, err := include("proxykit.proxy.secret", nil)
		if err != nil {
			return nil, err
		}
		inj.secretNeeded = secret != ""
	}
	return inj, nil
}

// decodeList reads a YAML list in the decoded-JSON shape of the stream.
func decodeList(text string) ([]any, error) {
	v, err := decode(text)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok && v != nil {
		return nil, fmt.Errorf("not a list")
	}
	return list, nil
}
