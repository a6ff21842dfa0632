{{/*
proxykit.generateEnv — a container's `env:` merged from tiers.
Input:  dict "context" $ "env" (list SRC1 SRC2 ...) ["proxy" false]
        Each SRC is an EnvVar list (or nil). Tiers, lowest first: proxykit.proxy.env
        (left out with "proxy" false), .Values.defaults.env, SRC1, SRC2, ...
Output: "env:" followed by the merged list, or nothing at all when it is empty.
Rules:  for one name, the later entry replaces the earlier one whole (value and
        valueFrom never mix) and stays where the name first appeared;
        {name: X, value: null} without valueFrom removes X; numbers and booleans
        become strings; valueFrom is kept as written; nil sources and entries are skipped.
Usage:
  containers:
    - name: app
      {{- include "proxykit.generateEnv" (dict "context" $ "env" (list .Values.app.env)) | nindent 6 }}

Cost is linear in the number of entries: entries are kept in maps keyed by name
and by first position, and emitted by walking the positions once; no list is
rebuilt per entry. Names and values are written as JSON strings (valid YAML),
which costs half of a toYaml per entry.
*/}}
{{- define "proxykit.generateEnv" -}}
{{- if not (kindIs "map" .context) -}}
  {{- fail "proxykit.generateEnv: takes (dict \"context\" $ \"env\" (list ...)); \"context\" is missing" -}}
{{- end -}}
{{- $tiers := list -}}
{{- if not (and (hasKey . "proxy") (eq (toString .proxy) "false")) -}}
  {{- $tiers = append $tiers (list "proxy env" (include "proxykit.proxy.env" . | fromYamlArray)) -}}
{{- end -}}
{{- $values := .context.Values | default dict -}}
{{- $defaults := index $values "defaults" -}}
{{- include "proxykit.resolve.section" (dict "value" $defaults "key" "defaults") -}}
{{- $tiers = append $tiers (list "defaults.env" (index ($defaults | default dict) "env")) -}}
{{- $sources := .env -}}
{{- if not (or (kindIs "invalid" $sources) (kindIs "slice" $sources)) -}}
  {{- fail (printf "proxykit.generateEnv: \"env\" must be a list of EnvVar lists, e.g. (list .Values.env), got %s" (kindOf $sources)) -}}
{{- end -}}
{{- range $i, $source := $sources -}}
  {{- if kindIs "map" $source -}}
    {{- fail (printf "proxykit.generateEnv: \"env\" item %d is a single entry; pass a list of EnvVar lists, e.g. (list .Values.env)" (add1 $i)) -}}
  {{- end -}}
  {{- $tiers = append $tiers (list (printf "env source %d" (add1 $i)) $source) -}}
{{- end -}}

{{- $stringable := dict "string" true "bool" true "int" true "int8" true "int16" true "int32" true "int64" true "uint" true "uint8" true "uint16" true "uint32" true "uint64" true "float32" true -}}
{{- $state := dict "next" 0 "live" 0 -}}
{{- $byName := dict -}}
{{- $nameAt := dict -}}
{{- range $tier := $tiers -}}
  {{- $label := index $tier 0 -}}
  {{- $entries := index $tier 1 -}}
  {{- if not (or (kindIs "invalid" $entries) (kindIs "slice" $entries)) -}}
    {{- fail (printf "proxykit.generateEnv: %s must be a list of EnvVars, got %s" $label (kindOf $entries)) -}}
  {{- end -}}
  {{- range $i, $entry := $entries -}}
    {{- if kindIs "invalid" $entry }}{{ continue }}{{ end -}}
    {{- if not (kindIs "map" $entry) -}}
      {{- fail (printf "proxykit.generateEnv: %s[%d] must be an EnvVar map with a name, got %s" $label $i (kindOf $entry)) -}}
    {{- end -}}
    {{- $name := index $entry "name" -}}
    {{- if not (and (kindIs "string" $name) (trim (toString $name))) -}}
      {{- fail (printf "proxykit.generateEnv: %s[%d] has no name: %s" $label $i (toJson $entry)) -}}
    {{- end -}}
    {{- $valueFrom := index $entry "valueFrom" -}}
    {{- $value := index $entry "value" -}}
    {{- $merged := dict "name" $name -}}
    {{- if not (kindIs "invalid" $valueFrom) -}}
      {{- if not (kindIs "map" $valueFrom) -}}
        {{- fail (printf "proxykit.generateEnv: %s[%d] (%s): valueFrom must be a map, got %s" $label $i $name (kindOf $valueFrom)) -}}
      {{- end -}}
      {{- if ne (toString ($value | default "")) "" -}}
        {{- fail (printf "proxykit.generateEnv: %s[%d] (%s) sets both value and valueFrom" $label $i $name) -}}
      {{- end -}}
      {{- $_ := set $merged "valueFrom" $valueFrom -}}
    {{- else if and (hasKey $entry "value") (kindIs "invalid" $value) -}}
      {{- /* value: null removes the name */ -}}
      {{- $merged = "" -}}
    {{- else -}}
      {{- $kind := kindOf $value -}}
      {{- if eq $kind "float64" -}}
        {{- /* values files decode every number as float64; print 1000000, not 1e+06 */ -}}
        {{- $value = ternary (printf "%.0f" $value) (toString $value) (eq (floor $value) $value) -}}
      {{- else if eq $kind "invalid" -}}
        {{- $value = "" -}}
      {{- else if index $stringable $kind -}}
        {{- $value = toString $value -}}
      {{- else -}}
        {{- fail (printf "proxykit.generateEnv: %s[%d] (%s): value must be a string, number or boolean, got %s" $label $i $name $kind) -}}
      {{- end -}}
      {{- $_ := set $merged "value" $value -}}
    {{- end -}}

    {{- $previous := index $byName $name -}}
    {{- if not (hasKey $byName $name) -}}
      {{- $_ := set $nameAt (toString $state.next) $name -}}
      {{- $_ := set $state "next" (add1 $state.next) -}}
    {{- end -}}
    {{- if and $merged (not $previous) -}}
      {{- $_ := set $state "live" (add1 $state.live) -}}
    {{- else if and (not $merged) $previous -}}
      {{- $_ := set $state "live" (sub $state.live 1) -}}
    {{- end -}}
    {{- $_ := set $byName $name $merged -}}
  {{- end -}}
{{- end -}}

{{- if gt (int $state.live) 0 -}}
env:
{{- range $position := until (int $state.next) -}}
  {{- $entry := index $byName (index $nameAt (toString $position)) -}}
  {{- if $entry }}
- name: {{ toJson $entry.name }}
    {{- if hasKey $entry "valueFrom" }}
  valueFrom:
    {{- toYaml $entry.valueFrom | nindent 4 }}
    {{- else }}
  value: {{ toJson $entry.value }}
    {{- end }}
  {{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
