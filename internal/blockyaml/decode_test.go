package blockyaml

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsyaml "sigs.k8s.io/yaml"
)

// viaJSON is the road Decode spares: YAMLToJSON, then encoding/json with UseNumber.
func viaJSON(text []byte) (any, error) {
	j, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return nil, err
	}
	var out any
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	return out, d.Decode(&out)
}

func sameDecode(t testing.TB, text string) {
	t.Helper()
	want, wantErr := viaJSON([]byte(text))
	got, err := Decode([]byte(text))
	if wantErr != nil {
		assert.Error(t, err, "%q", text)
		return
	}
	require.NoError(t, err, "%q", text)
	assert.Equal(t, want, got, "%q", text)
}

// Numbers of every kind, keys of every kind, YAML 1.1's booleans, anchors,
// binary data: Decode reads them as the JSON road does.
func TestDecodeAsYAMLToJSON(t *testing.T) {
	for _, text := range []string{
		"a: 1\nb: -2\nc: 1.5\nd: 1e3\ne: 0x1F\nf: 0o17\ng: 1_000\nh: 9223372036854775807\ni: 18446744073709551615\nj: 1.0\nk: 100000000000000000000000\n",
		"1: a\ntrue: b\nno: c\n1.5: d\n~: e\n", "x: .inf\n", "x: .nan\n", "x: !!binary aGVsbG8=\n", "x: yes\ny: Off\nz: ~\n",
		"a: &x {b: [1, 2]}\nc: *x\n", "- 1\n- [a, {b: c}]\n", "", "# only a comment\n", "text", "x: \"\\u00e9\"\n", "a: [1, 2\n", "x: 2001-12-14\n",
	} {
		sameDecode(t, text)
	}
}

// Every YAML document of the repository's charts and test data decodes alike.
func TestDecodeRepositoryDocuments(t *testing.T) {
	for _, doc := range repositoryDocuments(t) {
		sameDecode(t, doc)
	}
}

// FuzzDecode: any text decodes as the JSON road decodes it, or fails as it does.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"a: 1", "1: 2", "- 1.5", "x: !!binary aGk=", "a: &x 1\nb: *x", "{a: [1, {b: 1e400}]}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameDecode(t, s) })
}
