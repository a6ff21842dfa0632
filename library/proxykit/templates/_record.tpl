{{/*
The record of the proxy configuration a Pod was given. Whatever injects the proxy
(generateEnv through proxykit.proxy.annotations, proxykit inject, the three engines of
proxy-policies) writes it on the Pod as the annotation proxykit.io/proxy-config, and
proxykit.proxy.secret writes the same value on the Secret it renders. Pod env is
immutable and a Secret is read only when a container starts, so `proxykit audit`
compares the two: a Pod whose record differs from what its Secret (or the values)
gives now started on an old configuration.
*/}}

{{/*
proxykit.record.digest — the record of resolved settings, computed once per render.
Input:  the settings map of proxykit.resolve.settings.
Output: "v1-" and 32 hex digits of a SHA-256 over what reaches a container: the proxy
        URLs without user-info, NO_PROXY, lowercase, runtimes with the JVM's flags, the
        trusted CA and where Pods read it, and proxy.existingSecret; nothing when the proxy is off. User-info
        enters only through derivePassword (scrypt, salted with the rest of the
        configuration), so the annotation, which anyone who reads Pods reads, costs a
        password guess as much as a stored password hash does, and a rotated password
        still changes the record.
*/}}
{{- define "proxykit.record.digest" -}}
{{- $s := . -}}
{{- if not (hasKey $s "record") -}}
  {{- $record := "" -}}
  {{- if $s.enabled -}}
    {{- $in := dict "v" 1 "noProxy" $s.noProxy "lowercase" $s.lowercase "runtimes" $s.runtimes "javaOptions" $s.javaOptions "existingSecret" $s.existingSecret -}}
    {{- if $s.trustedCA }}{{ $_ := set $in "trustedCA" (sha256sum $s.trustedCA) }}{{ end -}}
    {{- /* only when not the default, so that the records of every Pod started before it stay equal */ -}}
    {{- if and $s.trustedCA (ne $s.trustBundle "configMap") }}{{ $_ := set $in "trustBundle" $s.trustBundle }}{{ end -}}
    {{- $userinfo := list -}}
    {{- range $name := list "http" "https" -}}
      {{- with index $s $name -}}
        {{- $url := urlParse . -}}
        {{- $_ := set $in $name (printf "%s://%s%s" $url.scheme $url.host $url.path) -}}
        {{- if $url.userinfo }}{{ $userinfo = append $userinfo (printf "%s=%s" $name $url.userinfo) }}{{ end -}}
      {{- end -}}
    {{- end -}}
    {{- if $userinfo -}}
      {{- $_ := set $in "credentials" (derivePassword 1 "maximum" (join "\n" $userinfo) (toJson $in) "proxykit.io/proxy-config") -}}
    {{- end -}}
    {{- $record = printf "v1-%s" (sha256sum (toJson $in) | trunc 32) -}}
  {{- end -}}
  {{- $_ := set $s "record" $record -}}
{{- end -}}
{{- $s.record -}}
{{- end -}}

{{/*
proxykit.proxy.record — the record of the proxy configuration these values give.
Input:  dict "context" $
Output: e.g. "v1-3f0c...": the value of the proxykit.io/proxy-config annotation; nothing
        when the proxy is off. Never a credential.
*/}}
{{- define "proxykit.proxy.record" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.record") -}}
{{- include "proxykit.record.digest" .context.proxykitSettings -}}
{{- end -}}

{{/*
proxykit.proxy.annotations — the record as pod template annotations.
Input:  dict "context" $
Output: YAML map {proxykit.io/proxy-config: <record>}; nothing when the proxy is off.
        Pods of a template that calls proxykit.generateEnv carry it, so `proxykit audit`
        tells which of them started before the proxy, a password or NO_PROXY changed.
Usage:  template:
          metadata:
            annotations:
              {{ "{{-" }} include "proxykit.proxy.annotations" (dict "context" $) | nindent 14 }}
*/}}
{{- define "proxykit.proxy.annotations" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.annotations") -}}
{{- with include "proxykit.record.digest" .context.proxykitSettings -}}
proxykit.io/proxy-config: {{ . | quote }}
{{- end -}}
{{- end -}}
