{{- /*
The CEL body that the native MutatingAdmissionPolicy and Kyverno's MutatingPolicy
share: both take Kubernetes' matchConstraints, matchConditions and mutations, and
Kyverno evaluates them with the API server's own mutation library. One source, so
the engines cannot drift.
*/ -}}

{{/*
proxy-policies.cel.settings — what the CEL helpers need, resolved once.
Input: the root context. Output: JSON {env, mount, bundleConfigMap, credentials, override}.
*/}}
{{- define "proxy-policies.cel.settings" -}}
{{- $ctx := dict "context" . -}}
{{- $env := concat (include "proxykit.proxy.env" $ctx | fromYamlArray) (include "proxykit.trust.env" $ctx | fromYamlArray) -}}
{{- $bundle := include "proxykit.trust.bundle" $ctx | fromJson -}}
{{- $credentials := not (empty (include "proxykit.proxy.hasCredentials" $ctx)) -}}
{{- /* a merge would mix an own value with our valueFrom: with credentials, own settings are always kept */ -}}
{{- toJson (dict "env" $env "mount" (first (include "proxykit.trust.volumeMounts" $ctx | fromYamlArray)) "bundleConfigMap" ($bundle.configMap | default "") "credentials" $credentials "override" (and .Values.policy.overrideExisting (not $credentials))) -}}
{{- end -}}

{{/*
proxy-policies.cel.matchConstraints — Pod CREATE, and the ephemeral containers
subresource that kubectl debug uses (ephemeral containers never arrive in a CREATE).
Input: none. Output: YAML (the value of matchConstraints).
*/}}
{{- define "proxy-policies.cel.matchConstraints" -}}
resourceRules:
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [pods]
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [UPDATE]
    resources: [pods/ephemeralcontainers]
{{- end -}}

{{/*
proxy-policies.cel.matchConditions — scope and opt-outs as CEL conditions.
Input: dict "context" $ "secretNamespaces" <list: inject only there, or empty>.
Output: YAML list.
*/}}
{{- define "proxy-policies.cel.matchConditions" -}}
{{- $root := .context -}}
{{- $optOut := include "proxy-policies.optOutAnnotations" $root | fromJson -}}
{{- $podName := "(has(object.metadata.name) && object.metadata.name != '' ? object.metadata.name : object.metadata.generateName)" -}}
{{- with .secretNamespaces }}
# the env reads the proxy Secret: only namespaces that hold a copy get it, so no Pod
# is admitted with a reference to a Secret that is not there
- name: namespace-holds-the-proxy-secret
  expression: >-
    {{ include "proxy-policies.celStrings" . }}.exists(n, request.namespace == n)
{{- end }}
- name: namespace-not-excluded
  expression: >-
    !{{ include "proxy-policies.celMatchesAny" (dict "patterns" (include "proxy-policies.excludedNamespaces" $root | fromJsonArray) "subject" "request.namespace") }}
{{- with $root.Values.namespaces.include }}
- name: namespace-included
  expression: >-
    {{ include "proxy-policies.celMatchesAny" (dict "patterns" . "subject" "request.namespace") }}
{{- end }}
{{- with $root.Values.exclude.names }}
- name: name-not-excluded
  expression: >-
    !{{ include "proxy-policies.celMatchesAny" (dict "patterns" . "subject" $podName) }}
{{- end }}
- name: not-opted-out
  expression: >-
    !has(object.metadata.annotations) ||
    !({{ range $i, $k := keys $optOut | sortAlpha }}{{ if $i }} || {{ end }}({{ toJson $k }} in object.metadata.annotations && object.metadata.annotations[{{ toJson $k }}] == {{ toJson (index $optOut $k) }}){{ end }})
{{- end -}}

