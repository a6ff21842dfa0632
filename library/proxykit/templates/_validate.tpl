{{/*
Input validation. Every check fails the render with `fail` and a message that
names the values key, so a typo never surfaces as a template crash.
*/}}

{{/*
proxykit.validate.ipVersion — classify an IP address the way net/netip parses it.
Input:  a string (not a dict): the address, without brackets, prefix or zone.
Output: "4" or "6" when it parses, nothing otherwise. Never fails.
Leading zeros in IPv4 octets are rejected, as netip does (they read as octal elsewhere).
*/}}
{{- define "proxykit.validate.ipVersion" -}}
{{- $addr := . -}}
{{- if regexMatch "^[0-9]{1,3}(\\.[0-9]{1,3}){3}$" $addr -}}
  {{- $ok := true -}}
  {{- range $octet := splitList "." $addr -}}
    {{- if or (gt (atoi $octet) 255) (and (gt (len $octet) 1) (hasPrefix "0" $octet)) -}}
      {{- $ok = false -}}
    {{- end -}}
  {{- end -}}
  {{- if $ok }}4{{ end -}}
{{- else if and (contains ":" $addr) (regexMatch "^[0-9A-Fa-f:.]+$" $addr) (not (contains ":::" $addr)) -}}
  {{- /* "::" may appear once; it stands for at least one zero group. */ -}}
  {{- $halves := splitList "::" $addr -}}
  {{- $last := sub (len $halves) 1 -}}
  {{- $groups := 0 -}}
  {{- $ok := le (len $halves) 2 -}}
  {{- range $hi, $half := $halves -}}
    {{- if and $ok $half -}}
      {{- $parts := splitList ":" $half -}}
      {{- range $pi, $part := $parts -}}
        {{- if regexMatch "^[0-9A-Fa-f]{1,4}$" $part -}}
          {{- $groups = add1 $groups -}}
        {{- else if and (eq $hi $last) (eq $pi (sub (len $parts) 1)) (eq (include "proxykit.validate.ipVersion" $part) "4") -}}
          {{- /* an embedded IPv4 tail such as ::ffff:10.0.0.1 fills two groups */ -}}
          {{- $groups = add $groups 2 -}}
        {{- else -}}
          {{- $ok = false -}}
        {{- end -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
  {{- if and $ok (or (and (eq (len $halves) 2) (lt $groups 8)) (and (eq (len $halves) 1) (eq $groups 8))) }}6{{ end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.cidr — fail unless the value is an IPv4 or IPv6 CIDR.
Input:  dict "value" <string> "key" <values key named in the message>
Output: nothing; fails on `10.0.0.0/33`, `fd00::/129`, `10.0.0/8`, a bare address.
*/}}
{{- define "proxykit.validate.cidr" -}}
{{- $parts := splitList "/" .value -}}
{{- $version := "" -}}
{{- $bits := "" -}}
{{- if eq (len $parts) 2 -}}
  {{- $version = include "proxykit.validate.ipVersion" (first $parts) -}}
  {{- $bits = last $parts -}}
{{- end -}}
{{- $max := ternary 32 128 (eq $version "4") -}}
{{- if or (not $version) (not (regexMatch "^(0|[1-9][0-9]{0,2})$" $bits)) (gt (atoi $bits) $max) -}}
  {{- fail (printf "proxykit: %s: %q is not a valid CIDR (want e.g. 10.244.0.0/16 or fd00::/108)" .key .value) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.proxyURL — fail unless the value is http(s)://[user-info@]host[:port][/].
Input:  dict "value" <string> "key" <values key named in the message>
Output: "credentials" when the URL carries user-info, nothing otherwise.
The URL is only checked, never rebuilt, so a password survives byte-exact.
The last "@" ends the user-info, so an unescaped "@" or "/" in a password still works.
*/}}
{{- define "proxykit.validate.proxyURL" -}}
{{- $url := .value -}}
{{- if not (regexMatch "^(?i)https?://" $url) -}}
  {{- fail (printf "proxykit: %s: %q must start with http:// or https://" .key (include "proxykit.validate.redact" $url)) -}}
{{- end -}}
{{- $re := "^(?i:https?)://(?:(.*)@)?(\\[[0-9A-Fa-f:.]+\\]|[^@/?#:\\[\\]\\s]+)(:[^/]*)?/?$" -}}
{{- if not (regexMatch $re $url) -}}
  {{- fail (printf "proxykit: %s: %q is not a proxy URL of the form http(s)://[user:password@]host[:port]" .key (include "proxykit.validate.redact" $url)) -}}
{{- end -}}
{{- $port := regexReplaceAll $re $url "${3}" -}}
{{- if $port -}}
  {{- $digits := trimPrefix ":" $port -}}
  {{- if or (not (regexMatch "^[0-9]{1,5}$" $digits)) (lt (atoi $digits) 1) (gt (atoi $digits) 65535) -}}
    {{- fail (printf "proxykit: %s: port %q is not a number between 1 and 65535" .key $digits) -}}
  {{- end -}}
{{- end -}}
{{- if regexReplaceAll $re $url "${1}" }}credentials{{ end -}}
{{- end -}}

{{/*
proxykit.validate.redact — a URL with its user-info replaced by "***", for error messages.
Input:  a string. Output: the redacted string.
*/}}
{{- define "proxykit.validate.redact" -}}
{{- regexReplaceAll "^([A-Za-z][A-Za-z0-9+.-]*://)?.*@" . "${1}***@" -}}
{{- end -}}

{{/*
proxykit.validate.list — read a value given as a list or as one comma-separated string.
Input:  dict "value" <list|string|nil> "key" <values key named in the message>
Output: JSON list of trimmed, non-empty strings (decode with fromJsonArray).
*/}}
{{- define "proxykit.validate.list" -}}
{{- $items := .value -}}
{{- if kindIs "string" $items -}}
  {{- $items = splitList "," $items -}}
{{- else if kindIs "invalid" $items -}}
  {{- $items = list -}}
{{- else if not (kindIs "slice" $items) -}}
  {{- fail (printf "proxykit: %s must be a list or a comma-separated string, got %s" .key (kindOf $items)) -}}
{{- end -}}
{{- $out := list -}}
{{- range $i, $item := $items -}}
  {{- if not (kindIs "string" $item) -}}
    {{- fail (printf "proxykit: %s[%d] must be a string, got %s" $.key $i (kindOf $item)) -}}
  {{- end -}}
  {{- $item = trim $item -}}
  {{- if regexMatch "\\s" $item -}}
    {{- fail (printf "proxykit: %s[%d]: %q contains whitespace" $.key $i $item) -}}
  {{- end -}}
  {{- if $item }}{{ $out = append $out $item }}{{ end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}
