{{/*
proxykit.certManager.values — values for the upstream cert-manager chart.
Input:  dict "context" $
Output: YAML map. Without credentials: the chart's own keys http_proxy, https_proxy,
        no_proxy (empty ones left out). With credentials (user-info in a URL, or
        proxy.existingSecret): those keys would become plain env values in the
        controller Deployment, so the map holds extraEnv instead, a list of
        secretKeyRefs into proxykit.proxy.secretName; that Secret must exist in
        cert-manager's namespace. "{}" when the proxy is off.
With a trusted CA, extraEnv also holds the trust variables and volumes and
volumeMounts mount the bundle (proxykit.trust.*), both keys of the upstream chart.
The NO_PROXY includes the service CIDR and API server, which cert-manager's leader
election needs to reach the API server without the proxy.
*/}}
{{- define "proxykit.certManager.values" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.certManager.values") -}}
{{- $s := .context.proxykitSettings -}}
{{- $values := dict -}}
{{- if $s.credentials -}}
  {{- $values = dict "extraEnv" $s.env -}}
{{- else -}}
  {{- $values = include "proxykit.components.values" (dict "context" .context "component" "cert-manager") | fromYaml -}}
{{- end -}}
{{- if $s.trustedCA -}}
  {{- /* cert-manager talks to ACME servers through the proxy: give its controller the bundle */ -}}
  {{- $_ := set $values "extraEnv" (concat ($values.extraEnv | default list) (include "proxykit.trust.env" . | fromYamlArray)) -}}
  {{- $_ := set $values "volumes" (include "proxykit.trust.volumes" . | fromYamlArray) -}}
  {{- $_ := set $values "volumeMounts" (include "proxykit.trust.volumeMounts" . | fromYamlArray) -}}
{{- end -}}
{{- toYaml $values -}}
{{- end -}}
