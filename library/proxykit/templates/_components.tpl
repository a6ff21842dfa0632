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
