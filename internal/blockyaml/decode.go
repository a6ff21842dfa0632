package blockyaml

import (
	"bytes"
	"encoding/json"
	"strconv"

	yaml "go.yaml.in/yaml/v2"
	sigsyaml "sigs.k8s.io/yaml"
)

// Decode reads a YAML document into what sigs.k8s.io/yaml.YAMLToJSON and then
// encoding/json with UseNumber give (map[string]any, []any, string,
// json.Number, bool, nil), without writing and reading the JSON between: the
// same YAML parser, keys made strings and numbers written as encoding/json
// writes them. A document with anything else in it takes that road.
func Decode(text []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(text, &v); err != nil {
		return nil, err
	}
	if out, ok := convert(v); ok {
		return out, nil
	}
	j, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return nil, err
	}
	return decodeJSON(j)
}

// convert turns what yaml.v2 decodes into decoded JSON; false for what only
// the JSON road treats right (float keys, binary data, NaN).
func convert(v any) (any, bool) {
	switch v := v.(type) {
	case nil, string, bool:
		return v, true
	case int:
		return json.Number(strconv.Itoa(v)), true
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), true
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), true
	case float64:
		b, err := json.Marshal(v)
		return json.Number(b), err == nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			var ok bool
			if out[i], ok = convert(item); !ok {
				return nil, false
			}
		}
		return out, true
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			var key string
			switch k := k.(type) {
			case string:
				key = k
			case int:
				key = strconv.Itoa(k)
			case bool:
				key = strconv.FormatBool(k)
			default:
				return nil, false
			}
			var ok bool
			if out[key], ok = convert(item); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

func decodeJSON(j []byte) (any, error) {
	var out any
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	return out, d.Decode(&out)
}
