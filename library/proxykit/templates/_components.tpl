{{/*
Values for components that take proxy settings their own way: the resolved
settings written under the keys a given chart expects.
*/}}

{{/*
proxykit.components.keys — the ready mappings: per component, where its chart
expects http, https and noProxy (dotted paths).
Output: JSON map.
  cert-manager     the upstream cert-manager chart: http_proxy, https_proxy, no_proxy
  kapp-controller  TKG's kapp-controller package: kappController.config.{httpProxy,httpsProxy,noProxy}
  vsphere-cpi      TKG's vSphere CPI package: vsphereCPI.{http_proxy,https_proxy,no_proxy}
  vsphere-csi      TKG's vSphere CSI package: vsphereCSI.{http_proxy,https_proxy,no_proxy}
*/}}
{{- define "proxykit.components.keys" -}}
{{- toJson (dict
    "cert-manager" (dict "http" "http_proxy" "https" "https_proxy" "noProxy" "no_proxy")
    "kapp-controller" (dict "http" "kappController.config.httpProxy" "https" "kappController.config.httpsProxy" "noProxy" "kappController.config.noProxy")
    "vsphere-cpi" (dict "http" "vsphereCPI.http_proxy" "https" "vsphereCPI.https_proxy" "noProxy" "vsphereCPI.no_proxy")
    "vsphere-csi" (dict "http" "vsphereCSI.http_proxy" "https" "vsphereCSI.https_proxy" "noProxy" "vsphereCSI.no_proxy")) -}}
{{- end -}}

{{/*
proxykit.components.values — the resolved proxy settings under a component's keys.
Input:  dict "context" $ ("component" NAME | "keys" (dict "http" PATH "https" PATH "noProxy" PATH))
        NAME is one of proxykit.components.keys; PATH is dotted, e.g. a.b.httpProxy.
Output: YAML map with the values nested at those paths (an empty URL left out);
        "{}" when the proxy is off. The values carry credentials when the URLs do:
        write them into Secrets only (cluster-proxy does).
*/}}
{{- define "proxykit.components.values" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.components.values") -}}
{{- $s := .context.proxykitSettings -}}
{{- $keys := .keys -}}
{{- if .component -}}
  {{- $known := include "proxykit.components.keys" . | fromJson -}}
  {{- $keys = index $known .component -}}
  {{- if not $keys -}}
    {{- fail (printf "proxykit.components.values: unknown component %q; known: %s" (toString .component) (join ", " (keys $known | sortAlpha))) -}}
  {{- end -}}
{{- end -}}
{{- if not (kindIs "map" $keys) -}}
  {{- fail "proxykit.components.values: pass \"component\" NAME or \"keys\" (dict \"http\" PATH \"https\" PATH \"noProxy\" PATH)" -}}
{{- end -}}
{{- $values := dict -}}
{{- if $s.enabled -}}
  {{- range $name := list "http" "https" "noProxy" -}}
    {{- $value := index $s $name -}}
    {{- $path := index $keys $name | default "" -}}
    {{- if and $value $path -}}
      {{- $node := $values -}}
      {{- $parts := splitList "." $path -}}
      {{- range $i, $part := initial $parts -}}
        {{- if not (hasKey $node $part) }}{{ $_ := set $node $part dict }}{{ end -}}
        {{- $node = index $node $part -}}
      {{- end -}}
      {{- $_ := set $node (last $parts) $value -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- toYaml $values -}}
{{- end -}}

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
    app.kubernetes.io/managed-by: {{ .context.Release.Service | default "Helm" | quote }}
    app.kubernetes.io/part-of: proxykit
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
