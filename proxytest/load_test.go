package proxytest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStripDocComments(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a doc comment on the first line", "{{/* doc\nmore */}}\n{{- define \"a\" -}}x{{- end -}}\n", "\n{{- define \"a\" -}}x{{- end -}}\n"},
		{"between defines, the line end kept", "{{ define \"a\" }}x{{ end }}\n{{/* b */}}\n{{ define \"b\" }}y{{ end }}", "{{ define \"a\" }}x{{ end }}\n\n{{ define \"b\" }}y{{ end }}"},
		{"a trimming comment stays: it trims", "a\n{{- /* c */ -}}\nb", "a\n{{- /* c */ -}}\nb"},
		{"a comment inside a line stays", "x {{/* c */}} y", "x {{/* c */}} y"},
		{"an unclosed comment stays", "a\n{{/* open", "a\n{{/* open"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(stripDocComments([]byte(tc.in))))
		})
	}
}
