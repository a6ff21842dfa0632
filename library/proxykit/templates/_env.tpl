{{/*
proxykit.generateEnv — a container's `env:` merged from tiers.
Input:  dict "context" $ "env" (list SRC1 SRC2 ...) ["proxy" false] ["noProxy" (list HOST ...)]
        Each SRC is an EnvVar list (or nil). noProxy: NO_PROXY entries for this
        container alone, e.g. the Services of the chart it calls by name (see
        proxykit.proxy.env); ignored with "proxy" false. Tiers, lowest first: proxykit.proxy.env
        and, with a trusted CA, proxykit.trust.env (both left out with "proxy"
        false), .Values.defaults.env, SRC1, SRC2, ...
Output: "env:" followed by the merged list, or nothing at all when it is empty.
Rules:  for one name, the later entry replaces the earlier one whole (value and
        valueFrom never mix) and stays where the name first appeared; except that
        with proxy.runtimes java an own JAVA_TOOL_OPTIONS value is joined after the
        proxy flags ("<flags> <own>": the JVM keeps the last of two -D flags, so the
        own ones win), and an own JAVA_TOOL_OPTIONS from valueFrom fails;
        {name: X, value: null} without valueFrom removes X; numbers and booleans
        become strings; valueFrom is kept as written; nil sources and entries are
        skipped; a control character (other than tab, newline, carriage return)
        in a name or value fails; so does a proxy URL with user-info in a plain value
        of a name that holds PROXY (the password would sit in the workload), and a
        number past 2^53 (a values file has already lost its last digits: quote it).
Usage:
  containers:
    - name: app
      {{- include "proxykit.generateEnv" (dict "context" $ "env" (list .Values.app.env)) | nindent 6 }}

Cost: the proxy tier and defaults.env are the same for every container of a
render, so they are merged, checked and written once per render (the "base",
kept on the root context). Each call then only checks its own sources, keeps
their entries as output text in an overlay keyed by name, and writes the base's
cached text for every name the overlay leaves alone. Linear in the number of
entries; a plain string value takes the fast path of proxykit.env.merge.
*/}}
{{- define "proxykit.generateEnv" -}}
{{- $cacheKey := "proxykitEnvBase" -}}
{{- $noProxy := "" -}}
{{- if and (kindIs "map" .) (hasKey . "proxy") (eq (toString .proxy) "false") }}{{ $cacheKey = "proxykitEnvBaseNoProxy" -}}
{{- else if and (kindIs "map" .) (hasKey . "noProxy") .noProxy -}}
  {{- /* a base per distinct list: a chart passes the same few lists to many containers */ -}}
  {{- $noProxy = .noProxy -}}
  {{- $cacheKey = printf "proxykitEnvBase/%s" (toJson $noProxy) -}}
{{- end -}}
{{- /* only the root context carries the base, so finding it also proves the context */ -}}
{{- if and (kindIs "map" .) (kindIs "map" .context) (hasKey .context $cacheKey) (deepEqual (index .context "proxykitSettingsOf") (index .context "Values")) }}{{ else -}}
  {{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.generateEnv") -}}
  {{- include "proxykit.env.base" (dict "context" .context "key" $cacheKey "noProxy" $noProxy) -}}
{{- end -}}
{{- $ctx := .context -}}
{{- $base := index $ctx $cacheKey -}}
{{- $sources := .env -}}
{{- if not (or (kindIs "invalid" $sources) (kindIs "slice" $sources)) -}}
  {{- fail (printf "proxykit.generateEnv: \"env\" must be a list of EnvVar lists, e.g. (list .Values.env), got %s" (kindOf $sources)) -}}
{{- end -}}
{{- $tiers := list -}}
{{- range $i, $source := $sources -}}
  {{- if kindIs "map" $source -}}
    {{- fail (printf "proxykit.generateEnv: \"env\" item %d is a single entry; pass a list of EnvVar lists, e.g. (list .Values.env)" (add1 $i)) -}}
  {{- end -}}
  {{- if $source }}{{ $tiers = append $tiers (list (printf "env source %d" (add1 $i)) $source) }}{{ end -}}
{{- end -}}
{{- if not $tiers -}}
  {{- $base.text -}}
{{- else -}}
  {{- $state := dict "byName" dict "nameAt" dict "base" $base.byName "prefix" $base.prefix "scanned" (not (include "proxykit.env.hasControlChars" $sources)) -}}
  {{- include "proxykit.env.merge" (dict "state" $state "tiers" $tiers) -}}
  {{- $emit := or $base.text $state.byName -}}
  {{- if $state.removed -}}
    {{- /* rare: a removal may leave nothing, so look for one entry that is still there */ -}}
    {{- $emit = false -}}
    {{- range $name := concat $base.order (values $state.nameAt) -}}
      {{- if hasKey $state.byName $name }}{{ if index $state.byName $name }}{{ $emit = true }}{{ end -}}
      {{- else if index $base.byName $name }}{{ $emit = true }}{{ end -}}
    {{- end -}}
  {{- end -}}
  {{- if $emit -}}
env:
    {{- range $name := $base.order -}}
      {{- if hasKey $state.byName $name -}}
        {{- index $state.byName $name -}}
      {{- else -}}
        {{- index $base.byName $name -}}
      {{- end -}}
    {{- end -}}
    {{- range $position := until (len $state.nameAt) -}}
      {{- index $state.byName (index $state.nameAt (toString $position)) -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.env.base — merge the tiers every container shares, once per render.
Input:  dict "context" $ "key" <"proxykitEnvBase", "proxykitEnvBase/<noProxy as JSON>", or
        "proxykitEnvBaseNoProxy" for "proxy" false> "noProxy" <the call's NO_PROXY entries, or "">
Output: nothing; sets <key> on the root context to a map:
  byName  name -> the entry's YAML text ("" when removed)
  prefix  name -> the text a later tier's own value of that name is joined after:
          the proxy flags for JAVA_TOOL_OPTIONS with proxy.runtimes java, else empty
  order   names in the position they first appeared
  text    the whole "env:" output for a container without sources of its own ("" when empty)
*/}}
{{- define "proxykit.env.base" -}}
{{- $ctx := .context -}}
{{- $tiers := list -}}
{{- $proxyTier := ne .key "proxykitEnvBaseNoProxy" -}}
{{- $javaOptions := "" -}}
{{- if $proxyTier -}}
  {{- $proxyEnv := $ctx.proxykitSettings.env -}}
  {{- $javaOptions = $ctx.proxykitSettings.javaOptions -}}
  {{- if .noProxy -}}
    {{- $proxyEnv = include "proxykit.resolve.envWithNoProxy" (dict "context" $ctx "noProxy" .noProxy "key" "proxykit.generateEnv \"noProxy\"") | fromJsonArray -}}
    {{- range $e := $proxyEnv }}{{ if eq $e.name "JAVA_TOOL_OPTIONS" }}{{ $javaOptions = $e.value }}{{ end }}{{ end -}}
  {{- end -}}
  {{- $tiers = append $tiers (list "proxy env" $proxyEnv) -}}
  {{- /* with a trusted CA, the variables that point clients at the bundle belong to the proxy tier */ -}}
  {{- $tiers = append $tiers (list "trust env" (include "proxykit.trust.env" (dict "context" $ctx) | fromYamlArray)) -}}
{{- end -}}
{{- $defaults := index ($ctx.Values | default dict) "defaults" -}}
{{- include "proxykit.resolve.section" (dict "value" $defaults "key" "defaults") -}}
{{- $state := dict "byName" dict "nameAt" dict "base" dict -}}
{{- include "proxykit.env.merge" (dict "state" $state "tiers" $tiers) -}}
{{- $prefix := dict -}}
{{- if and $proxyTier $javaOptions -}}
  {{- $prefix = dict "JAVA_TOOL_OPTIONS" $javaOptions -}}
{{- end -}}
{{- $_ := set $state "prefix" $prefix -}}
{{- include "proxykit.env.merge" (dict "state" $state "tiers" (list (list "defaults.env" (index ($defaults | default dict) "env")))) -}}
{{- $order := list -}}
{{- range $position := until (len $state.nameAt) -}}
  {{- $order = append $order (index $state.nameAt (toString $position)) -}}
{{- end -}}
{{- $base := dict "byName" $state.byName "order" $order "prefix" $prefix -}}
{{- $text := include "proxykit.env.join" $base -}}
{{- $_ := set $base "text" (ternary (printf "env:%s" $text) "" (ne $text "")) -}}
{{- $_ := set $ctx .key $base -}}
{{- end -}}

{{/*
proxykit.env.join — the texts of a merge's names, in order. Input: dict "order" "byName".
*/}}
{{- define "proxykit.env.join" -}}
{{- range $name := .order }}{{ index $.byName $name }}{{ end -}}
{{- end -}}

{{/*
proxykit.env.merge — merge tiers of EnvVars into a merge state, checking each entry.
Input:  dict "state" <map, changed in place> "tiers" (list (list LABEL ENTRIES) ...)
        LABEL names the tier in messages; ENTRIES is an EnvVar list or nil.
        state: byName (name -> the entry's output text, "" when removed), nameAt
        (position -> name, for names new to state and base), base (the byName of
        the tiers below, read only), scanned (true when the caller found no
        control character in any tier); "removed" is set when an entry removes a name.
Output: nothing.
The text of an entry is a YAML list item whose name and value are JSON strings
and whose valueFrom is a JSON object: all valid YAML, and far cheaper than toYaml.
A string value without valueFrom, or a valueFrom map without value, takes the
fast path; anything else goes through proxykit.env.entry.
*/}}
{{- define "proxykit.env.merge" -}}
{{- $state := .state -}}
{{- $byName := $state.byName -}}
{{- $nameAt := $state.nameAt -}}
{{- $base := $state.base -}}
{{- range $tier := .tiers -}}
{{- $label := index $tier 0 -}}
{{- $entries := index $tier 1 -}}
{{- if not (or (kindIs "invalid" $entries) (kindIs "slice" $entries)) -}}
  {{- fail (printf "proxykit.generateEnv: %s must be a list of EnvVars, got %s" $label (kindOf $entries)) -}}
{{- end -}}
{{- /* one scan for control characters, unless the caller scanned all tiers at once;
       the slow path names the entry */ -}}
{{- if and (not $state.scanned) (include "proxykit.env.hasControlChars" $entries) -}}
  {{- range $i, $entry := $entries -}}
    {{- if kindIs "map" $entry -}}
      {{- range $field := list "name" "value" -}}
        {{- $text := index $entry $field -}}
        {{- if kindIs "string" $text -}}
          {{- include "proxykit.validate.controlChars" (dict "value" $text "key" (printf "%s[%d].%s" $label $i $field) "multiline" true) -}}
        {{- end -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- range $i, $entry := $entries -}}
  {{- if kindIs "map" $entry }}{{ else -}}
    {{- if kindIs "invalid" $entry }}{{ continue }}{{ end -}}
    {{- fail (printf "proxykit.generateEnv: %s[%d] must be an EnvVar map with a name, got %s" $label $i (kindOf $entry)) -}}
  {{- end -}}
  {{- $name := $entry.name -}}
  {{- if and (kindIs "string" $name) (trim $name) }}{{ else -}}
    {{- fail (printf "proxykit.generateEnv: %s[%d] has no name: %s" $label $i (include "proxykit.validate.redact" (toJson $entry))) -}}
  {{- end -}}
  {{- /* the API server's rule: printable ASCII other than "=". %+q leaves a name
         of printable ASCII without quote or backslash as is: one printf per entry */ -}}
  {{- if or (contains "=" $name) (and (ne (printf "%+q" $name) (print "\"" $name "\"")) (not (regexMatch "^[ -~]+$" $name))) -}}
    {{- fail (printf "proxykit.generateEnv: %s[%d]: the name %+q is not an environment variable name Kubernetes accepts (printable ASCII, no \"=\")" $label $i $name) -}}
  {{- end -}}
  {{- /* a proxy URL with user-info in a plain value would put the password into the workload */ -}}
  {{- if and (kindIs "string" $entry.value) (contains "@" $entry.value) (contains "PROXY" (upper $name)) (regexMatch "[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\\s]*@[^\\s/@]" $entry.value) -}}
    {{- fail (printf "proxykit.generateEnv: %s[%d] (%s) is a proxy URL with user-info in a plain value, which would write the password into the workload; give the URL in proxy.http/proxy.https (the library keeps credentials in a Secret and reads them with secretKeyRef), or use proxy.existingSecret, or read it here with valueFrom.secretKeyRef" $label $i $name) -}}
  {{- end -}}
  {{- $text := "" -}}
  {{- if and $state.prefix (hasKey $state.prefix $name) -}}
    {{- /* an own JAVA_TOOL_OPTIONS is kept after the proxy flags: the JVM keeps the last of two -D flags */ -}}
    {{- if hasKey $entry "valueFrom" -}}
      {{- fail (printf "proxykit.generateEnv: %s[%d] (%s) comes from valueFrom, which cannot be joined with the proxy flags that proxy.runtimes java puts there; write it as a value, or remove java from proxy.runtimes" $label $i $name) -}}
    {{- end -}}
    {{- if not (kindIs "invalid" $entry.value) -}}
      {{- $entry = dict "name" $name "value" (trim (printf "%s %s" (index $state.prefix $name) (toString $entry.value))) -}}
    {{- end -}}
  {{- end -}}
  {{- if and (kindIs "string" $entry.value) (not (hasKey $entry "valueFrom")) -}}
    {{- $text = printf "\n- name: %s\n  value: %s" (toJson $name) (toJson $entry.value) -}}
  {{- else if and (kindIs "map" $entry.valueFrom) (not (hasKey $entry "value")) -}}
    {{- /* the common, valid shapes checked inline; the helper names what is wrong */ -}}
    {{- $from := $entry.valueFrom -}}
    {{- $valid := false -}}
    {{- if eq (len $from) 1 -}}
      {{- if or (hasKey $from "fieldRef") (hasKey $from "resourceFieldRef") (hasKey $from "fileKeyRef") -}}
        {{- $valid = true -}}
      {{- else -}}
        {{- $selector := index $from (ternary "secretKeyRef" "configMapKeyRef" (hasKey $from "secretKeyRef")) -}}
        {{- $valid = and (kindIs "map" $selector) (kindIs "string" $selector.name) (kindIs "string" $selector.key) (trim $selector.name) (trim $selector.key) -}}
      {{- end -}}
    {{- end -}}
    {{- if not $valid -}}
      {{- include "proxykit.env.valueFrom" (dict "value" $from "key" (printf "%s[%d] (%s)" $label $i $name)) -}}
    {{- end -}}
    {{- $text = printf "\n- name: %s\n  valueFrom: %s" (toJson $name) (toJson $entry.valueFrom) -}}
  {{- else -}}
    {{- $text = include "proxykit.env.entry" (dict "entry" $entry "key" (printf "%s[%d] (%s)" $label $i $name)) -}}
    {{- if not $text }}{{ $_ := set $state "removed" true }}{{ end -}}
  {{- end -}}
  {{- if or (hasKey $byName $name) (hasKey $base $name) }}{{ else -}}
    {{- $_ := set $nameAt (toString (len $nameAt)) $name -}}
  {{- end -}}
  {{- $_ := set $byName $name $text -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.env.valueFrom — fail unless a valueFrom is one the API server accepts.
Input:  dict "value" <the valueFrom map> "key" <how messages name the entry>
Output: nothing. Exactly one source (fieldRef, resourceFieldRef, configMapKeyRef,
        secretKeyRef, fileKeyRef); a configMapKeyRef or secretKeyRef names its
        object and key.
*/}}
{{- define "proxykit.env.valueFrom" -}}
{{- $sources := list "fieldRef" "resourceFieldRef" "configMapKeyRef" "secretKeyRef" "fileKeyRef" -}}
{{- $set := list -}}
{{- range $k, $v := .value -}}
  {{- if not (has $k $sources) -}}
    {{- fail (printf "proxykit.generateEnv: %s: valueFrom.%s is not a source Kubernetes knows (%s)" $.key $k (join ", " $sources)) -}}
  {{- end -}}
  {{- $set = append $set $k -}}
{{- end -}}
{{- if ne (len $set) 1 -}}
  {{- fail (printf "proxykit.generateEnv: %s: valueFrom must name exactly one of %s, got %d" .key (join ", " $sources) (len $set)) -}}
{{- end -}}
{{- range $ref := list "configMapKeyRef" "secretKeyRef" -}}
  {{- if hasKey $.value $ref -}}
    {{- $selector := index $.value $ref -}}
    {{- if not (kindIs "map" $selector) -}}
      {{- fail (printf "proxykit.generateEnv: %s: valueFrom.%s must be a map with name and key" $.key $ref) -}}
    {{- end -}}
    {{- range $field := list "name" "key" -}}
      {{- $v := index $selector $field -}}
      {{- if not (and (kindIs "string" $v) (trim $v)) -}}
        {{- fail (printf "proxykit.generateEnv: %s: valueFrom.%s.%s is required" $.key $ref $field) -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.env.entry — the output text of an entry off the fast path, checked.
Input:  dict "entry" <EnvVar map with a name> "key" <how messages name it>
Output: the entry's text; nothing for {name: X, value: null} (a removal).
        valueFrom is kept as written (a value beside it fails); numbers and
        booleans become strings; a missing value is the empty string.
*/}}
{{- define "proxykit.env.entry" -}}
{{- $entry := .entry -}}
{{- $name := $entry.name -}}
{{- $value := index $entry "value" -}}
{{- $valueFrom := index $entry "valueFrom" -}}
{{- if not (kindIs "invalid" $valueFrom) -}}
  {{- if not (kindIs "map" $valueFrom) -}}
    {{- fail (printf "proxykit.generateEnv: %s: valueFrom must be a map, got %s" .key (kindOf $valueFrom)) -}}
  {{- end -}}
  {{- if ne (toString ($value | default "")) "" -}}
    {{- fail (printf "proxykit.generateEnv: %s sets both value and valueFrom" .key) -}}
  {{- end -}}
  {{- include "proxykit.env.valueFrom" (dict "value" $valueFrom "key" .key) -}}
  {{- printf "\n- name: %s\n  valueFrom: %s" (toJson $name) (toJson $valueFrom) -}}
{{- else if and (hasKey $entry "value") (kindIs "invalid" $value) -}}
  {{- /* value: null removes the name */ -}}
{{- else -}}
  {{- $kind := kindOf $value -}}
  {{- if eq $kind "float64" -}}
    {{- /* values files decode every number as float64, which holds integers exactly up to
           2^53 only: 123456789012345678 arrives as 123456789012345680 */ -}}
    {{- if or (ge $value 9007199254740992.0) (le $value -9007199254740992.0) -}}
      {{- fail (printf "proxykit.generateEnv: %s: the number is past 2^53, where a values file's numbers lose digits before the template sees them; quote it (value: \"...\") to keep every digit" .key) -}}
    {{- end -}}
    {{- /* print 1000000, not 1e+06 */ -}}
    {{- $value = ternary (printf "%.0f" $value) (toString $value) (eq (floor $value) $value) -}}
  {{- else if eq $kind "invalid" -}}
    {{- $value = "" -}}
  {{- else if has $kind (list "string" "bool" "int" "int8" "int16" "int32" "int64" "uint" "uint8" "uint16" "uint32" "uint64" "float32") -}}
    {{- $value = toString $value -}}
  {{- else -}}
    {{- fail (printf "proxykit.generateEnv: %s: value must be a string, number or boolean, got %s" .key $kind) -}}
  {{- end -}}
  {{- printf "\n- name: %s\n  value: %s" (toJson $name) (toJson $value) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.env.hasControlChars — whether any string inside a value holds a control
character other than tab, newline and carriage return.
Input:  any value (EnvVar lists). Output: "true" or nothing.
One regular expression over the value printed whole, instead of one per entry.
*/}}
{{- define "proxykit.env.hasControlChars" -}}
{{- if regexMatch "[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x{9F}]" (toString .) }}true{{ end -}}
{{- end -}}
