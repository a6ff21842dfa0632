{{/*
proxykit.generateEnv — a container's `env:` merged from tiers.
Input:  dict "context" $ "env" (list SRC1 SRC2 ...) ["proxy" false]
        Each SRC is an EnvVar list (or nil). Tiers, lowest first: proxykit.proxy.env
        (left out with "proxy" false), .Values.defaults.env, SRC1, SRC2, ...
Output: "env:" followed by the merged list, or nothing at all when it is empty.
Rules:  for one name, the later entry replaces the earlier one whole (value and
        valueFrom never mix) and stays where the name first appeared;
        {name: X, value: null} without valueFrom removes X; numbers and booleans
        become strings; valueFrom is kept as written; nil sources and entries are
        skipped; a control character (other than tab, newline, carriage return)
        in a name or value fails.
Usage:
  containers:
    - name: app
      {{- include "proxykit.generateEnv" (dict "context" $ "env" (list .Values.app.env)) | nindent 6 }}

Cost: the proxy tier and defaults.env are the same for every container of a
render, so they are merged, checked and written once per render (the "base",
kept on the root context). Each call then only checks its own sources, keeps
their entries in an overlay keyed by name, and writes the base's cached text
for every name the overlay leaves alone. Linear in the number of entries.
*/}}
{{- define "proxykit.generateEnv" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.generateEnv") -}}
{{- $ctx := .context -}}
{{- $cacheKey := "proxykitEnvBase" -}}
{{- if and (hasKey . "proxy") (eq (toString .proxy) "false") }}{{ $cacheKey = "proxykitEnvBaseNoProxy" }}{{ end -}}
{{- if not (hasKey $ctx $cacheKey) -}}
  {{- include "proxykit.env.base" (dict "context" $ctx "key" $cacheKey) -}}
{{- end -}}
{{- $base := index $ctx $cacheKey -}}
{{- $sources := .env -}}
{{- if not (or (kindIs "invalid" $sources) (kindIs "slice" $sources)) -}}
  {{- fail (printf "proxykit.generateEnv: \"env\" must be a list of EnvVar lists, e.g. (list .Values.env), got %s" (kindOf $sources)) -}}
{{- end -}}
{{- $state := dict "byName" dict "nameAt" dict "next" 0 "live" $base.live "base" $base.byName -}}
{{- range $i, $source := $sources -}}
  {{- if kindIs "map" $source -}}
    {{- fail (printf "proxykit.generateEnv: \"env\" item %d is a single entry; pass a list of EnvVar lists, e.g. (list .Values.env)" (add1 $i)) -}}
  {{- end -}}
  {{- if $source -}}
    {{- include "proxykit.env.mergeTier" (dict "state" $state "label" (printf "env source %d" (add1 $i)) "entries" $source) -}}
  {{- end -}}
{{- end -}}
{{- if not $state.byName -}}
  {{- $base.text -}}
{{- else if gt (int $state.live) 0 -}}
env:
  {{- range $name := $base.order -}}
    {{- if hasKey $state.byName $name -}}
      {{- include "proxykit.env.entryText" (index $state.byName $name) -}}
    {{- else -}}
      {{- index $base.entryText $name -}}
    {{- end -}}
  {{- end -}}
  {{- range $position := until (int $state.next) -}}
    {{- include "proxykit.env.entryText" (index $state.byName (index $state.nameAt (toString $position))) -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.env.base — merge the tiers every container shares, once per render.
Input:  dict "context" $ "key" <"proxykitEnvBase", or "proxykitEnvBaseNoProxy" for "proxy" false>
Output: nothing; sets <key> on the root context to a map:
  byName     name -> merged entry ("" when removed)
  order      names in the position they first appeared
  entryText  name -> the entry as YAML text ("" when removed)
  live       how many names are not removed
  text       the whole "env:" output for a container without sources of its own
*/}}
{{- define "proxykit.env.base" -}}
{{- $ctx := .context -}}
{{- $state := dict "byName" dict "nameAt" dict "next" 0 "live" 0 "base" dict -}}
{{- if eq .key "proxykitEnvBase" -}}
  {{- include "proxykit.env.mergeTier" (dict "state" $state "label" "proxy env" "entries" $ctx.proxykitSettings.env) -}}
{{- end -}}
{{- $defaults := index ($ctx.Values | default dict) "defaults" -}}
{{- include "proxykit.resolve.section" (dict "value" $defaults "key" "defaults") -}}
{{- include "proxykit.env.mergeTier" (dict "state" $state "label" "defaults.env" "entries" (index ($defaults | default dict) "env")) -}}
{{- $order := list -}}
{{- $entryText := dict -}}
{{- range $position := until (int $state.next) -}}
  {{- $name := index $state.nameAt (toString $position) -}}
  {{- $order = append $order $name -}}
  {{- $_ := set $entryText $name (include "proxykit.env.entryText" (index $state.byName $name)) -}}
{{- end -}}
{{- $base := dict "byName" $state.byName "order" $order "entryText" $entryText "live" $state.live -}}
{{- $text := "" -}}
{{- if gt (int $state.live) 0 -}}
  {{- $text = printf "env:%s" (include "proxykit.env.join" (dict "order" $order "entryText" $entryText)) -}}
{{- end -}}
{{- $_ := set $base "text" $text -}}
{{- $_ := set $ctx .key $base -}}
{{- end -}}

{{/*
proxykit.env.join — the cached texts of names, in order. Input: dict "order" "entryText".
*/}}
{{- define "proxykit.env.join" -}}
{{- range $name := .order }}{{ index $.entryText $name }}{{ end -}}
{{- end -}}

{{/*
proxykit.env.entryText — one merged entry as YAML list text, with a leading newline.
Input:  a merged entry map {name, value} or {name, valueFrom}; "" for a removed name.
Output: nothing for "". Names and values are written as JSON strings (valid YAML,
        and cheaper than toYaml per entry).
*/}}
{{- define "proxykit.env.entryText" -}}
{{- if . }}
- name: {{ toJson .name }}
  {{- if hasKey . "valueFrom" }}
  valueFrom:
    {{- toYaml .valueFrom | nindent 4 }}
  {{- else }}
  value: {{ toJson .value }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/*
proxykit.env.mergeTier — merge one tier's entries into a merge state, checking each.
Input:  dict "state" <map, changed in place> "label" <tier name for messages> "entries" <EnvVar list|nil>
        state: byName (name -> merged entry, "" when removed), nameAt (position ->
        name, for names new to state and base), next (next position), live (names
        not removed, base included), base (the byName of the tiers below, read only).
Output: nothing.
*/}}
{{- define "proxykit.env.mergeTier" -}}
{{- $state := .state -}}
{{- $label := .label -}}
{{- $entries := .entries -}}
{{- if not (or (kindIs "invalid" $entries) (kindIs "slice" $entries)) -}}
  {{- fail (printf "proxykit.generateEnv: %s must be a list of EnvVars, got %s" $label (kindOf $entries)) -}}
{{- end -}}
{{- /* one scan of the whole tier for control characters; the slow path names the entry */ -}}
{{- if regexMatch "[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x{9F}]" (toString $entries) -}}
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
{{- $byName := $state.byName -}}
{{- $base := $state.base -}}
{{- range $i, $entry := $entries -}}
  {{- if kindIs "invalid" $entry }}{{ continue }}{{ end -}}
  {{- if not (kindIs "map" $entry) -}}
    {{- fail (printf "proxykit.generateEnv: %s[%d] must be an EnvVar map with a name, got %s" $label $i (kindOf $entry)) -}}
  {{- end -}}
  {{- $name := index $entry "name" -}}
  {{- if not (and (kindIs "string" $name) (trim $name)) -}}
    {{- fail (printf "proxykit.generateEnv: %s[%d] has no name: %s" $label $i (include "proxykit.validate.redact" (toJson $entry))) -}}
  {{- end -}}
  {{- $valueFrom := index $entry "valueFrom" -}}
  {{- $value := index $entry "value" -}}
  {{- $merged := "" -}}
  {{- if not (kindIs "invalid" $valueFrom) -}}
    {{- if not (kindIs "map" $valueFrom) -}}
      {{- fail (printf "proxykit.generateEnv: %s[%d] (%s): valueFrom must be a map, got %s" $label $i $name (kindOf $valueFrom)) -}}
    {{- end -}}
    {{- if ne (toString ($value | default "")) "" -}}
      {{- fail (printf "proxykit.generateEnv: %s[%d] (%s) sets both value and valueFrom" $label $i $name) -}}
    {{- end -}}
    {{- $merged = dict "name" $name "valueFrom" $valueFrom -}}
  {{- else if kindIs "string" $value -}}
    {{- $merged = dict "name" $name "value" $value -}}
  {{- else if and (hasKey $entry "value") (kindIs "invalid" $value) -}}
    {{- /* value: null removes the name */ -}}
  {{- else -}}
    {{- $kind := kindOf $value -}}
    {{- if eq $kind "float64" -}}
      {{- /* values files decode every number as float64; print 1000000, not 1e+06 */ -}}
      {{- $value = ternary (printf "%.0f" $value) (toString $value) (eq (floor $value) $value) -}}
    {{- else if eq $kind "invalid" -}}
      {{- $value = "" -}}
    {{- else if has $kind (list "bool" "int" "int8" "int16" "int32" "int64" "uint" "uint8" "uint16" "uint32" "uint64" "float32") -}}
      {{- $value = toString $value -}}
    {{- else -}}
      {{- fail (printf "proxykit.generateEnv: %s[%d] (%s): value must be a string, number or boolean, got %s" $label $i $name $kind) -}}
    {{- end -}}
    {{- $merged = dict "name" $name "value" $value -}}
  {{- end -}}

  {{- $previous := "" -}}
  {{- if hasKey $byName $name -}}
    {{- $previous = index $byName $name -}}
  {{- else if hasKey $base $name -}}
    {{- $previous = index $base $name -}}
  {{- else -}}
    {{- $_ := set $state.nameAt (toString $state.next) $name -}}
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
