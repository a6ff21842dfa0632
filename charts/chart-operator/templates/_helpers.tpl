{{/* chart-operator.labels — labels on every object of this chart. */}}
{{- define "chart-operator.labels" -}}
app.kubernetes.io/name: chart-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
chart-operator.bootstrapEnv — literals that point the operator at the API server
endpoint in bootstrap mode, when the kubernetes Service is not routable yet.
Output: EnvVar list (YAML), empty when bootstrap mode is off.
*/}}
{{- define "chart-operator.bootstrapEnv" -}}
{{- $b := .Values.chartOperator.bootstrap -}}
{{- if $b.enabled -}}
{{- $host := $b.apiServerHost | default .Values.cluster.apiServer -}}
{{- if not $host -}}
  {{- fail "chart-operator: chartOperator.bootstrap.apiServerHost (or cluster.apiServer) is required when chartOperator.bootstrap.enabled is true" -}}
{{- end -}}
{{- toYaml (list (dict "name" "KUBERNETES_SERVICE_HOST" "value" $host) (dict "name" "KUBERNETES_SERVICE_PORT" "value" (toString $b.apiServerPort))) -}}
{{- else -}}
[]
{{- end -}}
{{- end -}}
