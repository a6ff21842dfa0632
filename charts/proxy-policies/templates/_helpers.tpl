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

{{/*
proxy-policies.jmes.literal — a value as a JMESPath literal for the ClusterPolicy's
expressions: its JSON between backticks, or, when it holds an object inside an object
(a valueFrom's secretKeyRef), parse_json of that JSON in base64: Kyverno finds each
{{ }} by a regular expression that admits one level of braces inside it.
Input: the value. Output: a JMESPath expression.
*/}}
{{- define "proxy-policies.jmes.literal" -}}
{{- $json := toJson . -}}
{{- if regexMatch "[{][^}]*[{]" $json -}}
parse_json(base64_decode('{{ b64enc $json }}'))
{{- else -}}
`{{ $json | replace "`" "\\`" }}`
{{- end -}}
{{- end -}}

{{/*
proxy-policies.jmes.plainPod — whether a Pod takes the ClusterPolicy's plain path: no
container of the lists names a variable of names itself, the lists of empty have no
container, and the Pod names no container to skip (the merge's path handles the rest).
Input: dict "lists" <container lists> "empty" <container lists> "names" <variable names>
"skip" <the skip annotation's key>. Output: a JMESPath bool expression.
*/}}
{{- define "proxy-policies.jmes.plainPod" -}}
{{- $lists := list -}}
{{- range $l := .lists }}{{ $lists = append $lists (printf "request.object.spec.%s || `[]`" $l) }}{{ end -}}
length(([{{ join ", " $lists }}][] | [].env[] | [?contains(`{{ toJson .names }}`, name)]) || `[]`) == `0`
{{- range $l := .empty }} && length(request.object.spec.{{ $l }} || `[]`) == `0`{{ end }} && (request.object.metadata.annotations.{{ toJson .skip }} || '') == ''
{{- end -}}

{{/*
proxy-policies.jmes.withEnv — the ClusterPolicy's plain path: an object of the Pod's
lists (the first always, the others those it has) whose every container has add after
its own env, to merge into its spec. add is written once, in a projection over the lists
(Kyverno scans every string it substitutes with regular expressions: the expression's
length is its cost); object_from_lists, not a hash: Kyverno finds a variable by a regular
expression that admits one level of braces inside it.
Input: dict "lists" <container lists> "add" <proxy-policies.jmes.appendEnv>.
Output: a JMESPath expression of an object.
*/}}
{{- define "proxy-policies.jmes.withEnv" -}}
{{- $lists := list -}}
{{- $present := list -}}
{{- $objects := list -}}
{{- range $i, $l := .lists -}}
  {{- $lists = append $lists (printf "request.object.spec.%s || `[]`" $l) -}}
  {{- if $i -}}
    {{- $present = append $present (printf "(request.object.spec.%s && `true`) || `false`" $l) -}}
    {{- $objects = append $objects (printf "(@[%d] && object_from_lists(['%s'], [@[0][%d]])) || `{}`" $i $l $i) -}}
  {{- else -}}
    {{- $objects = append $objects (printf "object_from_lists(['%s'], [@[0][0]])" $l) -}}
  {{- end -}}
{{- end -}}
([[{{ join ", " $lists }}][*][*].merge(@, object_from_lists(['env'], [{{ .add }}])){{ range $present }}, {{ . }}{{ end }}] | merge({{ join ", " $objects }}))
{{- end -}}

{{/*
proxy-policies.jmes.appendEnv — a container's env followed by the proxy's, as a JMESPath
expression on the container; with fabric8 (fabric8Env differs from env) fabric8Env's
values where pred, whether the container may run the fabric8 client, holds. Each plain
value is written once, in a literal list the entries index (vals), and fabric8's
NO_PROXY, when the cluster's starts with it, is that cut short (truncate counts
characters, as splitList "" does): Kyverno scans every string it substitutes with
regular expressions, so the expression's length is its cost.
Input: dict "env" <EnvVar maps> "fabric8Env" <EnvVar maps> "pred" <JMESPath bool on the
container>. Output: a JMESPath expression of the env list.
*/}}
{{- define "proxy-policies.jmes.appendEnv" -}}
{{- $env := .env -}}
{{- $fabric8ByName := dict -}}
{{- range $e := .fabric8Env }}{{ $_ := set $fabric8ByName $e.name $e }}{{ end -}}
{{- $fabric8 := ne (toJson .env) (toJson .fabric8Env) -}}
{{- $values := list -}}
{{- range $e := concat .env .fabric8Env }}{{ if and (hasKey $e "value") (not (has $e.value $values)) }}{{ $values = append $values $e.value }}{{ end }}{{ end -}}
{{- /* vals[k], or a cut of a longer value that starts with it and a comma */ -}}
{{- $exprs := dict -}}
{{- $kept := list -}}
{{- range $v := $values -}}
  {{- $cut := "" -}}
  {{- range $w := $values }}{{ if and (not $cut) (hasPrefix (printf "%s," $v) $w) }}{{ $cut = $w }}{{ end }}{{ end -}}
  {{- if not $cut }}{{ $kept = append $kept $v }}{{ end -}}
{{- end -}}
{{- range $v := $values -}}
  {{- $at := -1 -}}
  {{- range $i, $w := $kept }}{{ if eq $w $v }}{{ $at = $i }}{{ end }}{{ end -}}
  {{- if ge $at 0 -}}
    {{- $_ := set $exprs $v (printf "@[1][%d]" $at) -}}
  {{- else -}}
    {{- range $i, $w := $kept }}{{ if and (not (hasKey $exprs $v)) (hasPrefix (printf "%s," $v) $w) }}{{ $_ := set $exprs $v (printf "truncate(@[1][%d], `%d`)" $i (len (splitList "" $v))) }}{{ end }}{{ end -}}
  {{- end -}}
{{- end -}}
{{- $entries := list -}}
{{- range $e := $env -}}
  {{- $f := get $fabric8ByName $e.name -}}
  {{- if not (hasKey $e "value") -}}
    {{- $entries = append $entries (include "proxy-policies.jmes.literal" $e) -}}
  {{- else if and $fabric8 $f (hasKey $f "value") (ne $f.value $e.value) -}}
    {{- $entries = append $entries (printf "{name: '%s', value: (@[0][1] && %s) || %s}" $e.name (get $exprs $f.value) (get $exprs $e.value)) -}}
  {{- else -}}
    {{- $entries = append $entries (printf "{name: '%s', value: %s}" $e.name (get $exprs $e.value)) -}}
  {{- end -}}
{{- end -}}
{{- if $fabric8 -}}
[[env || `[]`, {{ .pred }}], {{ include "proxy-policies.jmes.literal" $kept }}] | [@[0][0], [{{ join ", " $entries }}]][]
{{- else -}}
[[env || `[]`], {{ include "proxy-policies.jmes.literal" $kept }}] | [@[0][0], [{{ join ", " $entries }}]][]
{{- end -}}
{{- end -}}
