{{- /*
The CEL body that the native MutatingAdmissionPolicy and Kyverno's MutatingPolicy
share: both take Kubernetes' matchConstraints, matchConditions and mutations, and
Kyverno evaluates them with the API server's own mutation library. One source, so
the engines cannot drift.
*/ -}}

{{/*
proxy-policies.cel.settings — what the CEL helpers need, resolved once.
Input: the root context. Output: JSON {env, mount, bundleConfigMap, projectedVolume, credentials, override}:
projectedVolume is the bundle's volume when it is a projected one (proxy.trustBundle
clusterTrustBundle), which the JSON patch adds (an apply configuration may not add
its sources, an atomic list).
*/}}
{{- define "proxy-policies.cel.settings" -}}
{{- $ctx := dict "context" . -}}
{{- $proxyEnv := include "proxykit.proxy.env" $ctx -}}
{{- $trustEnv := include "proxykit.trust.env" $ctx | fromYamlArray -}}
{{- $env := concat ($proxyEnv | fromYamlArray) $trustEnv -}}
{{- /* what a container that may run the fabric8 client gets: NO_PROXY without its bracketed entries */ -}}
{{- $fabric8Env := concat (include "proxykit.proxy.fabric8Env" (dict "env" $proxyEnv) | fromYamlArray) $trustEnv -}}
{{- $bundle := include "proxykit.trust.bundle" $ctx | fromJson -}}
{{- $credentials := not (empty (include "proxykit.proxy.hasCredentials" $ctx)) -}}
{{- /* a merge would mix an own value with our valueFrom: with credentials, own settings are always kept */ -}}
{{- $volume := first (include "proxykit.trust.volumes" $ctx | fromYamlArray) | default dict -}}
{{- toJson (dict "env" $env "fabric8Env" (ternary $fabric8Env list (ne (toJson $env) (toJson $fabric8Env))) "mount" (first (include "proxykit.trust.volumeMounts" $ctx | fromYamlArray)) "bundleConfigMap" ($bundle.configMap | default "") "projectedVolume" (ternary $volume dict (hasKey $volume "projected")) "credentials" $credentials "override" (and .Values.policy.overrideExisting (not $credentials))) -}}
{{- end -}}

{{/*
proxy-policies.cel.literal — a value (a map, list, string, number or bool) as a CEL
literal for a JSON patch: every map value wrapped in dyn(), as the env entries are, so
that a map of mixed values type-checks and no typed Object reaches the patch.
Input: the value. Output: a CEL expression.
*/}}
{{- define "proxy-policies.cel.literal" -}}
{{- if kindIs "map" . -}}
{{ "{" }}{{ range $i, $k := keys . | sortAlpha }}{{ if $i }}, {{ end }}{{ toJson $k }}: dyn({{ include "proxy-policies.cel.literal" (index $ $k) }}){{ end }}{{ "}" }}
{{- else if kindIs "slice" . -}}
[{{ range $i, $v := . }}{{ if $i }}, {{ end }}{{ include "proxy-policies.cel.literal" $v }}{{ end }}]
{{- else -}}
{{ toJson . }}
{{- end -}}
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
proxy-policies.cel.matchConditions — the native policy's scope and opt-outs as CEL
conditions (Kyverno's MutatingPolicy has proxy-policies.cel.mutationScope instead).
Input: dict "context" $ "secretNamespaces" <list: inject only there, or empty>
"pending" <bool: with proxy-policies.cel.pending>.
Output: YAML list.
*/}}
{{- define "proxy-policies.cel.matchConditions" -}}
{{- $root := .context -}}
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
{{- with include "proxy-policies.cel.nameNotExcluded" $root }}
- name: name-not-excluded
  expression: >-
    {{ . }}
{{- end }}
- name: not-opted-out
  expression: >-
    {{ include "proxy-policies.cel.notOptedOut" $root }}
{{- if .pending }}
{{ include "proxy-policies.cel.pending" $root }}
{{- end }}
{{- end -}}

{{/*
proxy-policies.cel.notOptedOut — the Pod carries none of the opt-out annotations.
Input: the root context. Output: a CEL expression of type bool.
*/}}
{{- define "proxy-policies.cel.notOptedOut" -}}
{{- $optOut := include "proxy-policies.optOutAnnotations" . | fromJson -}}
!has(object.metadata.annotations) || !({{ range $i, $k := keys $optOut | sortAlpha }}{{ if $i }} || {{ end }}({{ toJson $k }} in object.metadata.annotations && object.metadata.annotations[{{ toJson $k }}] == {{ toJson (index $optOut $k) }}){{ end }})
{{- end -}}

