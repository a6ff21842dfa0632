{{/*
Strict keys. A misspelled key (cluster.podCIDR, proxy.no_proxy) would otherwise be
ignored and leave a silently wrong NO_PROXY, so every section the library reads
rejects keys it does not know and suggests the nearest known one.
*/}}

{{/*
proxykit.keys.known — the keys the library reads in each strict section.
Input:  nothing. Output: JSON map of section -> list of keys.
*/}}
{{- define "proxykit.keys.known" -}}
{{- toJson (dict
    "proxy" (list "http" "https" "noProxy" "lowercase" "existingSecret" "trustedCA" "trustBundle" "runtimes" "relay")
    "cluster" (list "proxy" "domain" "podCIDRs" "serviceCIDRs" "nodeCIDRs" "apiServer" "metadataEndpoints" "requireNetworks" "namespaces")
    "cluster.proxy" (list "http" "https" "noProxy" "trustedCA" "trustBundle" "runtimes" "relay")
    "global.proxy" (list "http" "https" "noProxy" "trustedCA" "trustBundle" "runtimes" "relay")) -}}
{{- end -}}

{{/*
proxykit.keys.check — fail on the first key of a section that the library does not read.
Input:  dict "section" <map> "key" <the section's values key, e.g. cluster.proxy> "known" <list of keys>
Output: nothing; the message names the unknown key, the nearest known one when
        there is one, and every known key.
*/}}
{{- define "proxykit.keys.check" -}}
{{- $known := .known -}}
{{- range $name := keys .section | sortAlpha -}}
  {{- if not (has $name $known) -}}
    {{- $hint := "" -}}
    {{- /* no known key is longer than 64 characters: a longer name is near none, and is cut in the message */ -}}
    {{- $shown := $name -}}
    {{- if gt (len $name) 64 -}}
      {{- $shown = printf "%s... (%d characters)" (trunc 64 $name) (len $name) -}}
    {{- else -}}
      {{- $nearest := include "proxykit.keys.nearest" (dict "name" $name "known" $known) -}}
      {{- if $nearest }}{{ $hint = printf " (did you mean %s.%s?)" $.key $nearest }}{{ end -}}
    {{- end -}}
    {{- fail (printf "proxykit: unknown key %s.%s%s; the keys under %s are: %s" $.key $shown $hint $.key (join ", " $known)) -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.keys.nearest — the known key closest to a misspelled one.
Input:  dict "name" <string> "known" <list of keys>
Output: the known key with the smallest edit distance when that distance is at
        most a third of the key's length (at least 2), or when one starts with the
        other (metadata, metadataEndpoints), nothing otherwise. Case,
        "_" and "-" are ignored, so podcidrs, pod_cidrs and podCIDRs are equal.
*/}}
{{- define "proxykit.keys.nearest" -}}
{{- $best := dict "key" "" "distance" 1000 -}}
{{- $a := lower .name | replace "_" "" | replace "-" "" -}}
{{- $limit := max 2 (div (len $a) 3) -}}
{{- range $key := .known -}}
  {{- $b := lower $key -}}
  {{- $d := 1000 -}}
  {{- if and (ge (len $a) 4) (or (hasPrefix $a $b) (hasPrefix $b $a)) -}}
    {{- /* a key cut short (cluster.metadata) is as near as one typo */ -}}
    {{- $d = 1 -}}
  {{- else if le (sub (max (len $a) (len $b)) (min (len $a) (len $b))) $limit -}}
    {{- /* the distance is at least the difference in length: a key too long or too short
           to be within the limit is not measured (a 20,000-character key took 13 s) */ -}}
    {{- $d = int (include "proxykit.keys.distance" (dict "a" $a "b" $b)) -}}
  {{- end -}}
  {{- if lt $d (int $best.distance) }}{{ $_ := set $best "key" $key }}{{ $_ := set $best "distance" $d }}{{ end -}}
{{- end -}}
{{- if le (int $best.distance) $limit }}{{ $best.key }}{{ end -}}
{{- end -}}

{{/*
proxykit.keys.distance — Levenshtein distance between two short strings.
Input:  dict "a" <string> "b" <string>. Output: the distance as a number.
Only called on the error path, so its quadratic cost never reaches a good render.
*/}}
{{- define "proxykit.keys.distance" -}}
{{- $a := .a -}}
{{- $b := .b -}}
{{- $previous := until (int (add1 (len $b))) -}}
{{- range $i := until (len $a) -}}
  {{- $row := list (add1 $i) -}}
  {{- range $j := until (len $b) -}}
    {{- $cost := ternary 0 1 (eq (substr $i (int (add1 $i)) $a) (substr $j (int (add1 $j)) $b)) -}}
    {{- $row = append $row (min (add1 (index $row $j)) (add1 (index $previous (add1 $j))) (add (index $previous $j) $cost)) -}}
  {{- end -}}
  {{- $previous = $row -}}
{{- end -}}
{{- last $previous -}}
{{- end -}}

{{/*
proxykit.keys.notNested — fail when library values sit under `proxykit:`.
Input:  the consuming chart's .Values.
Output: nothing. A library chart has no values scope: Helm leaves values under
        `proxykit:` to a subchart that does not exist, so the helpers never see them.
        Only `global`, which Helm copies there itself, is allowed.
*/}}
{{- define "proxykit.keys.notNested" -}}
{{- $nested := index . "proxykit" -}}
{{- if kindIs "map" $nested -}}
  {{- $misplaced := without (keys $nested | sortAlpha) "global" -}}
  {{- if $misplaced -}}
    {{- fail (printf "proxykit: values under proxykit: (%s) are never read: proxykit is a library chart and reads its values from the top level of your chart's values; move proxykit.%s to %s" (join ", " $misplaced) (first $misplaced) (first $misplaced)) -}}
  {{- end -}}
{{- end -}}
{{- end -}}
