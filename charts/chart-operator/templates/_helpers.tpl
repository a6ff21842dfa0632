{{/* chart-operator.labels — labels on every object of this chart. */}}
{{- define "chart-operator.labels" -}}
{{ include "proxykit.labels" (dict "context" . "name" "chart-operator") }}
{{- end -}}

{{/*
chart-operator.bootstrapEnv — literals that point the operator at the API server
endpoint in bootstrap mode, when the kubernetes Service is not routable yet.
Output: EnvVar list (YAML), empty when bootstrap mode is off.
The host must be the control-plane endpoint: cluster.apiServer is the Service
ClusterIP, which serves 443 and is unreachable from the host network before
the CNI is up. The endpoint is added to this container's NO_PROXY (and
no_proxy), as plain values: NO_PROXY never carries credentials. With
proxy.existingSecret, NO_PROXY comes from that Secret and must list it there.
*/}}
{{- define "chart-operator.bootstrapEnv" -}}
{{- $b := .Values.chartOperator.bootstrap -}}
{{- $env := list -}}
{{- if $b.enabled -}}
{{- $host := $b.apiServerHost | default "" | trim -}}
{{- if not $host -}}
  {{- fail "chart-operator: chartOperator.bootstrap.apiServerHost is required when chartOperator.bootstrap.enabled is true: the control-plane endpoint (host or IP, without port), not cluster.apiServer, the Service ClusterIP that is unreachable before the CNI" -}}
{{- end -}}
{{- /* client-go joins it with the port itself: a bare DNS name or IP address, IPv6 without brackets */ -}}
{{- if not (include "proxykit.validate.host" $host) -}}
  {{- fail (printf "chart-operator: chartOperator.bootstrap.apiServerHost: %q is not a host name or an IP address; give the host alone (the port goes in chartOperator.bootstrap.apiServerPort, an IPv6 address without brackets, no wildcard)" $host) -}}
{{- end -}}
{{- $env = list (dict "name" "KUBERNETES_SERVICE_HOST" "value" $host) (dict "name" "KUBERNETES_SERVICE_PORT" "value" (toString $b.apiServerPort)) -}}
{{- $noProxy := include "proxykit.proxy.noProxy" (dict "context" . "extra" (list $host) "extraKey" "chartOperator.bootstrap.apiServerHost") -}}
{{- if not (dig "existingSecret" "" .Values.proxy) -}}
  {{- range $e := include "proxykit.proxy.env" (dict "context" .) | fromYamlArray -}}
    {{- if eq (upper $e.name) "NO_PROXY" -}}
      {{- $env = append $env (dict "name" $e.name "value" $noProxy) -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}