{{/*
proxy-policies.cel.names — the names of the variables the policy injects, as a CEL
map literal. The mutations bind it once per request ([names].map(names, ...)[0]:
Kubernetes' CEL has no cel.bind, and Kyverno's CLI does not evaluate a policy's
variables), so a container's env is scanned once with a constant-time lookup per
entry instead of once per variable: a Pod with 100 containers of 400 env entries
each stays inside the CEL cost budget.
Input: the env list. Output: e.g. {"HTTP_PROXY": true, "NO_PROXY": true}.
*/}}
{{- define "proxy-policies.cel.names" -}}
{{ "{" }}{{ range $i, $e := . }}{{ if $i }}, {{ end }}{{ toJson $e.name }}: true{{ end }}{{ "}" }}
{{- end -}}

{{/*
proxy-policies.cel.mutations — the proxy env (and, with a trusted CA, the bundle
volume and mounts) for every container list, in list order, own settings kept.
Each container's env is scanned once for the names it sets itself (names); a
container named in proxykit.io/skip-containers (skip) gets nothing.
Without credentials one ApplyConfiguration merges the missing variables into each
container of every list (a container with nothing to add, or skipped, gets no env
field at all: an empty list in an apply configuration replaced a container's own
env in Kyverno's engine) (env merges by name, so nothing else moves), with optional
fields (`?list:`) so that an absent list stays absent: one merge per request, not
one per list. With policy.overrideExisting an own plain value is replaced too, an
own valueFrom is kept because a merge cannot drop it.
With proxy.runtimes java, a container's own JAVA_TOOL_OPTIONS value is kept after the
proxy flags ("<flags> <own>": the JVM keeps the last of two -D flags), once: a value
that starts with the flags is left alone; one from valueFrom is kept as it is. With
policy.overrideExisting the flags go after it ("<own> <flags>"), so that they win over
older proxy flags the container carries; a value that ends with them is left alone. The
joined entry leads the apply configuration: a merge orders the entries it names as
it names them, so the own entry keeps its place before the appended variables.
With credentials the entries are secretKeyRefs, an atomic struct that an apply
configuration may not add ("may not mutate atomic arrays, maps or structs"), so a
JSONPatch appends each missing variable instead, written as plain dyn() maps:
typed Object values in a JSON patch crash the API server's conversion (a probe on
1.36.3). Own settings are always kept then.
Either mutation also writes the record of the configuration given (proxykit.proxy.record)
in the Pod's proxykit.io/proxy-config annotation, on CREATE: the proxy Secret carries
the record of what it gives now, and proxykit audit compares the two.
Input: the root context. Output: YAML list.
*/}}
{{- define "proxy-policies.cel.mutations" -}}
{{- $s := include "proxy-policies.cel.settings" . | fromJson -}}
{{- $env := $s.env -}}
{{- $mount := $s.mount -}}
{{- $lists := include "proxy-policies.containerLists" . | fromJsonArray -}}
{{- /* the record of the configuration given, which the proxy Secret carries too: proxykit audit compares them */ -}}
{{- $annotation := "proxykit.io/proxy-config" -}}
{{- $record := include "proxykit.proxy.record" (dict "context" .) -}}
{{- /* the plain values, each once, in the order the env lists them */ -}}
{{- $values := list -}}
{{- range $e := $env }}{{ if and (hasKey $e "value") (not (has $e.value $values)) }}{{ $values = append $values $e.value }}{{ end }}{{ end -}}
{{- /* with proxy.runtimes java: the flags, which go before a container's own JAVA_TOOL_OPTIONS */ -}}
{{- $java := "" -}}
{{- range $e := $env }}{{ if eq $e.name "JAVA_TOOL_OPTIONS" }}{{ $java = $e.value }}{{ end }}{{ end -}}
{{- $javaAt := 0 -}}
{{- range $i, $v := $values }}{{ if and $java (eq $v $java) }}{{ $javaAt = $i }}{{ end }}{{ end -}}
{{- /* an own JAVA_TOOL_OPTIONS that is a value (not valueFrom) and does not start with the flags yet */ -}}
{{- $flags := ternary "jopts" (printf "vals[%d]" $javaAt) $s.credentials -}}
{{- $joinable := printf "x.name == \"JAVA_TOOL_OPTIONS\" && !has(x.valueFrom) && !(has(x.value) && x.value.startsWith(%s))" $flags -}}
{{- $joined := printf "%s + (has(x.value) && x.value != \"\" ? \" \" + x.value : \"\")" $flags -}}
{{- if $s.override -}}
  {{- /* with policy.overrideExisting the flags go last, and win over older proxy flags of the container's own */ -}}
  {{- $joinable = printf "x.name == \"JAVA_TOOL_OPTIONS\" && !has(x.valueFrom) && !(has(x.value) && x.value.endsWith(%s))" $flags -}}
  {{- $joined = printf "(has(x.value) && x.value != \"\" ? x.value + \" \" : \"\") + %s" $flags -}}
{{- end -}}
{{- if $s.credentials }}
# with credentials: a JSON patch appends each missing variable (own settings kept)
- patchType: JSONPatch
  jsonPatch:
    expression: >-
      [{{ toJson $java }}].map(jopts, [{{ include "proxy-policies.cel.names" $env }}].map(names, [{{ include "proxy-policies.cel.skipContainers" . }}].map(skip,
      {{- range $n, $list := $lists }}
      {{ if $n }}+ {{ end }}(!has(object.spec.{{ $list }}) ? [] :
      lists.range(size(object.spec.{{ $list }})).map(i,
      object.spec.{{ $list }}[i].name in skip ? [] :
      !has(object.spec.{{ $list }}[i].env) ?
      [JSONPatch{op: "add", path: "/spec/{{ $list }}/" + string(i) + "/env", value: {{ include "proxy-policies.celEnvList" $env }}}] :
      [object.spec.{{ $list }}[i].env.filter(x, x.name in names).map(x, x.name)]
      .map(own, {{ include "proxy-policies.celEnvList" $env }}.filter(e, !(e.name in own))
      .map(e, JSONPatch{op: "add", path: "/spec/{{ $list }}/" + string(i) + "/env/-", value: e}))[0]
      {{- if $java }}
      + lists.range(size(object.spec.{{ $list }}[i].env)).filter(j, [object.spec.{{ $list }}[i].env[j]].exists(x, {{ $joinable }}))
      .map(j, [object.spec.{{ $list }}[i].env[j]].map(x, JSONPatch{op: "add", path: "/spec/{{ $list }}/" + string(i) + "/env/" + string(j) + "/value", value: {{ $joined }}})[0])
      {{- end }}
      ).flatten())
      {{- end }}
      )[0])[0])[0]
      + (has(request.subResource) && request.subResource != "" ? [] :
      has(object.metadata.annotations) ? [JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey({{ toJson $annotation }}), value: {{ toJson $record }}}] :
      [JSONPatch{op: "add", path: "/metadata/annotations", value: {{ "{" }}{{ toJson $annotation }}: {{ toJson $record }}{{ "}" }}}])
{{- end }}
{{- if or (not $s.credentials) $mount }}
# one apply configuration for every list (one merge per request); an absent list stays absent
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: >-
      [{{ include "proxy-policies.celStrings" $values }}].map(vals,
      [{{ include "proxy-policies.cel.names" $env }}].map(names, [{{ include "proxy-policies.cel.skipContainers" . }}].map(skip,
      [{{ if $mount }}has(object.spec.volumes) && object.spec.volumes.exists(v, v.name == {{ toJson $mount.name }}){{ else }}false{{ end }}].map(hasVolume,
      Object{
      {{- if not $s.credentials }}
      ?metadata: has(request.subResource) && request.subResource != "" ? optional.none() :
      optional.of(Object.metadata{annotations: {{ "{" }}{{ toJson $annotation }}: {{ toJson $record }}{{ "}" }}}),
      {{- end }}
      spec: Object.spec{
      {{- if $mount }}
      ?volumes: (!has(request.subResource) || request.subResource == "") && !hasVolume ?
      optional.of([Object.spec.volumes{name: {{ toJson $mount.name }}, configMap: Object.spec.volumes.configMap{name: {{ toJson $s.bundleConfigMap }}}}]) :
      optional.none(),
      {{- end }}
      {{- range $n, $list := $lists }}
      ?{{ $list }}: !has(object.spec.{{ $list }}) ? optional.none() :
      optional.of(object.spec.{{ $list }}.map(c, Object.spec.{{ $list }}{name: c.name
      {{- if not $s.credentials }}, ?env:
      [has(c.env) ? c.env.filter(x, x.name in names{{ if $s.override }} && (has(x.valueFrom){{ if $java }} || x.name == "JAVA_TOOL_OPTIONS"{{ end }}){{ end }}).map(x, x.name) : []]
      .map(own,
      {{- if $java }}
      (has(c.env) ? c.env.filter(x, {{ $joinable }}).map(x, Object.spec.{{ $list }}.env{name: "JAVA_TOOL_OPTIONS", value: {{ $joined }}}) : []) +
      {{- end }}
      [{{ range $i, $e := $env }}{{ if $i }}, {{ end }}{{ include "proxy-policies.celEnv" (dict "list" $list "env" $e "values" $values) }}{{ end }}]
      .filter(e, !(e.name in own)))
      .map(l, c.name in skip || size(l) == 0 ? optional.none() : optional.of(l))[0]
      {{- end }}
      {{- if $mount }},
      ?volumeMounts: [(!has(request.subResource) || request.subResource == "" || hasVolume ?
      [Object.spec.{{ $list }}.volumeMounts{name: {{ toJson $mount.name }}, mountPath: {{ toJson $mount.mountPath }}, readOnly: true}] : [])
      .filter(m, !has(c.volumeMounts) || !c.volumeMounts.exists(x, x.mountPath == m.mountPath || x.name == m.name))]
      .map(l, c.name in skip || size(l) == 0 ? optional.none() : optional.of(l))[0]
      {{- end }}})){{ if lt (add1 $n) (len $lists) }},{{ end }}
      {{- end }}}})[0])[0])[0])[0]
{{- end }}
{{- end -}}

