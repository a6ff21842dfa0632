{{/* cluster-proxy.name — clusterName, checked once for every object that carries it. */}}
{{- define "cluster-proxy.name" -}}
{{- $_ := include "proxykit.kubeadm.secretName" (dict "context" $) -}}
{{- .Values.clusterName -}}
{{- end -}}

{{/* cluster-proxy.labels — labels on every object of this chart. */}}
{{- define "cluster-proxy.labels" -}}
{{ include "proxykit.labels" (dict "context" . "name" "cluster-proxy") }}
proxykit.io/cluster: {{ include "cluster-proxy.name" . }}
{{- end -}}
