{{/*
Flux: a Secret in the shape of a source's spec.proxySecretRef.
*/}}

{{/*
proxykit.flux.proxySecret — a Secret in the shape Flux's spec.proxySecretRef reads.
Input:  dict "context" $ "name" NAME ["namespace" NS] ["url" "https"|"http"]
        url picks the resolved URL (default https: Flux fetches over HTTPS).
Output: a Secret with stringData address (the URL without user-info), username
        and password (percent-escapes decoded, as the proxy receives them; an
        escape of a non-ASCII byte fails). Flux takes no NO_PROXY from it.
        Nothing when that URL is not set.
*/}}
{{- define "proxykit.flux.proxySecret" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.flux.proxySecret") -}}
{{- $s := .context.proxykitSettings -}}
{{- $which := .url | default "https" -}}
{{- $url := index $s $which | default "" -}}
{{- if $url -}}
{{- $parts := include "proxykit.url.split" $url | fromJson -}}
{{- $data := dict -}}
{{- if $parts.userInfo -}}
  {{- $userInfo := $parts.userInfo -}}
  {{- $user := first (splitList ":" $userInfo) -}}
  {{- $password := trimPrefix (printf "%s:" $user) $userInfo -}}
  {{- if not (contains ":" $userInfo) }}{{ $password = "" }}{{ end -}}
  {{- $_ := set $data "username" (include "proxykit.flux.unescape" (dict "value" $user "key" (printf "proxy.%s (user)" $which))) -}}
  {{- $_ := set $data "password" (include "proxykit.flux.unescape" (dict "value" $password "key" (printf "proxy.%s (password)" $which))) -}}
{{- end -}}
{{- $_ := set $data "address" (printf "%s://%s" $parts.scheme $parts.hostPort) -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ required "proxykit.flux.proxySecret: \"name\" is required" .name | quote }}
  namespace: {{ .namespace | default .context.Release.Namespace | quote }}
  labels:
    {{- include "proxykit.labels" (dict "context" .context) | nindent 4 }}
type: Opaque
data:
{{- range $k := list "address" "username" "password" }}
{{- if hasKey $data $k }}
  {{ $k }}: {{ index $data $k | b64enc | quote }}
{{- end }}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
proxykit.flux.unescape — percent-decode the user-info of a URL (ASCII escapes).
Input:  dict "value" <string> "key" <for messages>. Output: the decoded string.
The message for a non-ASCII escape names the key and never shows the value.
*/}}
{{- define "proxykit.flux.unescape" -}}
{{- $parts := regexSplit "%[0-9A-Fa-f]{2}" .value -1 -}}
{{- $escapes := regexFindAll "%[0-9A-Fa-f]{2}" .value -1 -}}
{{- $hex := dict "0" 0 "1" 1 "2" 2 "3" 3 "4" 4 "5" 5 "6" 6 "7" 7 "8" 8 "9" 9 "a" 10 "b" 11 "c" 12 "d" 13 "e" 14 "f" 15 -}}
{{- /* one pass, left to right: "%2541" is "%41", not "A" */ -}}
{{- range $i, $part := $parts -}}
  {{- $part -}}
  {{- if lt $i (len $escapes) -}}
    {{- $escape := lower (index $escapes $i) -}}
    {{- $code := add (mul (index $hex (substr 1 2 $escape)) 16) (index $hex (substr 2 3 $escape)) -}}
    {{- if gt $code 127 -}}
      {{- fail (printf "proxykit.flux.proxySecret: %s holds an escape of a non-ASCII byte, which Flux's Secret cannot carry decoded; write the character itself" $.key) -}}
    {{- end -}}
    {{- printf "%c" $code -}}
  {{- end -}}
{{- end -}}
{{- end -}}
