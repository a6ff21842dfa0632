package blockyaml

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// roundTrip holds Marshal's output of v to what sigs.k8s.io/yaml reads back:
// the same JSON as v's.
func roundTrip(t testing.TB, v any) []byte {
	t.Helper()
	text, err := Marshal(v)
	require.NoError(t, err)
	out := []byte(text)
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := yaml.YAMLToJSON(out)
	require.NoError(t, err, "%s", out)
	if !jsonEqual(t, want, got) {
		t.Fatalf("read back differently:\n%s\nwant %s\ngot  %s", out, want, got)
	}
	return out
}

func jsonEqual(t testing.TB, a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	require.NoError(t, da.Decode(&x))
	require.NoError(t, db.Decode(&y))
	return assert.ObjectsAreEqual(x, y)
}

func decode(t testing.TB, text string) any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(text))
	require.NoError(t, err)
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// Strings YAML readers take for something else, or that need escapes, are
// quoted; clean text stays plain or becomes a literal block; every one reads
// back as written.
func TestStringsReadBack(t *testing.T) {
	for _, s := range []string{"", "y", "Y", "yes", "No", "ON", "off", "true", "False", "null", "Null", "~", "1", "1.25", "0x1F", "1e3", ".inf", ".NaN", "-", "---", "...",
		"2001-12-14", "12:30", "1:20", "<<", "&anchor", "*alias", "!tag", "%x", "@x", "`x", "|", ">", "#x", "x #y", "x: y", "x:", "a:b", "registry.example/app:1", "a b",
		" lead", "trail ", "tab\there", "line\nline", "line\nline\n", "line\nline\n\n\n", "\nfirst empty", " indented\nx", "x \ny", "a\r\nb", "é", "日本", "\u2028", "\x00", "\"q\"", "'q'", "back\\slash",
		"--flag=value", "/etc/config", "http://proxy:3128", "localhost,127.0.0.1,.svc,10.0.0.0/8,[::1]", "-Dhttp.nonProxyHosts=*.svc|localhost", "$(VAR)", "{a: b}", "[a]", "a,b", "_x", "=x", "+1", "-1"} {
		out := roundTrip(t, map[string]any{"k": s, s: "v", "l": []any{s}})
		if plain(s) {
			assert.Contains(t, string(out), "k: "+s+"\n")
		}
	}
	assert.Equal(t, "k: |-\n  #!/bin/sh\n\n  exec app\n", string(roundTrip(t, map[string]any{"k": "#!/bin/sh\n\nexec app"})))
	assert.Equal(t, "k: |\n  a\n  b\n", string(roundTrip(t, map[string]any{"k": "a\nb\n"})))
}

// Nesting as Kubernetes' tools write it: a list under a key at the key's
// indent, a map in a list on the "- " line, empty ones in flow style.
func TestShapes(t *testing.T) {
	v := decode(t, `
spec:
  containers:
  - name: app
    env: [{name: A, value: "1"}, {name: B, valueFrom: {secretKeyRef: {name: s, key: k}}}]
    args: []
    resources: {}
    ports: [{containerPort: 8080}]
  matrix: [[1, 2], [], [{a: null}]]
  flag: false
  num: 1500
`)
	assert.Equal(t, `spec:
  containers:
  - args: []
    env:
    - name: A
      value: "1"
    - name: B
      valueFrom:
        secretKeyRef:
          key: k
          name: s
    name: app
    ports:
    - containerPort: 8080
    resources: {}
  flag: false
  matrix:
  - - 1
    - 2
  - []
  - - a: null
  num: 1500
`, string(roundTrip(t, v)))
	assert.Equal(t, "{}\n", string(roundTrip(t, map[string]any{})))
	assert.Equal(t, "[]\n", string(roundTrip(t, []any{})))
	_, err := Marshal(map[string]any{"x": struct{}{}})
	assert.Error(t, err)
	_, err = Marshal(map[string]any{"x": json.Number("12abc")})
	assert.Error(t, err)
}

// Every YAML document of the repository's charts and test data reads back the same.
func TestRepositoryDocumentsReadBack(t *testing.T) {
	for _, doc := range repositoryDocuments(t) {
		if v := decode(t, doc); v != nil {
			roundTrip(t, v)
		}
	}
}

// repositoryDocuments are the YAML documents of the charts' values and ci
// files, the providers' values, inject's test streams and the test charts' values.
func repositoryDocuments(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{"../../charts/*/values.yaml", "../../charts/*/ci/*.yaml", "../../examples/*/values.yaml", "../../examples/providers/*.yaml", "../../inject/testdata/*.yaml", "../../tests/testdata/*/values.yaml"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 10)
	var docs []string
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, doc := range strings.Split(string(text), "\n---") {
			if strings.TrimSpace(doc) != "" {
				docs = append(docs, doc)
			}
		}
	}
	return docs
}

// FuzzMarshal: any string, as a key, a value and an item, reads back as written.
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{"a", "yes", "a: b", "x\ny\n", " x", "1", "#", "é\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(`"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`)) {
			return // not valid UTF-8 text: no JSON string holds it
		}
		roundTrip(t, map[string]any{"k": s, s: []any{s, map[string]any{s: s}}})
	})
}