{{/*
proxy-policies.cel.skipContainers — the containers the Pod's proxykit.io/skip-containers
annotation names, as a CEL list expression: a container named there gets no proxy
variable, no trust variable and no bundle mount.
Input: the root context. Output: a CEL expression of type list(string).
*/}}
{{- define "proxy-policies.cel.skipContainers" -}}
{{- $key := toJson (include "proxy-policies.skipContainersAnnotation" .) -}}
has(object.metadata.annotations) && {{ $key }} in object.metadata.annotations ? object.metadata.annotations[{{ $key }}].split(",").map(s, s.trim()) : []
{{- end -}}

{{/*
proxy-policies.cel.checkedMutations — proxy-policies.cel.mutations, failing before
the API server would: CEL parses at most 100,000 code points per expression (cel-go's
limit, which Kubernetes and Kyverno keep), and NO_PROXY is written into it.
Input: the root context. Output: YAML list.
*/}}
{{- define "proxy-policies.cel.checkedMutations" -}}
{{- $mutations := include "proxy-policies.cel.mutations" . -}}
{{- range $m := $mutations | fromYamlArray -}}
  {{- $expression := dig "applyConfiguration" "expression" (dig "jsonPatch" "expression" "" $m) $m -}}
  {{- if gt (len $expression) 100000 -}}
    {{- fail (printf "proxy-policies: the policy's CEL expression would be %d characters, over the 100,000 the API server parses, because NO_PROXY is %d characters long; shorten proxy.noProxy (a CIDR or a .domain covers many entries), or use kyverno.policyKind: ClusterPolicy" (len $expression) (len (include "proxykit.proxy.noProxy" (dict "context" $)))) -}}
  {{- end -}}
{{- end -}}
{{- $mutations -}}
{{- end -}}