{{/*
proxy-policies.cel.nameNotExcluded — the Pod's name (or generateName) matches no
pattern of exclude.names; empty when there is none.
Input: the root context. Output: a CEL expression of type bool, or "".
*/}}
{{- define "proxy-policies.cel.nameNotExcluded" -}}
{{- with .Values.exclude.names -}}
!{{ include "proxy-policies.celMatchesAny" (dict "patterns" . "subject" "(has(object.metadata.name) && object.metadata.name != '' ? object.metadata.name : object.metadata.generateName)") }}
{{- end -}}
{{- end -}}

{{/*
proxy-policies.cel.mutationScope — the scope Kyverno's MutatingPolicy checks in its
mutations, as one CEL expression: the Pod's opt-out annotations, its name, and the
namespace patterns no selector can say (proxy-policies.cel.namespaceSelector keeps the
named namespaces off the webhook). It has no match conditions: Kyverno copies match conditions
into its webhook, where the API server converts the whole Pod (and its namespace) to
evaluate any of them, on every Pod, before Kyverno converts it again (about a fifth of
the policy's latency). A Pod out of this scope still passes through Kyverno's webhook,
which leaves it unchanged.
Input: the root context. Output: a CEL expression of type bool.
*/}}
{{- define "proxy-policies.cel.mutationScope" -}}
({{ include "proxy-policies.cel.notOptedOut" . }}){{ with include "proxy-policies.cel.nameNotExcluded" . }} && ({{ . }}){{ end }}
{{- with include "proxy-policies.cel.namespacePatterns" . }} && ({{ . }}){{ end }}
{{- end -}}

{{/*
proxy-policies.cel.namespaces — the namespace scope split by what can say it: the
excluded names and patterns (`*`, `?`), and namespaces.include, as names when it holds
no pattern, else whole as patterns. Input: the root context. Output: JSON
{excludedNames, excludedPatterns, includedNames, includedPatterns}.
*/}}
{{- define "proxy-policies.cel.namespaces" -}}
{{- $split := dict "excludedNames" list "excludedPatterns" list "includedNames" list "includedPatterns" list -}}
{{- range $n := include "proxy-policies.excludedNamespaces" . | fromJsonArray -}}
  {{- $key := ternary "excludedPatterns" "excludedNames" (regexMatch "[*?]" $n) -}}
  {{- $_ := set $split $key (append (get $split $key) $n) -}}
{{- end -}}
{{- with .Values.namespaces.include -}}
  {{- $_ := set $split (ternary "includedPatterns" "includedNames" (regexMatch "[*?]" (join "" .))) . -}}
{{- end -}}
{{- toJson $split -}}
{{- end -}}

{{/*
proxy-policies.cel.namespaceSelector — the named namespaces in scope as a namespace
selector on their kubernetes.io/metadata.name label (which the API server sets on every
namespace): the excluded names NotIn, the included names In. The API server applies it
to Kyverno's webhook without converting the Pod, so no named excluded namespace's Pod
reaches the webhook. Patterns cannot be selectors: proxy-policies.cel.namespacePatterns
checks them in the mutations.
Input: the root context. Output: YAML (the value of namespaceSelector), or "".
*/}}
{{- define "proxy-policies.cel.namespaceSelector" -}}
{{- $split := include "proxy-policies.cel.namespaces" . | fromJson -}}
{{- $expressions := list -}}
{{- with $split.excludedNames }}{{ $expressions = append $expressions (dict "key" "kubernetes.io/metadata.name" "operator" "NotIn" "values" .) }}{{ end -}}
{{- with $split.includedNames }}{{ $expressions = append $expressions (dict "key" "kubernetes.io/metadata.name" "operator" "In" "values" .) }}{{ end -}}
{{- with $expressions }}{{ toYaml (dict "matchExpressions" .) }}{{ end -}}
{{- end -}}

{{/*
proxy-policies.cel.namespacePatterns — what of the namespace scope a selector cannot
say (proxy-policies.cel.namespaceSelector): the excluded patterns, and namespaces.include
when it holds one; empty when there is nothing left.
Input: the root context. Output: a CEL expression of type bool, or "".
*/}}
{{- define "proxy-policies.cel.namespacePatterns" -}}
{{- $split := include "proxy-policies.cel.namespaces" . | fromJson -}}
{{- $checks := list -}}
{{- with $split.excludedPatterns }}{{ $checks = append $checks (printf "!%s" (include "proxy-policies.celMatchesAny" (dict "patterns" . "subject" "request.namespace"))) }}{{ end -}}
{{- with $split.includedPatterns }}{{ $checks = append $checks (include "proxy-policies.celMatchesAny" (dict "patterns" . "subject" "request.namespace")) }}{{ end -}}
{{- join " && " $checks -}}
{{- end -}}

