{{/* cluster-proxy.name — clusterName, checked once for every object that carries it. */}}
{{- define "cluster-proxy.name" -}}
{{- $_ := include "proxykit.kubeadm.secretName" (dict "context" $) -}}
{{- .Values.clusterName -}}
{{- end -}}

{{/* cluster-proxy.labels — labels on every object of this chart. */}}
{{- define "cluster-proxy.labels" -}}
app.kubernetes.io/name: cluster-proxy
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: proxykit
proxykit.io/cluster: {{ include "cluster-proxy.name" . }}
{{- end -}}
