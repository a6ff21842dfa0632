{{/* http-proxy.labels — labels on every object of this chart. */}}
{{- define "http-proxy.labels" -}}
{{ include "proxykit.labels" (dict "context" . "name" "http-proxy") }}
{{- end -}}

{{/* http-proxy.selector — the labels the Service selects the DaemonSet's Pods by. */}}
{{- define "http-proxy.selector" -}}
app.kubernetes.io/name: http-proxy
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
http-proxy.upstream — the upstream proxy, checked.
Output: JSON {"line": the tinyproxy Upstream line or "", "credentials": bool}.
tinyproxy reads `Upstream http user:password@host:port`: no https upstream, a
port is required, the password may not hold "@" and the user not ":". Messages
never show the password.
*/}}
{{- define "http-proxy.upstream" -}}
{{- $url := .Values.upstream.url | default "" | trim -}}
{{- $out := dict "line" "" "credentials" false -}}
{{- if $url -}}
  {{- /* tinyproxy sends the user-info as written, escapes and all: only "@" matters to it */ -}}
  {{- $credentials := include "proxykit.validate.proxyURL" (dict "value" $url "key" "upstream.url" "literalUserInfo" true) -}}
  {{- if not (hasPrefix "http://" (lower $url)) -}}
    {{- fail "http-proxy: upstream.url: tinyproxy speaks plain HTTP to its upstream; use http://" -}}
  {{- end -}}
  {{- $parts := include "proxykit.url.split" $url | fromJson -}}
  {{- $userInfo := $parts.userInfo -}}
  {{- $rest := $parts.hostPort -}}
  {{- if $userInfo -}}
    {{- if or (not (contains ":" $userInfo)) (contains "@" $userInfo) -}}
      {{- fail "http-proxy: upstream.url: tinyproxy needs user:password@ with no \"@\" in the password (the URL is not shown: it holds credentials)" -}}
    {{- end -}}
  {{- end -}}
  {{- if not (regexMatch ":[0-9]+$" $rest) -}}
    {{- fail "http-proxy: upstream.url: tinyproxy needs the upstream's port, as in http://proxy.corp.example:3128" -}}
  {{- end -}}
  {{- $_ := set $out "line" (printf "Upstream http %s%s" (ternary (printf "%s@" $userInfo) "" (ne $userInfo "")) $rest) -}}
  {{- $_ := set $out "credentials" (eq $credentials "credentials") -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
http-proxy.config — tinyproxy.conf, rendered from values.
Allow lists loopback, cluster.podCIDRs, cluster.nodeCIDRs (read through the
proxykit library) and tinyproxy.allow: tinyproxy serves everyone when no Allow
line is given, so the render fails when no network is known. ConnectPort is
never empty for the same reason: without it CONNECT reaches any port.
*/}}
{{- define "http-proxy.config" -}}
{{- $t := .Values.tinyproxy -}}
{{- $facts := include "proxykit.cluster.facts" (dict "context" $) | fromJson -}}
{{- if not (or $facts.podCIDRs $facts.nodeCIDRs) -}}
  {{- fail "http-proxy: set cluster.podCIDRs and cluster.nodeCIDRs: tinyproxy allows only the cluster's own networks, and none is known" -}}
{{- end -}}
{{- $allow := concat (list "127.0.0.1" "::1") $facts.podCIDRs $facts.nodeCIDRs -}}
{{- range $i, $a := $t.allow | default list -}}
  {{- $key := printf "tinyproxy.allow[%d]" $i -}}
  {{- $a = toString $a | trim -}}
  {{- if contains "/" $a -}}
    {{- include "proxykit.validate.cidr" (dict "value" $a "key" $key) -}}
  {{- else if not (include "proxykit.validate.ipVersion" $a) -}}
    {{- fail (printf "http-proxy: %s: %q is not an IP address or CIDR" $key $a) -}}
  {{- end -}}
  {{- $allow = append $allow $a -}}
{{- end -}}
{{- if not $t.connectPorts -}}
  {{- fail "http-proxy: tinyproxy.connectPorts is empty: tinyproxy would then tunnel CONNECT to any port; list the ports, e.g. [443]" -}}
{{- end -}}
{{- range $i, $p := $t.connectPorts -}}
  {{- if not (and (kindIs "float64" $p) (eq (floor $p) $p) (ge $p 1.0) (le $p 65535.0)) -}}
    {{- if not (and (kindIs "int" $p) (ge $p 1) (le $p 65535)) -}}
      {{- fail (printf "http-proxy: tinyproxy.connectPorts[%d]: %v is not a port from 1 to 65535" $i $p) -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- if not (has $t.logLevel (list "Critical" "Error" "Warning" "Notice" "Connect" "Info")) -}}
  {{- fail (printf "http-proxy: tinyproxy.logLevel: %q is not one of Critical, Error, Warning, Notice, Connect, Info" (toString $t.logLevel)) -}}
{{- end -}}
{{- $upstream := include "http-proxy.upstream" . | fromJson -}}
# tinyproxy.conf rendered by the http-proxy chart
Port {{ int $t.port }}
{{- with $t.listen }}
{{- if not (include "proxykit.validate.ipVersion" (toString .)) }}
{{- fail (printf "http-proxy: tinyproxy.listen: %q is not an IP address" (toString .)) }}
{{- end }}
Listen {{ . }}
{{- end }}
Timeout {{ int $t.timeout }}
MaxClients {{ int $t.maxClients }}
LogLevel {{ $t.logLevel }}
{{- range $allow }}
Allow {{ . }}
{{- end }}
{{- range $t.connectPorts }}
ConnectPort {{ int . }}
{{- end }}
{{- with $upstream.line }}
{{ . }}
{{- range $site := concat (list (printf ".%s" $facts.domain)) (include "http-proxy.noUpstream" $ | fromJsonArray) }}
Upstream none {{ toJson $site }}
{{- end }}
{{- end }}
{{ end -}}