{{/*
proxy-policies.cel.pending — the native policy's condition that something is left to
inject. With reinvocationPolicy IfNeeded (for the containers a later webhook adds) the
API server invokes a MutatingAdmissionPolicy that changed a Pod a second time in the
same admission, even when nothing else changed it, and that pass cost as much as the
first (a JSON patch of no operations still encodes and decodes the Pod). Nothing is
left once every container not skipped has the first variable the policy sets (it sets
every one a container lacks) and a CREATE carries the record of this configuration. A
webhook is not invoked again for its own change: Kyverno's MutatingPolicy has no need.
Input: the root context. Output: YAML list item.
*/}}
{{- define "proxy-policies.cel.pending" -}}
{{- $s := include "proxy-policies.cel.settings" . | fromJson -}}
{{- $first := (first $s.env).name -}}
{{- $annotation := "proxykit.io/proxy-config" -}}
{{- $record := include "proxykit.proxy.record" (dict "context" .) -}}
# a second pass of the same admission finds nothing left to do (see proxy-policies.cel.pending)
- name: not-injected-yet
  expression: >-
    [{{ include "proxy-policies.cel.skipContainers" . }}].map(skip,
    {{- range $i, $list := include "proxy-policies.containerLists" . | fromJsonArray }}
    {{ if $i }}|| {{ end }}has(object.spec.{{ $list }}) && object.spec.{{ $list }}.exists(c, !(c.name in skip) && !(has(c.env) && c.env.exists(e, e.name == {{ toJson $first }})))
    {{- end }})[0] ||
    (!has(request.subResource) || request.subResource == "") && !(has(object.metadata.annotations) && {{ toJson $annotation }} in object.metadata.annotations && object.metadata.annotations[{{ toJson $annotation }}] == {{ toJson $record }})
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
The env is one JSON patch for every list, with and without credentials, and one
body for every list (the lists bound as dyn: written once per list, the expression was
three times as long and took the API server and Kyverno about four times as long to
type-check, on every install, upgrade and status write); its entries are written as
plain dyn() maps (typed Object values in a JSON patch
crash the API server's conversion, a probe on 1.36.3 showed it; and an apply
configuration may not add a secretKeyRef or configMapKeyRef, atomic structs).
For each container not named in proxykit.io/skip-containers:
- a container without env gets the whole list;
- an own setting is a valueFrom or a non-empty value (an empty one is unset, as Go
  reads it: the placeholder is filled in place);
- a variable the container does not set is appended in the library's order, or
  fills its placeholder: what its other-case twin gives when the container sets
  the twin (not with policy.overrideExisting), so that the two agree, else the
  proxy's;
- with policy.overrideExisting an own plain value is replaced in place (an own
  valueFrom is kept);
- with policy.mergeNoProxy an own plain NO_PROXY (and a twin copied from one)
  becomes the cluster's NO_PROXY and then the own entries it lacks: the union
  inject and fixture.UnionNoProxy compute, less what sends public hosts around
  the proxy, which the union leaves out (proxy-policies.cel.publicEntry over the
  table in variables.psl, proxy-policies.cel.variables);
- with proxy.runtimes java, an own JAVA_TOOL_OPTIONS value is kept after the proxy
  flags ("<flags> <own>": the JVM keeps the last of two -D flags), once: a value
  that starts with the flags is left alone; one from valueFrom is kept as it is.
  With policy.mergeNoProxy (no override) an own -Dhttp.nonProxyHosts gets a last
  one after it, its own patterns and then the proxy's it lacks, always, less the
  empty and wide ones (proxy-policies.cel.publicJavaPattern).
  With policy.overrideExisting the flags go after it ("<own> <flags>"), so that
  they win over older proxy flags the container carries;
