{{/*
Proxy URLs taken apart, in one place: the validator, the Flux Secret and the
http-proxy chart's upstream all read a URL's parts through proxykit.url.split.
*/}}

{{/*
proxykit.url.split — a proxy URL's parts; the last "@" ends the user-info.
Input:  a string (not a dict): scheme://[user-info@]host[:port][/]
Output: JSON {"scheme", "userInfo", "hostPort"}: the scheme as written, the
        user-info ("" when none), host[:port] without one trailing "/".
Only splits; proxykit.validate.proxyURL checks. Every reader of a URL's parts
(the Flux Secret, the http-proxy chart's upstream) calls this one.
*/}}
{{- define "proxykit.url.split" -}}
{{- $rest := regexReplaceAll "^[A-Za-z][A-Za-z0-9+.-]*://" . "" -}}
{{- $out := dict "scheme" (trimSuffix "://" (trimSuffix $rest .)) "userInfo" "" -}}
{{- if contains "@" $rest -}}
  {{- $_ := set $out "userInfo" (regexReplaceAll "@[^@]*$" $rest "") -}}
  {{- $rest = regexReplaceAll "^.*@" $rest "" -}}
{{- end -}}
{{- $_ := set $out "hostPort" (trimSuffix "/" $rest) -}}
{{- toJson $out -}}
{{- end -}}
