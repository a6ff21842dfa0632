package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sample of the list in its own format: each section, a wildcard and its
// exception, an internationalized rule, a private rule of three labels (left
// out), and a rule x/net does not hold (left out: the table and Go agree).
const sample = `// ===BEGIN ICANN DOMAINS===
com
uk
co.uk
// ck : https://en.wikipedia.org/wiki/.ck
*.ck
!www.ck
公司.cn
// ===END ICANN DOMAINS===
// ===BEGIN PRIVATE DOMAINS===
github.io
s3.us-east-1.amazonaws.com
not-a-suffix.example
// ===END PRIVATE DOMAINS===
`

func TestTable(t *testing.T) {
	rules, err := read(strings.NewReader(sample))
	require.NoError(t, err)
	assert.Equal(t, []string{"com:i", "uk:i", "co.uk:i", "*.ck:i", "ck:i", "!www.ck:i", "xn--55qx5d.cn:i", "github.io:p"}, rules)

	var out bytes.Buffer
	write(&out, rules)
	text := out.String()
	body := text[strings.Index(text, "-}}\n")+4 : strings.LastIndex(text, "\n{{- end -}}")]
	var table map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &table), "the define holds one JSON object, which fromJson reads")
	assert.Equal(t, "i", table["co.uk"])
	assert.Equal(t, "p", table["github.io"])
	assert.Len(t, table, len(rules))
}