- with proxy.runtimes java, the JVM's flags where they beat JAVA_TOOL_OPTIONS
  (JDK_JAVA_OPTIONS, JAVA_OPTS, JAVA_OPTS_APPEND, _JAVA_OPTIONS: own plain values):
  with policy.overrideExisting the proxy's flags go after a value that sets a proxy
  flag; with policy.mergeNoProxy an own -Dhttp.nonProxyHosts gets a last one with its
  own patterns and then the proxy's it lacks, unless the value ends with exactly that,
  and then that last flag loses its empty and wide patterns (inject's javaOptionsMerged);
Each container's env is scanned once (idx: the places of the entries the policy
names; names is a map literal), inside the runtime cost budget for 100 containers
of 400 entries; a container that names none of them (most) gets the list appended
at once, and for the others own (the names it sets) and holes (the places of its
placeholders) are read from those few places.
With credentials own settings are never replaced (a merge would mix an own value
with the Secret's). The record of the configuration given (proxykit.proxy.record)
goes into the Pod's proxykit.io/proxy-config annotation on CREATE: by the JSON
patch, one mutation in all (each mutation costs the API server a conversion of
the Pod, and an apply configuration a structured merge), or with a trusted CA
and no credentials by the apply configuration that adds the bundle volume and
mounts (`?list:` fields: an absent list stays absent).
Input: dict "context" $ "guard" <a CEL expression of type bool that every mutation
requires (proxy-policies.cel.mutationScope), or "">. Output: YAML list.
*/}}
{{- define "proxy-policies.cel.mutations" -}}
{{- $root := .context -}}
{{- $guard := .guard -}}
{{- $s := include "proxy-policies.cel.settings" $root | fromJson -}}
{{- $env := $s.env -}}
{{- $mount := $s.mount -}}
{{- $merge := eq (toString $root.Values.policy.mergeNoProxy) "true" -}}
{{- $lists := include "proxy-policies.containerLists" $root | fromJsonArray -}}
{{- /* the record of the configuration given, which the proxy Secret carries too: proxykit audit compares them */ -}}
{{- $annotation := "proxykit.io/proxy-config" -}}
{{- $record := include "proxykit.proxy.record" (dict "context" $root) -}}
{{- /* the plain values, each once, in the order the env lists them */ -}}
{{- $values := list -}}
{{- range $e := $env }}{{ if and (hasKey $e "value") (not (has $e.value $values)) }}{{ $values = append $values $e.value }}{{ end }}{{ end -}}
{{- $noProxyAt := 0 -}}
{{- range $e := $env }}{{ if eq $e.name "NO_PROXY" }}{{ range $i, $v := $values }}{{ if eq $v $e.value }}{{ $noProxyAt = $i }}{{ end }}{{ end }}{{ end }}{{ end -}}
{{- /* with $fabric8, a container that may run the fabric8 client gets fabric8Env's NO_PROXY (cnp), the
       last of vals: the cluster's cut before its bracketed entries, which the library writes last (so
       that NO_PROXY is written into the expression once), or else written out */ -}}
{{- $fabric8 := not (empty $s.fabric8Env) -}}
{{- $vals := include "proxy-policies.celStrings" $values -}}
{{- $fabric8At := len $values -}}
{{- if $fabric8 -}}
  {{- $fabric8NoProxy := "" -}}
  {{- range $e := $s.fabric8Env }}{{ if eq $e.name "NO_PROXY" }}{{ $fabric8NoProxy = $e.value }}{{ end }}{{ end -}}
  {{- if hasPrefix (printf "%s," $fabric8NoProxy) (index $values $noProxyAt) -}}
    {{- $vals = printf "[%s].map(v, v + [v[%d].substring(0, %d)])[0]" $vals $noProxyAt (len (splitList "" $fabric8NoProxy)) -}}
  {{- else -}}
    {{- $vals = include "proxy-policies.celStrings" (append $values $fabric8NoProxy) -}}
  {{- end -}}
  {{- $values = append $values $fabric8NoProxy -}}
{{- end -}}
{{- $names := list -}}
{{- range $e := $env }}{{ $names = append $names $e.name }}{{ end -}}
{{- $twins := dict "HTTP_PROXY" "http_proxy" "http_proxy" "HTTP_PROXY" "HTTPS_PROXY" "https_proxy" "https_proxy" "HTTPS_PROXY" "NO_PROXY" "no_proxy" "no_proxy" "NO_PROXY" -}}
{{- /* with proxy.runtimes java: the flags, which go before a container's own JAVA_TOOL_OPTIONS */ -}}
{{- $java := "" -}}
{{- range $e := $env }}{{ if eq $e.name "JAVA_TOOL_OPTIONS" }}{{ $java = $e.value }}{{ end }}{{ end -}}
{{- $javaAt := 0 -}}
{{- range $i, $v := $values }}{{ if and $java (eq $v $java) }}{{ $javaAt = $i }}{{ end }}{{ end -}}
{{- $flags := printf "vals[%d]" $javaAt -}}
{{- $joinable := printf "x.name == \"JAVA_TOOL_OPTIONS\" && !has(x.valueFrom) && has(x.value) && x.value != \"\" && !x.value.startsWith(%s)" $flags -}}
{{- $joined := printf "%s + \" \" + x.value" $flags -}}
{{- /* policy.mergeNoProxy with proxy.runtimes java (no override): an own -Dhttp.nonProxyHosts (the last one)
       gets a last one after it with the proxy's patterns it lacks, the list bound as jhosts */ -}}
{{- $javaHosts := list -}}
{{- $javaParts := splitList "-Dhttp.nonProxyHosts=" $java -}}
{{- if gt (len $javaParts) 1 }}{{ range $p := splitList "|" (replace "\"" "" (first (splitList " " (last $javaParts)))) }}{{ if $p }}{{ $javaHosts = append $javaHosts $p }}{{ end }}{{ end }}{{ end -}}
{{- $javaMerge := and $merge (not $s.override) (gt (len $javaHosts) 0) -}}
{{- if $javaMerge -}}
  {{- $joined = printf "%s + [x.value.split(\"-Dhttp.nonProxyHosts=\")].map(parts, size(parts) < 2 ? \"\" : [parts[size(parts) - 1].split(\" \")[0].replace(\"\\\"\", \"\").split(\"|\")].map(theirs, \" -Dhttp.nonProxyHosts=\" + (theirs + jhosts.filter(p, !(p in theirs))).filter(p, p != \"\" && !%s).join(\"|\"))[0])[0]" $joined (include "proxy-policies.cel.publicJavaPattern" (dict "pattern" "p" "table" "variables.psl")) -}}
{{- end -}}
{{- /* the JVM's flags where they beat JAVA_TOOL_OPTIONS (inject.MergeEnv's javaOptions): with
       policy.overrideExisting the proxy's flags go after an own proxy flag; with policy.mergeNoProxy
       an own -Dhttp.nonProxyHosts gets a last one with its own patterns and the proxy's it lacks,
       unless the value ends with exactly that, then its empty and wide patterns dropped */ -}}
{{- $javaVars := list "JDK_JAVA_OPTIONS" "JAVA_OPTS" "JAVA_OPTS_APPEND" "_JAVA_OPTIONS" -}}
{{- $javaOpts := and $java (or $s.override $javaMerge) -}}
{{- $watched := $env -}}
{{- if $javaOpts }}{{ range $v := $javaVars }}{{ $watched = append $watched (dict "name" $v) }}{{ end }}{{ end -}}
{{- $optsPatch := "" -}}
{{- if $s.override -}}
  {{- $optsPatch = printf `(v.contains("-Dhttp.nonProxyHosts=") || v.contains("-Dhttp.proxyHost=") || v.contains("-Dhttps.proxyHost=")) && !v.endsWith(" " + %s) ? [JSONPatch{op: "replace", path: PATH, value: v + " " + %s}] : []` $flags $flags -}}
{{- else if $javaOpts -}}
  {{- /* inject's javaOptionsMerged: the last flag appended unless the value ends with it, then its empty and wide patterns dropped */ -}}
  {{- $optsPatch = printf `!v.contains("-Dhttp.nonProxyHosts=") ? [] : [[v.split("-Dhttp.nonProxyHosts=")].map(parts, [parts[size(parts) - 1].split(" ")[0].replace("\"", "")].map(theirs, " -Dhttp.nonProxyHosts=" + theirs + jhosts.filter(p, !(p in theirs.split("|"))).map(p, "|" + p).join(""))[0])[0]].map(full, (" " + v).endsWith(full) ? v : v + full).map(m, [m.lastIndexOf("-Dhttp.nonProxyHosts=") + 21].map(at, m.substring(0, at) + m.substring(at).split("|").filter(p, p != "" && !%s).join("|"))[0]).map(w, w == v ? [] : [JSONPatch{op: "replace", path: PATH, value: w}])[0]` (include "proxy-policies.cel.publicJavaPattern" (dict "pattern" "p" "table" "variables.psl")) -}}
{{- end -}}
{{- if $s.override -}}
  {{- /* with policy.overrideExisting the flags go last, and win over older proxy flags of the container's own */ -}}
  {{- $joinable = printf "x.name == \"JAVA_TOOL_OPTIONS\" && !has(x.valueFrom) && has(x.value) && x.value != \"\" && !x.value.endsWith(%s)" $flags -}}
  {{- $joined = printf "x.value + \" \" + %s" $flags -}}
{{- end }}
# the env of every list: one JSON patch
- patchType: JSONPatch
  jsonPatch:
    expression: >-
      {{- with $guard }}
      !({{ . }}) ? [] : (
      {{- end }}
      [{{ $vals }}].map(vals,
      [[{{ include "proxy-policies.celEnvDynList" (dict "env" $env "values" $values) }}]].map({{ ternary "pall" "plist" $fabric8 }},
      {{- if $fabric8 }}
      [[{{ include "proxy-policies.celEnvDynList" (dict "env" $s.fabric8Env "values" $values) }}]].map(pfabric8,
      {{- end }}
      [{{ include "proxy-policies.cel.names" $watched }}].map(names, [{{ include "proxy-policies.cel.skipContainers" $root }}].map(skip,
      {{- $base := `"/spec/" + lname + "/" + string(i) + "/env"` }}
      [[{{ range $n, $list := $lists }}{{ if $n }}, {{ end }}dyn(has(object.spec.{{ $list }}) ? object.spec.{{ $list }} : []){{ end }}]].map(ls,
      lists.range({{ len $lists }}).map(k, [{{ include "proxy-policies.celStrings" $lists }}[k]].map(lname, [ls[k]].map(cs,
      lists.range(size(cs)).map(i, [cs[i]].map(c,
      c.name in skip ? [] :
      {{- if $fabric8 }}
      {{- /* a container that may run the fabric8 client: its env list and NO_PROXY (cnp) */}}
      [{{ include "proxy-policies.cel.mayRunFabric8" (dict "flags" (ternary (printf "vals[%d]" $javaAt) "" (ne $java ""))) }}].map(jvm,
      [jvm ? pfabric8 : pall].map(plist, [jvm ? vals[{{ $fabric8At }}] : vals[{{ $noProxyAt }}]].map(cnp,
      {{- end }}
      !has(c.env) ? [JSONPatch{op: "add", path: {{ $base }}, value: plist}] :
      [lists.range(size(c.env)).filter(j, c.env[j].name in names)].map(idx,
      size(idx) == 0 ? plist.map(e, JSONPatch{op: "add", path: {{ $base }} + "/-", value: e}) :
      [idx.filter(j, has(c.env[j].valueFrom) || (has(c.env[j].value) && c.env[j].value != "")).map(j, c.env[j])].map(mine,
      {{- /* the proxy's -Dhttp.nonProxyHosts patterns, bound only for a container with own settings */}}
      [mine.map(x, x.name)].map(own, [{{ if $javaMerge }}{{ include "proxy-policies.celStrings" $javaHosts }}{{ else }}[]{{ end }}].map(jhosts,
      [idx.filter(j, !has(c.env[j].valueFrom) && (!has(c.env[j].value) || c.env[j].value == ""))].map(holes,
      {{- range $k, $e := $env }}
      {{- $name := $e.name }}
      {{- $isNoProxy := or (eq $name "NO_PROXY") (eq $name "no_proxy") }}
      {{- $at := 0 }}{{ range $i, $v := $values }}{{ if and (hasKey $e "value") (eq $v $e.value) }}{{ $at = $i }}{{ end }}{{ end }}
      {{- $clusterNoProxy := printf "vals[%d]" $at }}{{ if and $fabric8 $isNoProxy }}{{ $clusterNoProxy = "cnp" }}{{ end }}
      {{- $union := printf "[%s.split(\",\")].map(have, %s + %%s.split(\",\").map(s, s.trim()).filter(s, s != \"\" && !(s in have) && !%s).map(s, \",\" + s).join(\"\"))[0]" $clusterNoProxy $clusterNoProxy (include "proxy-policies.cel.publicEntry" (dict "entry" "s" "table" "variables.psl")) }}
      {{- $twin := get $twins $name }}
      {{ if $k }}+ {{ end }}({{ toJson $name }} in own ?
      {{- if and $s.override (ne $name "JAVA_TOOL_OPTIONS") }}
      idx.filter(j, c.env[j].name == {{ toJson $name }} && !has(c.env[j].valueFrom)).map(j, JSONPatch{op: "replace", path: {{ $base }} + "/" + string(j), value: {{ if and $merge $isNoProxy }}{"name": dyn({{ toJson $name }}), "value": dyn({{ printf $union "c.env[j].value" }})}{{ else }}plist[{{ $k }}]{{ end }}})
      {{- else if and $merge $isNoProxy (hasKey $e "value") }}
      idx.filter(j, c.env[j].name == {{ toJson $name }} && !has(c.env[j].valueFrom)).map(j, [{{ printf $union "c.env[j].value" }}].map(u, u == c.env[j].value ? [] : [JSONPatch{op: "replace", path: {{ $base }} + "/" + string(j) + "/value", value: u}])[0]).flatten()
      {{- else }} []
      {{- end }} :
      {{- $mergedTwin := and $twin (has $twin $names) $merge $isNoProxy (hasKey $e "value") }}
      [{{ if and $twin (has $twin $names) (not $s.override) }}{{ toJson $twin }} in own ? mine.filter(x, x.name == {{ toJson $twin }}).map(x, {{ include "proxy-policies.cel.twinCopy" (dict "name" $name "union" (ternary (printf $union "x.value") "" $mergedTwin)) }})[0] : {{ else if $mergedTwin }}{{ toJson $twin }} in own ? mine.filter(x, x.name == {{ toJson $twin }}).map(x, has(x.valueFrom) ? plist[{{ $k }}] : {"name": dyn({{ toJson $name }}), "value": dyn({{ printf $union "x.value" }})})[0] : {{ end }}plist[{{ $k }}]]
      .map(e, holes.exists(j, c.env[j].name == {{ toJson $name }}) ?
      holes.filter(j, c.env[j].name == {{ toJson $name }}).map(j, JSONPatch{op: "replace", path: {{ $base }} + "/" + string(j), value: e}) :
      [JSONPatch{op: "add", path: {{ $base }} + "/-", value: e}])[0])
      {{- end }}
      {{- if $java }}
      + idx.filter(j, [c.env[j]].exists(x, {{ $joinable }}))
      .map(j, [c.env[j]].map(x, JSONPatch{op: "replace", path: {{ $base }} + "/" + string(j) + "/value", value: {{ $joined }}})[0])
      {{- end }}
      {{- if $javaOpts }}
      + idx.filter(j, c.env[j].name in {{ toJson $javaVars }} && !has(c.env[j].valueFrom) && has(c.env[j].value) && c.env[j].value != "")
      .map(j, [c.env[j].value].map(v, {{ replace "PATH" (printf `%s + "/" + string(j) + "/value"` $base) $optsPatch }})[0]).flatten()
      {{- end }}
      )[0])[0])[0])[0])[0]
      {{- if $fabric8 }})[0])[0])[0]{{ end }}
      )[0]).flatten()
      )[0])[0]).flatten())[0]
      )[0])[0])[0]{{ if $fabric8 }})[0]{{ end }})[0]
      {{- if or $s.credentials (not $mount) }}
      + (has(request.subResource) && request.subResource != "" ? [] :
      has(object.metadata.annotations) ? [JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey({{ toJson $annotation }}), value: {{ toJson $record }}}] :
      [JSONPatch{op: "add", path: "/metadata/annotations", value: {{ "{" }}{{ toJson $annotation }}: {{ toJson $record }}{{ "}" }}}])
      {{- end }}
      {{- with $s.projectedVolume }}
      + (has(request.subResource) && request.subResource != "" || has(object.spec.volumes) && object.spec.volumes.exists(v, v.name == {{ toJson .name }}) ? [] :
      [{{ include "proxy-policies.cel.literal" . }}].map(v, has(object.spec.volumes) ? [JSONPatch{op: "add", path: "/spec/volumes/-", value: v}] :
      [JSONPatch{op: "add", path: "/spec/volumes", value: [v]}])[0])
      {{- end }}
      {{- if $guard }})
      {{- end }}
{{- if $mount }}
# one apply configuration for every list (one merge per request); an absent list stays absent
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: >-
      {{- with $guard }}
      !({{ . }}) ? Object{} : (
      {{- end }}
      [{{ include "proxy-policies.cel.skipContainers" $root }}].map(skip,
      [{{ if $mount }}has(object.spec.volumes) && object.spec.volumes.exists(v, v.name == {{ toJson $mount.name }}){{ else }}false{{ end }}].map(hasVolume,
      Object{
      {{- if not $s.credentials }}
      ?metadata: has(request.subResource) && request.subResource != "" ? optional.none() :
      optional.of(Object.metadata{annotations: {{ "{" }}{{ toJson $annotation }}: {{ toJson $record }}{{ "}" }}}),
      {{- end }}
      spec: Object.spec{
      {{- if $mount }}
      {{- if not $s.projectedVolume }}
      ?volumes: (!has(request.subResource) || request.subResource == "") && !hasVolume ?
      optional.of([Object.spec.volumes{name: {{ toJson $mount.name }}, configMap: Object.spec.volumes.configMap{name: {{ toJson $s.bundleConfigMap }}}}]) :
      optional.none(),
      {{- end }}
      {{- range $n, $list := $lists }}
      ?{{ $list }}: !has(object.spec.{{ $list }}) ? optional.none() :
      optional.of(object.spec.{{ $list }}.map(c, Object.spec.{{ $list }}{name: c.name,
      ?volumeMounts: [(!has(request.subResource) || request.subResource == "" || hasVolume ?
      [Object.spec.{{ $list }}.volumeMounts{name: {{ toJson $mount.name }}, mountPath: {{ toJson $mount.mountPath }}, readOnly: true}] : [])
      .filter(m, !has(c.volumeMounts) || !c.volumeMounts.exists(x, x.mountPath == m.mountPath || x.name == m.name))]
      .map(l, c.name in skip || size(l) == 0 ? optional.none() : optional.of(l))[0]})){{ if lt (add1 $n) (len $lists) }},{{ end }}
      {{- end }}
      {{- end }}}})[0])[0]
      {{- if $guard }})
      {{- end }}
{{- end }}
{{- end -}}

