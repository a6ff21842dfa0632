package inject

import (
	"encoding/json"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/manifest"
)

// The stream is kept as decoded maps, so that every field a newer Kubernetes
// or a CRD adds is written back untouched; what inject computes on, a
// container's env and envFrom, it reads into the API's types and writes back
// only where the merge changed it (as kubectl's set env edits pod templates).

// typedEnv reads a container's env list.
func typedEnv(list []any) ([]corev1.EnvVar, error) {
	env := make([]corev1.EnvVar, 0, len(list))
	for j, item := range list {
		m, _ := item.(map[string]any)
		name, ok := m["name"].(string)
		if !ok {
			return nil, fmt.Errorf("env[%d] is not an env entry (a map with a name)", j)
		}
		e := corev1.EnvVar{Name: name}
		switch v := m["value"].(type) {
		case string:
			e.Value = v
		case nil:
		default:
			e.Value = fmt.Sprint(v)
		}
		if from, ok := m["valueFrom"]; ok && from != nil {
			e.ValueFrom = &corev1.EnvVarSource{}
			if err := convert(from, e.ValueFrom); err != nil {
				return nil, fmt.Errorf("env[%d] (%s).valueFrom: %w", j, name, err)
			}
		}
		env = append(env, e)
	}
	return env, nil
}

// typedEnvFrom reads a container's envFrom list as the sources it names.
func typedEnvFrom(list []any) ([]manifest.EnvSource, error) {
	if len(list) == 0 {
		return nil, nil
	}
	var c corev1.Container
	if err := convert(list, &c.EnvFrom); err != nil {
		return nil, fmt.Errorf("envFrom: %w", err)
	}
	return manifest.SourcesOf(c, nil).EnvFrom, nil
}

// untypedEnv writes a merged env back as the stream's maps: an entry equal to
// the one at its place before (was, read from original) is the original map,
// unknown fields and all.
func untypedEnv(env, was []corev1.EnvVar, original []any) ([]any, error) {
	out := make([]any, len(env))
	for i, e := range env {
		if i < len(was) && reflect.DeepEqual(was[i], e) {
			out[i] = original[i]
			continue
		}
		m := map[string]any{"name": e.Name}
		if e.ValueFrom == nil {
			m["value"] = e.Value
		} else {
			var from map[string]any
			if err := convert(e.ValueFrom, &from); err != nil {
				return nil, err
			}
			m["valueFrom"] = from
		}
		out[i] = m
	}
	return out, nil
}

// convert moves a value between the stream's maps and the API's types.
func convert(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