{{/*
http-proxy.noUpstream — upstream.noUpstream as tinyproxy reads a site of
"Upstream none": a host name, a domain (".corp.example"; "*.corp.example" is
written so), an IP address or a CIDR. Anything else fails naming the entry:
tinyproxy stops at a site it cannot read ("" or "*"), and the cluster's proxy
would crash-loop.
Output: JSON list of the sites.
*/}}
{{- define "http-proxy.noUpstream" -}}
{{- $sites := list -}}
{{- $list := .Values.upstream.noUpstream | default list -}}
{{- if not (kindIs "slice" $list) -}}
  {{- fail (printf "http-proxy: upstream.noUpstream must be a list, got %s" (kindOf $list)) -}}
{{- end -}}
{{- range $i, $entry := $list -}}
  {{- $key := printf "upstream.noUpstream[%d]" $i -}}
  {{- if not (kindIs "string" $entry) -}}
    {{- fail (printf "http-proxy: %s must be a string, got %s" $key (kindOf $entry)) -}}
  {{- end -}}
  {{- $site := trim $entry -}}
  {{- if or (eq $site "") (eq $site "*") (eq $site ".") -}}
    {{- fail (printf "http-proxy: %s: %q is no site: tinyproxy refuses it and stops; to send nothing to the upstream, leave upstream.url empty" $key $site) -}}
  {{- end -}}
  {{- $site = ternary (trimPrefix "*" $site) $site (hasPrefix "*." $site) -}}
  {{- $ok := false -}}
  {{- if contains "/" $site -}}
    {{- include "proxykit.validate.cidr" (dict "value" $site "key" $key) -}}
    {{- $ok = true -}}
  {{- else if include "proxykit.validate.host" (trimPrefix "." $site) -}}
    {{- $ok = true -}}
  {{- end -}}
  {{- if not $ok -}}
    {{- fail (printf "http-proxy: %s: %q is not a host name, a domain (.corp.example), an IP address or a CIDR" $key $site) -}}
  {{- end -}}
  {{- $sites = append $sites $site -}}
{{- end -}}
{{- toJson $sites -}}
{{- end -}}