{{/*
proxy-policies.cel.variables — the policy's variables: with policy.mergeNoProxy, psl, the
ICANN public suffixes (proxykit.noProxy.icannSuffixes) that the merge's drop of own entries
sending public hosts around the proxy reads (proxy-policies.cel.publicEntry,
publicJavaPattern). A variable, not a literal in the mutation: the table is 75,000
characters and CEL parses at most 100,000 per expression; and the API server evaluates a
variable only when an expression reads it, so a Pod without own settings never does.
Input: the root context. Output: YAML list, or nothing.
*/}}
{{- define "proxy-policies.cel.variables" -}}
{{- if eq (toString .Values.policy.mergeNoProxy) "true" }}
- name: psl
  expression: {{ include "proxykit.noProxy.icannSuffixes" dict | toJson | toJson }}
{{- end }}
{{- end -}}

{{/*
proxy-policies.cel.twinCopy — the entry a variable gets from its other-case twin
x, which the container sets itself: its value (with policy.mergeNoProxy, a
NO_PROXY's union, given as "union"), or its valueFrom rebuilt as a plain map
(configMapKeyRef, secretKeyRef, fieldRef or resourceFieldRef).
Input: dict "name" <the variable> "union" <a CEL expression or "">. Output: a CEL map.
*/}}
{{- define "proxy-policies.cel.twinCopy" -}}
has(x.valueFrom) ? {"name": dyn({{ toJson .name }}), "valueFrom": dyn(has(x.valueFrom.configMapKeyRef) ? {"configMapKeyRef": {"name": x.valueFrom.configMapKeyRef.name, "key": x.valueFrom.configMapKeyRef.key}} : has(x.valueFrom.secretKeyRef) ? {"secretKeyRef": {"name": x.valueFrom.secretKeyRef.name, "key": x.valueFrom.secretKeyRef.key}} : has(x.valueFrom.fieldRef) ? {"fieldRef": {"fieldPath": x.valueFrom.fieldRef.fieldPath}} : {"resourceFieldRef": {"resource": x.valueFrom.resourceFieldRef.resource}})} : {"name": dyn({{ toJson .name }}), "value": dyn({{ .union | default "x.value" }})}
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
Input: dict "context" $ "guard" <a CEL expression of type bool that every mutation
requires (proxy-policies.cel.mutationScope), or "">. Output: YAML list.
*/}}
{{- define "proxy-policies.cel.checkedMutations" -}}
{{- $mutations := include "proxy-policies.cel.mutations" . -}}
{{- $root := .context -}}
{{- range $m := $mutations | fromYamlArray -}}
  {{- $expression := dig "applyConfiguration" "expression" (dig "jsonPatch" "expression" "" $m) $m -}}
  {{- if gt (len $expression) 100000 -}}
    {{- fail (printf "proxy-policies: the policy's CEL expression would be %d characters, over the 100,000 the API server parses, because NO_PROXY is %d characters long; shorten proxy.noProxy (a CIDR or a .domain covers many entries), or use kyverno.policyKind: ClusterPolicy" (len $expression) (len (include "proxykit.proxy.noProxy" (dict "context" $root)))) -}}
  {{- end -}}
{{- end -}}
{{- $mutations -}}
{{- end -}}
