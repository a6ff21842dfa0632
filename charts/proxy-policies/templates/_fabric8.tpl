{{- /*
Which containers may run the fabric8 Kubernetes client (Jenkins' Kubernetes cloud, the
Spark, Flink, Keycloak and Strimzi operators), in the policies' two languages, as
inject decides it (inject.MayRunFabric8): such a container gets NO_PROXY without its
bracketed entries (proxykit.proxy.env "fabric8"), which fabric8 would throw on for a
destination no entry matches. TestProxyPoliciesFabric8Words holds the words to Go's.
*/ -}}

{{/*
proxy-policies.fabric8.imageWords — the words of an image's name that mark a JVM
(noproxy.JVMImageWords), as one RE2 alternation. Input: none. Output: a string.
*/}}
{{- define "proxy-policies.fabric8.imageWords" -}}
java|jdk|jre|temurin|corretto|zulu|graalvm|jvm|jenkins|spark|flink|strimzi|kafka|keycloak|camel
{{- end -}}

{{/*
proxy-policies.fabric8.javaVariables — where a JVM takes flags (noproxy.JavaOptionVariables).
Input: none. Output: JSON list of names.
*/}}
{{- define "proxy-policies.fabric8.javaVariables" -}}
["JAVA_TOOL_OPTIONS","JDK_JAVA_OPTIONS","JAVA_OPTS","JAVA_OPTS_APPEND","_JAVA_OPTIONS"]
{{- end -}}

{{/*
proxy-policies.cel.mayRunFabric8 — whether container c may run the fabric8 Kubernetes
client, as inject decides it (inject.MayRunFabric8): it sets a JVM option variable of
its own (a valueFrom, or a value other than the proxy's JAVA_TOOL_OPTIONS alone, so
that a second pass decides as the first), its image's name (not its registry or tag)
holds a word of noproxy.JVMImageWords (one regular expression over the image: the
last path segment, before its tag), or its command (then args) starts with java.
Input: dict "flags" <CEL expression of the proxy's JAVA_TOOL_OPTIONS, or "">.
Output: a CEL bool expression over c.
*/}}
{{- define "proxy-policies.cel.mayRunFabric8" -}}
{{- $words := include "proxy-policies.fabric8.imageWords" . -}}
{{- $vars := include "proxy-policies.fabric8.javaVariables" . | fromJsonArray -}}
(has(c.env) && c.env.exists(e, e.name in {{ toJson $vars }} && (has(e.valueFrom) || has(e.value) && e.value != ""{{ with .flags }} && e.value != {{ . }}{{ end }}))) ||
      has(c.image) && c.image.lowerAscii().matches({{ printf "(^|/)[^/:]*(%s)[^/:]*(:[^/]*)?$" $words | toJson }}) ||
      [(has(c.command) ? c.command : []) + (has(c.args) ? c.args : [])].exists(w, size(w) > 0 && (w[0] == "java" || w[0].endsWith("/java")))
{{- end -}}

{{/*
proxy-policies.jmes.mayRunFabric8 — proxy-policies.cel.mayRunFabric8 in JMESPath, for the
ClusterPolicy's context.
Input: dict "c" <JMESPath expression of the container> "flags" <the proxy's JAVA_TOOL_OPTIONS, or "">.
Output: a JMESPath bool expression.
*/}}
{{- define "proxy-policies.jmes.mayRunFabric8" -}}
{{- $vars := include "proxy-policies.fabric8.javaVariables" . -}}
{{- $first := printf "(([%s.command || `[]`, %s.args || `[]`][])[0] || '')" .c .c -}}
length({{ .c }}.env[?contains(`{{ $vars }}`, name) && (valueFrom || (value && value != `{{ toJson .flags }}`))] || `[]`) > `0` || regex_match('(^|/)[^/:]*({{ include "proxy-policies.fabric8.imageWords" . }})[^/:]*(:[^/]*)?$', to_lower({{ .c }}.image || '')) || {{ $first }} == 'java' || ends_with({{ $first }}, '/java')
{{- end -}}
