{{/* proxy-relay.labels — labels on every object of this chart. */}}
{{- define "proxy-relay.labels" -}}
{{ include "proxykit.labels" (dict "context" . "name" "proxy-relay") }}
{{- end -}}

{{/* proxy-relay.selector — the labels the Service, the PodDisruptionBudget and the NetworkPolicy select the Pods by. */}}
{{- define "proxy-relay.selector" -}}
app.kubernetes.io/name: proxy-relay
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* proxy-relay.credentialsSecret — the Secret the relay reads its credentials from. */}}
{{- define "proxy-relay.credentialsSecret" -}}
{{- .Values.credentials.existingSecret | default (printf "%s-credentials" .Release.Name) -}}
{{- end -}}

{{/*
proxy-relay.settings — the values, checked, as the templates use them.
Output: JSON {"upstream", "scheme", "allow", "noUpstream", "secret": the chart renders
the credentials Secret}. Every failure names its key; none shows a credential.
*/}}
{{- define "proxy-relay.settings" -}}
{{- $v := .Values -}}
{{- $url := $v.upstream.url | default "" | toString | trim -}}
{{- if not $url -}}
  {{- fail "proxy-relay: upstream.url is required: the corporate proxy, http://host:port" -}}
{{- end -}}
{{- if eq (include "proxykit.validate.proxyURL" (dict "value" $url "key" "upstream.url")) "credentials" -}}
  {{- fail "proxy-relay: upstream.url carries user-info; give the user in credentials.username and the password in credentials.password or credentials.existingSecret (the URL is not shown: it holds credentials)" -}}
{{- end -}}
{{- if not (hasPrefix "http://" (lower $url)) -}}
  {{- fail "proxy-relay: upstream.url: the relay speaks plain HTTP to the corporate proxy; use http://" -}}
{{- end -}}
{{- $scheme := $v.upstream.scheme | default "none" | toString | lower -}}
{{- if not (has $scheme (list "none" "basic" "ntlm" "negotiate")) -}}
  {{- fail (printf "proxy-relay: upstream.scheme: %q is not one of none, basic, ntlm, negotiate" $scheme) -}}
{{- end -}}
{{- $c := $v.credentials -}}
{{- $given := or $c.existingSecret $c.username $c.password $c.keytabBase64 -}}
{{- $secret := false -}}
{{- if eq $scheme "none" -}}
  {{- if $given -}}
    {{- fail "proxy-relay: credentials.* are set but upstream.scheme is none: name the scheme the corporate proxy demands (basic, ntlm or negotiate)" -}}
  {{- end -}}
{{- else if $c.existingSecret -}}
  {{- include "proxykit.validate.secretName" (dict "value" $c.existingSecret "key" "credentials.existingSecret") -}}
  {{- if or $c.username $c.password $c.keytabBase64 -}}
    {{- fail "proxy-relay: credentials.existingSecret and credentials.username/password/keytabBase64 are both set: keep the credentials in one place" -}}
  {{- end -}}
{{- else -}}
  {{- if not $c.username -}}
    {{- fail (printf "proxy-relay: upstream.scheme is %s: set credentials.username (and a password or keytab), or credentials.existingSecret" $scheme) -}}
  {{- end -}}
  {{- if and (ne $scheme "negotiate") $c.keytabBase64 -}}
    {{- fail (printf "proxy-relay: credentials.keytabBase64 is for upstream.scheme negotiate, not %s" $scheme) -}}
  {{- end -}}
  {{- if not (or $c.password $c.keytabBase64) -}}
    {{- fail (printf "proxy-relay: upstream.scheme is %s: set credentials.password%s" $scheme (ternary " or credentials.keytabBase64" "" (eq $scheme "negotiate"))) -}}
  {{- end -}}
  {{- if and $c.keytabBase64 (not (regexMatch "^[A-Za-z0-9+/\\s]+={0,2}\\s*$" (toString $c.keytabBase64))) -}}
    {{- fail "proxy-relay: credentials.keytabBase64 is not base64 (encode the keytab file with base64 -w0)" -}}
  {{- end -}}
  {{- include "proxykit.validate.controlChars" (dict "value" (toString $c.username) "key" "credentials.username") -}}
  {{- $secret = true -}}
{{- end -}}
{{- if and (eq $scheme "negotiate") (not (trim (toString ($v.kerberos.krb5Conf | default "")))) -}}
  {{- fail "proxy-relay: upstream.scheme is negotiate: set kerberos.krb5Conf (the krb5.conf that names the realm and its KDCs)" -}}
{{- end -}}
{{- include "proxykit.validate.controlChars" (dict "value" (toString ($v.kerberos.krb5Conf | default "")) "key" "kerberos.krb5Conf" "multiline" true) -}}
{{- $spn := toString ($v.upstream.spn | default "") | trim -}}
{{- if and $spn (not (regexMatch "^[A-Za-z0-9._/@-]+$" $spn)) -}}
  {{- fail "proxy-relay: upstream.spn is not a Kerberos principal such as HTTP/proxy.corp.example or HTTP/proxy.corp.example@CORP.EXAMPLE" -}}
{{- end -}}
{{- $facts := include "proxykit.cluster.facts" (dict "context" $) | fromJson -}}
{{- if not (or $facts.podCIDRs $facts.nodeCIDRs $v.allow) -}}
  {{- fail "proxy-relay: set cluster.podCIDRs and cluster.nodeCIDRs (or allow): the relay serves only the networks it is given, and none is known" -}}
{{- end -}}
{{- $allow := concat $facts.podCIDRs $facts.nodeCIDRs -}}
{{- range $i, $a := $v.allow | default list -}}
  {{- $key := printf "allow[%d]" $i -}}
  {{- $a = toString $a | trim -}}
  {{- if contains "/" $a -}}
    {{- include "proxykit.validate.cidr" (dict "value" $a "key" $key) -}}
  {{- else if not (include "proxykit.validate.ipVersion" $a) -}}
    {{- fail (printf "proxy-relay: %s: %q is not an IP address or CIDR" $key $a) -}}
  {{- end -}}
  {{- $allow = append $allow $a -}}
{{- end -}}
{{- $noUpstream := list $facts.domain -}}
{{- $noUpstream = concat $noUpstream $facts.serviceCIDRs $facts.podCIDRs $facts.nodeCIDRs -}}
{{- $own := include "proxykit.validate.list" (dict "value" $v.upstream.noUpstream "key" "upstream.noUpstream") | fromJsonArray -}}
{{- range $i, $e := $own -}}
  {{- if or (eq $e "*") (eq $e ".") -}}
    {{- fail (printf "proxy-relay: upstream.noUpstream: %q would send every destination around the corporate proxy" $e) -}}
  {{- end -}}
  {{- $noUpstream = append $noUpstream $e -}}
{{- end -}}
{{- $replicas := $v.replicas -}}
{{- if not (and (kindIs "float64" $replicas) (eq (floor $replicas) $replicas) (ge $replicas 1.0)) -}}
  {{- if not (and (kindIs "int" $replicas) (ge $replicas 1)) -}}
    {{- fail (printf "proxy-relay: replicas: %v is not a whole number of 1 or more" $replicas) -}}
  {{- end -}}
{{- end -}}
{{- range $key := list "proxy" "metrics" -}}
  {{- include "proxykit.validate.port" (dict "value" (toString (index $v.ports $key)) "key" (printf "ports.%s" $key)) -}}
{{- end -}}
{{- if not (regexMatch "^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$" (toString $v.connections.idleTimeout)) -}}
  {{- fail (printf "proxy-relay: connections.idleTimeout: %q is not a duration such as 90s, 10m or 1h" (toString $v.connections.idleTimeout)) -}}
{{- end -}}
{{- $max := $v.connections.max -}}
{{- if not (or (and (kindIs "float64" $max) (eq (floor $max) $max) (ge $max 1.0)) (and (kindIs "int" $max) (ge $max 1))) -}}
  {{- fail (printf "proxy-relay: connections.max: %v is not a whole number of 1 or more" $max) -}}
{{- end -}}
{{- if eq (int $v.ports.proxy) (int $v.ports.metrics) -}}
  {{- fail "proxy-relay: ports.proxy and ports.metrics are the same port" -}}
{{- end -}}
{{- toJson (dict "upstream" $url "scheme" $scheme "spn" $spn "allow" (uniq $allow) "noUpstream" (uniq $noUpstream) "secret" $secret) -}}
{{- end -}}
