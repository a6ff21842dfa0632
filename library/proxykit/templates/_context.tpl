{{/*
The root context every helper needs. A helper called with `.` inside `with` or
`range` would see no .Values and silently drop the proxy and defaults.env, so
each public helper checks its argument first.
*/}}

{{/*
proxykit.context.check — fail unless a helper was called with the root context.
Input:  dict "args" <the helper's argument> "helper" <the helper's name, for the message>
Output: nothing. The root context is the map Helm hands to every template: it
        holds Values, Release and Chart.
*/}}
{{- define "proxykit.context.check" -}}
{{- $args := .args -}}
{{- if not (kindIs "map" $args) -}}
  {{- fail (printf "%s: takes (dict \"context\" $), got %s" .helper (kindOf $args)) -}}
{{- end -}}
{{- if not (hasKey $args "context") -}}
  {{- fail (printf "%s: takes (dict \"context\" $); \"context\" is missing" .helper) -}}
{{- end -}}
{{- $ctx := index $args "context" -}}
{{- if not (and (kindIs "map" $ctx) (hasKey $ctx "Values") (hasKey $ctx "Release") (hasKey $ctx "Chart")) -}}
  {{- fail (printf "%s: \"context\" is not the root context (it has no .Values, .Release and .Chart); inside `with` or `range`, `.` is the current item: pass `$` instead, as in (dict \"context\" $)" .helper) -}}
{{- end -}}
{{- end -}}
