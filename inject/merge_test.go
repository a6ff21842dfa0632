package inject

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The merger's cases, one row each: a container's env in, its env and the
// number of notes out, for the proxy's two variables HTTP_PROXY and NO_PROXY.
func TestMergerCases(t *testing.T) {
	inj := &injection{enabled: true, names: []string{"HTTP_PROXY", "NO_PROXY", "http_proxy", "no_proxy"}, env: []map[string]any{
		{"name": "HTTP_PROXY", "value": "http://proxy:3128"}, {"name": "NO_PROXY", "value": ".svc,10.96.0.0/12"},
		{"name": "http_proxy", "value": "http://proxy:3128"}, {"name": "no_proxy", "value": ".svc,10.96.0.0/12"},
	}}
	env := func(kv ...string) []any {
		var out []any
		for i := 0; i < len(kv); i += 2 {
			out = append(out, map[string]any{"name": kv[i], "value": kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name            string
		own             []any
		override, merge bool
		want            []any
		notes           int
	}{
		{"nothing of its own: the proxy's", nil, false, false,
			env("HTTP_PROXY", "http://proxy:3128", "NO_PROXY", ".svc,10.96.0.0/12", "http_proxy", "http://proxy:3128", "no_proxy", ".svc,10.96.0.0/12"), 0},
		{"an own URL is kept, its twin follows it", env("HTTP_PROXY", "http://own:8080"), false, false,
			env("HTTP_PROXY", "http://own:8080", "NO_PROXY", ".svc,10.96.0.0/12", "http_proxy", "http://own:8080", "no_proxy", ".svc,10.96.0.0/12"), 0},
		{"override replaces an own URL", env("HTTP_PROXY", "http://own:8080"), true, false,
			env("HTTP_PROXY", "http://proxy:3128", "NO_PROXY", ".svc,10.96.0.0/12", "http_proxy", "http://proxy:3128", "no_proxy", ".svc,10.96.0.0/12"), 1},
		{"an own NO_PROXY kept, noted once for both cases", env("NO_PROXY", ".corp"), false, false,
			env("NO_PROXY", ".corp", "HTTP_PROXY", "http://proxy:3128", "http_proxy", "http://proxy:3128", "no_proxy", ".corp"), 1},
		{"merge: the cluster's entries and the own, the twin too", env("NO_PROXY", ".corp,*"), false, true,
			env("NO_PROXY", ".svc,10.96.0.0/12,.corp", "HTTP_PROXY", "http://proxy:3128", "http_proxy", "http://proxy:3128", "no_proxy", ".svc,10.96.0.0/12,.corp"), 1},
		{"an own valueFrom is kept as it is", []any{map[string]any{"name": "HTTP_PROXY", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}}}, true, true,
			append([]any{map[string]any{"name": "HTTP_PROXY", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}}},
				env("NO_PROXY", ".svc,10.96.0.0/12", "http_proxy", "http://proxy:3128", "no_proxy", ".svc,10.96.0.0/12")...), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := map[string]any{"name": "app"}
			if tc.own != nil {
				c["env"] = tc.own
			}
			changed, notes := inj.container(c, containerOptions{override: tc.override, merge: tc.merge, where: "Deployment/web container app"})
			assert.True(t, changed)
			assert.Equal(t, tc.want, c["env"])
			assert.Len(t, notes, tc.notes, "%q", notes)
		})
	}
}

// envEditor replaces in place, appends in order, and changes nothing for an
// equal entry.
func TestEnvEditor(t *testing.T) {
	c := map[string]any{"env": []any{map[string]any{"name": "A", "value": "1"}}}
	e := newEnvEditor(c)
	e.set(map[string]any{"name": "A", "value": "1"})
	assert.False(t, e.changed, "an equal entry changes nothing")
	e.set(map[string]any{"name": "B", "value": "2"})
	e.set(map[string]any{"name": "A", "value": "3"})
	assert.True(t, e.changed)
	assert.Equal(t, []any{map[string]any{"name": "A", "value": "3"}, map[string]any{"name": "B", "value": "2"}}, e.env)
}
