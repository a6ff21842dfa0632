{{/* proxy-policies.labels — labels on every object of this chart. */}}
{{- define "proxy-policies.labels" -}}
{{ include "proxykit.labels" (dict "context" . "name" "proxy-policies") }}
{{- end -}}

{{/*
proxy-policies.excludedNamespaces — kube-system (always, also when namespaces.exclude
is set), namespaces.exclude (patterns with * and ?), the release namespace and,
with Kyverno, the engine's namespace. Output: JSON list.
*/}}
{{- define "proxy-policies.excludedNamespaces" -}}
{{- $ns := concat (list "kube-system") (.Values.namespaces.exclude | default list) (list .Release.Namespace) -}}
{{- if .Values.kyverno.enabled }}{{ $ns = append $ns .Values.kyverno.namespace }}{{ end -}}
{{- toJson (uniq $ns) -}}
{{- end -}}

{{/*
proxy-policies.containerLists — the Pod spec lists that get proxy env. Output: JSON list.
*/}}
{{- define "proxy-policies.containerLists" -}}
{{- toJson (list "containers" "initContainers" "ephemeralContainers") -}}
{{- end -}}

{{/*
proxy-policies.optOutAnnotations — a Pod carrying any of these is left alone: the
library's vocabulary (proxykit.optOut.annotations). Output: JSON map.
*/}}
{{- define "proxy-policies.optOutAnnotations" -}}
{{- toJson (include "proxykit.optOut.annotations" . | fromJson).pod -}}
{{- end -}}

{{/*
proxy-policies.skipContainersAnnotation — a Pod annotation listing containers (of any
list, comma-separated) that get no proxy: "metrics,envoy". Output: the key, from the
library's vocabulary.
*/}}
{{- define "proxy-policies.skipContainersAnnotation" -}}
{{- (include "proxykit.optOut.annotations" . | fromJson).skipContainers -}}
{{- end -}}

{{/*
proxy-policies.globRegex — a name pattern with * and ? as an anchored RE2 regex.
Input: a string. Output: the regex.
*/}}
{{- define "proxy-policies.globRegex" -}}
{{- printf "^%s$" (regexQuoteMeta . | replace "\\*" ".*" | replace "\\?" ".") -}}
{{- end -}}

{{/*
proxy-policies.celMatchesAny — whether a name matches any of some patterns (* and ?),
as a CEL boolean expression: names without a wildcard by list membership, the others
by a regex written as a literal, which the API server and Kyverno compile once with
the policy rather than once per request (a regex taken from a list is compiled at
every evaluation).
Input: dict "patterns" <list> "subject" <a CEL string expression>.
Output: e.g. [object.metadata.name].exists(s, s in ["apps"] || s.matches("^kube-.*$")).
*/}}
{{- define "proxy-policies.celMatchesAny" -}}
{{- $names := list -}}
{{- $tests := list -}}
{{- range $p := .patterns -}}
  {{- if regexMatch "[*?]" $p -}}
    {{- $tests = append $tests (printf "s.matches(%s)" (toJson (include "proxy-policies.globRegex" $p))) -}}
  {{- else if not (has $p $names) -}}
    {{- $names = append $names $p -}}
  {{- end -}}
{{- end -}}
{{- if $names }}{{ $tests = prepend $tests (printf "s in %s" (include "proxy-policies.celStrings" $names)) }}{{ end -}}
{{- printf "[%s].exists(s, %s)" .subject (join " || " $tests | default "false") -}}
{{- end -}}

{{/*
proxy-policies.celStrings — a CEL list literal of strings. Input: a list. Output: e.g. ['a', 'b'].
JSON string literals are valid CEL string literals.
*/}}
{{- define "proxy-policies.celStrings" -}}
[{{ range $i, $s := . }}{{ if $i }}, {{ end }}{{ toJson $s }}{{ end }}]
{{- end -}}

{{/*
proxy-policies.kyvernoExclude — the exclude block every Kyverno rule shares:
excluded namespaces, Pod name patterns and the opt-out annotations.
Input: the root context. Output: YAML (the value of `exclude:`).
*/}}
{{- define "proxy-policies.kyvernoExclude" -}}
any:
  - resources:
      namespaces: {{ include "proxy-policies.excludedNamespaces" . }}
  {{- with .Values.exclude.names }}
  - resources:
      names: {{ toJson . }}
  {{- end }}
  {{- range $key, $value := include "proxy-policies.optOutAnnotations" . | fromJson }}
  - resources:
      annotations:
        {{ $key }}: {{ $value | quote }}
  {{- end }}
{{- end -}}

{{/*
proxy-policies.celEnvDynList — EnvVars as a CEL list of plain maps for JSON patches,
each plain value by its place in vals (bound once by the expression: NO_PROXY is
most of it). Input: dict "env" <EnvVar maps> "values" <the plain values, once each>.
Output: e.g. [{"name": dyn("HTTP_PROXY"), "value": dyn(vals[0])}].
*/}}
{{- define "proxy-policies.celEnvDynList" -}}
{{- $values := .values -}}
{{ range $i, $e := .env }}{{ if $i }}, {{ end }}{"name": dyn({{ toJson $e.name }}), {{ with dig "valueFrom" "secretKeyRef" dict $e }}"valueFrom": dyn({"secretKeyRef": {"name": {{ toJson .name }}, "key": {{ toJson .key }}}}){{ else }}{{ $at := 0 }}{{ range $j, $v := $values }}{{ if eq $v $e.value }}{{ $at = $j }}{{ end }}{{ end }}"value": dyn(vals[{{ $at }}]){{ end }}}{{ end }}
{{- end -}}

{{/*
proxy-policies.kyvernoKind — kyverno.policyKind, checked. Output: MutatingPolicy or ClusterPolicy.
*/}}
{{- define "proxy-policies.kyvernoKind" -}}
{{- $kind := .Values.kyverno.policyKind | default "MutatingPolicy" -}}
{{- if not (has $kind (list "MutatingPolicy" "ClusterPolicy")) -}}
{{- fail (printf "proxy-policies: kyverno.policyKind must be MutatingPolicy (policies.kyverno.io/v1, Kyverno 1.18+) or ClusterPolicy (kyverno.io/v1), not %q" (toString $kind)) -}}
{{- end -}}
{{- $kind -}}
{{- end -}}

{{/*
proxy-policies.keptSecret — the library's proxy Secret with helm.sh/resource-policy: keep:
running Pods' secretKeyRefs read it, so neither helm uninstall nor turning an engine off
deletes it (a container that restarts would otherwise fail). Input: dict "context" $
["namespace" <ns>]. Output: YAML, empty without credentials.
*/}}
{{- define "proxy-policies.keptSecret" -}}
{{- include "proxykit.proxy.secret" (merge (dict "annotations" (dict "helm.sh/resource-policy" "keep")) .) -}}
{{- end -}}
