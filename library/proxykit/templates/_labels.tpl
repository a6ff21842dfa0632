{{/*
proxykit.labels — the labels of every object proxykit renders.
Input:  dict "context" $ ["name" <app.kubernetes.io/name>]
Output: YAML map: app.kubernetes.io/name and app.kubernetes.io/instance (the release)
        when "name" is given, app.kubernetes.io/managed-by (the release service, Helm),
        app.kubernetes.io/part-of: proxykit. The library's own Secrets carry it, and so
        does every object of the charts built on it.
*/}}
{{- define "proxykit.labels" -}}
{{- if .name -}}
app.kubernetes.io/name: {{ .name | quote }}
app.kubernetes.io/instance: {{ .context.Release.Name | quote }}
{{ end -}}
app.kubernetes.io/managed-by: {{ .context.Release.Service | default "Helm" | quote }}
app.kubernetes.io/part-of: proxykit
{{- end -}}
