{{/*
Resolution of the proxy settings from the consuming chart's values. Every public
helper reads its settings from here, so there is one source of truth.
*/}}

{{/*
proxykit.resolve.section — fail unless a values section is a map (or absent).
Input:  dict "value" <any> "key" <values key named in the message>
Output: nothing.
*/}}
{{- define "proxykit.resolve.section" -}}
{{- if not (or (kindIs "invalid" .value) (kindIs "map" .value)) -}}
  {{- fail (printf "proxykit: %s must be a map, got %s" .key (kindOf .value)) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.resolve.settings — the resolved proxy settings, computed once per chart render.
Input:  dict "context" $
Output: JSON (decode with fromJson):
  enabled        bool    the proxy is on (a resolved URL, or proxy.existingSecret)
  http, https    string  resolved URLs, exactly as written in values
  noProxy        string  the full NO_PROXY (see proxykit.noProxy.compose)
  credentials    bool    a URL carries user-info, or proxy.existingSecret is set
  existingSecret string  proxy.existingSecret
  secretName     string  the Secret that secretKeyRefs point at
  lowercase      bool    also emit http_proxy, https_proxy, no_proxy
Per key (http, https, noProxy): proxy > cluster.proxy > global.proxy; "" and [] count as unset.
The result is cached on the context: values do not change during a render.
*/}}
{{- define "proxykit.resolve.settings" -}}
{{- $ctx := .context -}}
{{- if not (kindIs "map" $ctx) -}}
  {{- fail "proxykit: helpers take (dict \"context\" $); \"context\" is missing" -}}
{{- end -}}
{{- $cached := index $ctx "proxykitResolvedSettings" -}}
{{- if $cached -}}
{{- $cached -}}
{{- else -}}
{{- $values := $ctx.Values | default dict -}}
{{- $sections := dict -}}
{{- range $key := list "proxy" "cluster" "global" -}}
  {{- $section := index $values $key -}}
  {{- include "proxykit.resolve.section" (dict "value" $section "key" $key) -}}
  {{- $_ := set $sections $key ($section | default dict) -}}
{{- end -}}
{{- $clusterProxy := index $sections.cluster "proxy" -}}
{{- include "proxykit.resolve.section" (dict "value" $clusterProxy "key" "cluster.proxy") -}}
{{- $globalProxy := index $sections.global "proxy" -}}
{{- include "proxykit.resolve.section" (dict "value" $globalProxy "key" "global.proxy") -}}
{{- $tiers := list (list "proxy" $sections.proxy) (list "cluster.proxy" ($clusterProxy | default dict)) (list "global.proxy" ($globalProxy | default dict)) -}}

{{- /* pick each key from the first tier that sets it */ -}}
{{- $picked := dict -}}
{{- $from := dict "http" "proxy.http" "https" "proxy.https" "noProxy" "proxy.noProxy" -}}
{{- range $name := list "http" "https" "noProxy" -}}
  {{- range $tier := $tiers -}}
    {{- $key := printf "%s.%s" (index $tier 0) $name -}}
    {{- $value := index (index $tier 1) $name -}}
    {{- if not (hasKey $picked $name) -}}
      {{- if kindIs "string" $value -}}
        {{- if trim $value -}}
          {{- $_ := set $picked $name (trim $value) -}}
          {{- $_ := set $from $name $key -}}
        {{- end -}}
      {{- else if and (eq $name "noProxy") (kindIs "slice" $value) -}}
        {{- if $value -}}
          {{- $_ := set $picked $name $value -}}
          {{- $_ := set $from $name $key -}}
        {{- end -}}
      {{- else if not (kindIs "invalid" $value) -}}
        {{- fail (printf "proxykit: %s must be a %s, got %s" $key (ternary "list or a comma-separated string" "string" (eq $name "noProxy")) (kindOf $value)) -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
{{- end -}}

{{- $http := index $picked "http" | default "" -}}
{{- $https := index $picked "https" | default "" -}}
{{- $credentials := false -}}
{{- range $name, $url := dict "http" $http "https" $https -}}
  {{- if $url -}}
    {{- if include "proxykit.validate.proxyURL" (dict "value" $url "key" (index $from $name)) -}}
      {{- $credentials = true -}}
    {{- end -}}
  {{- end -}}
{{- end -}}

{{- $existingSecret := index $sections.proxy "existingSecret" | default "" -}}
{{- if not (kindIs "string" $existingSecret) -}}
  {{- fail (printf "proxykit: proxy.existingSecret must be a string, got %s" (kindOf $existingSecret)) -}}
{{- end -}}
{{- $existingSecret = trim $existingSecret -}}
{{- $secretName := $existingSecret -}}
{{- if not $secretName -}}
  {{- $release := "proxykit" -}}
  {{- if and $ctx.Release $ctx.Release.Name -}}{{- $release = $ctx.Release.Name -}}{{- end -}}
  {{- $secretName = printf "%s-proxy-credentials" ($release | trunc 44 | trimSuffix "-") -}}
{{- end -}}

{{- $lowercase := true -}}
{{- if hasKey $sections.proxy "lowercase" -}}
  {{- $lowercase = index $sections.proxy "lowercase" -}}
  {{- if not (kindIs "bool" $lowercase) -}}
    {{- fail (printf "proxykit: proxy.lowercase must be true or false, got %s" (kindOf $lowercase)) -}}
  {{- end -}}
{{- end -}}

{{- $enabled := or (ne $http "") (ne $https "") (ne $existingSecret "") -}}
{{- /* composed even when the proxy is off, so bad CIDRs fail early */ -}}
{{- $noProxy := include "proxykit.noProxy.compose" (dict "cluster" $sections.cluster "entries" (index $picked "noProxy") "entriesKey" (index $from "noProxy")) -}}
{{- if not $enabled }}{{ $noProxy = "" }}{{ end -}}

{{- $settings := dict
    "enabled" $enabled
    "http" $http
    "https" $https
    "noProxy" $noProxy
    "credentials" (or $credentials (ne $existingSecret ""))
    "existingSecret" $existingSecret
    "secretName" $secretName
    "lowercase" $lowercase -}}
{{- $json := toJson $settings -}}
{{- $_ := set $ctx "proxykitResolvedSettings" $json -}}
{{- $json -}}
{{- end -}}
{{- end -}}
