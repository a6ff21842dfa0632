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
{{- /* string functions, not regexMatch: sprig compiles a pattern on every call,
       and this runs for every address and entry of every render */ -}}
{{- $addr := . -}}
{{- $octets := splitList "." $addr -}}
{{- if and (eq (len $octets) 4) (not (contains ":" $addr)) -}}
  {{- $ok := true -}}
  {{- range $octet := $octets -}}
    {{- if or (not $octet) (gt (len $octet) 3) (trimAll "0123456789" $octet) (gt (atoi $octet) 255) (and (gt (len $octet) 1) (hasPrefix "0" $octet)) -}}
      {{- $ok = false -}}
    {{- end -}}
  {{- end -}}
  {{- if $ok }}4{{ end -}}
{{- else if and (contains ":" $addr) (not (trimAll "0123456789abcdefABCDEF:." $addr)) (not (contains ":::" $addr)) -}}
  {{- /* "::" may appear once; it stands for at least one zero group. */ -}}
  {{- $halves := splitList "::" $addr -}}
  {{- $last := sub (len $halves) 1 -}}
  {{- $groups := 0 -}}
  {{- $ok := le (len $halves) 2 -}}
  {{- range $hi, $half := $halves -}}
    {{- if and $ok $half -}}
      {{- $parts := splitList ":" $half -}}
      {{- range $pi, $part := $parts -}}
        {{- if and $part (le (len $part) 4) (not (trimAll "0123456789abcdefABCDEF" $part)) -}}
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
Output: nothing; fails on `10.0.0.0/33`, `fd00::/129`, `10.0.0/8`, a bare address,
        and on `0.0.0.0/0` and `::/0`, which cover every address.
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
{{- $digits := and $bits (le (len $bits) 3) (not (trimAll "0123456789" $bits)) (or (eq $bits "0") (not (hasPrefix "0" $bits))) -}}
{{- if or (not $version) (not $digits) (gt (atoi $bits) $max) -}}
  {{- fail (printf "proxykit: %s: %q is not a valid CIDR (want e.g. 10.244.0.0/16 or fd00::/108)" .key (include "proxykit.validate.redact" .value)) -}}
{{- end -}}
{{- if eq $bits "0" -}}
  {{- fail (printf "proxykit: %s: %q covers every address; name the networks instead (in NO_PROXY it sends every host around the proxy, as \"*\" would; in an allow list it opens the proxy to everyone)" .key (include "proxykit.validate.redact" .value)) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.controlChars — fail when a string holds a control character.
Input:  dict "value" <string> "key" <values key named in the message> ["multiline" true]
Output: nothing. Rejects C0 controls (NUL...US; tab, newline and carriage return
        only where "multiline" allows them, as in env values), DEL and C1 controls
        (U+0080...U+009F, e.g. U+0085): they break YAML output and systemd files
        silently. The message shows the character, never the value, which may
        carry a password.
*/}}
{{- define "proxykit.validate.controlChars" -}}
{{- $bad := "" -}}
{{- /* %q escapes every control character: a value it leaves as is holds none, and needs no regex */ -}}
{{- if ne (printf "%q" .value) (print "\"" .value "\"") -}}
  {{- $class := ternary "[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x{9F}]" "[\\x00-\\x1F\\x7F-\\x{9F}]" (eq (toString .multiline) "true") -}}
  {{- $bad = regexFind $class .value -}}
{{- end -}}
{{- if $bad -}}
  {{- fail (printf "proxykit: %s contains the control character %q; remove it" .key $bad) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.host — classify a host as an IP address or a DNS name.
Input:  a string (not a dict): a host without brackets or port.
Output: "4" or "6" for an IP address, "name" for a DNS name (letters, digits,
        "-" and "_" in dot-separated labels of at most 63 characters, an optional
        trailing dot; not only digits and dots), nothing otherwise. Never fails.
*/}}
{{- define "proxykit.validate.host" -}}
{{- $version := include "proxykit.validate.ipVersion" . -}}
{{- if $version -}}
{{ $version }}
{{- else if and (le (len .) 253) (regexMatch "^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\\.?$" .) (trimAll "0123456789." .) -}}
  {{- /* labels of at most 63: counted here, because a {0,61} in the pattern makes
         RE2 compile a program six times the size on every call (sprig caches none) */ -}}
  {{- $short := true -}}
  {{- range $label := splitList "." (trimSuffix "." .) }}{{ if gt (len $label) 63 }}{{ $short = false }}{{ end }}{{ end -}}
  {{- if $short }}name{{ end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.port — fail unless a port is a number from 1 to 65535.
Input:  dict "value" <string, without ":"> "key" <values key named in the message>
Output: nothing. A port that is not made of digits is not echoed: in a URL whose
        "@" was forgotten it would be the password.
*/}}
{{- define "proxykit.validate.port" -}}
{{- if not (regexMatch "^[0-9]*$" .value) -}}
  {{- fail (printf "proxykit: %s: the port is not a number between 1 and 65535" .key) -}}
{{- else if or (not (regexMatch "^[0-9]{1,5}$" .value)) (lt (atoi .value) 1) (gt (atoi .value) 65535) -}}
  {{- if .secret -}}
    {{- fail (printf "proxykit: %s: the port is not a number between 1 and 65535 (what stands there is not shown: it may be a password)" .key) -}}
  {{- end -}}
  {{- fail (printf "proxykit: %s: port %q is not a number between 1 and 65535" .key .value) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.proxyURL — fail unless the value is http(s)://[user-info@]host[:port][/].
Input:  dict "value" <string> "key" <values key named in the message> ["literalUserInfo" true]
Output: "credentials" when the URL carries user-info, nothing otherwise.
The URL is only checked, never rebuilt, so a password survives byte-exact.
The user-info holds only what Go's url.Parse, curl and Python read alike: letters,
digits, - . _ ~ ! $ & ' ( ) * + , ; = : and escapes of ASCII characters (a "/",
"#", "?", "@", quote or backslash must be percent-encoded; non-ASCII characters,
raw or escaped, fail: Python requests sends them as Latin-1, the others as UTF-8). With
"literalUserInfo" (tinyproxy's Upstream, which sends it as written) it is not checked.
The host must be a DNS name, an IPv4 address or a bracketed IPv6 address, which
also keeps "{{", "$(" and quotes out of policies that carry the URL.
Messages show the URL with its user-info replaced by "***", never the password.
*/}}
{{- define "proxykit.validate.proxyURL" -}}
{{- $url := .value -}}
{{- if regexMatch "[\\x00-\\x20\\x7F-\\x{9F}]" $url -}}
  {{- fail (printf "proxykit: %s contains whitespace or a control character; percent-encode it (%%20) or remove it" .key) -}}
{{- end -}}
{{- if not (regexMatch "^(?i)https?://" $url) -}}
  {{- /* the URL is not shown: a typo ("/" for "@") can leave a password outside the user-info */ -}}
  {{- fail (printf "proxykit: %s must start with http:// or https://" .key) -}}
{{- end -}}
{{- $parts := include "proxykit.url.split" $url | fromJson -}}
{{- $userInfo := $parts.userInfo -}}
{{- /* what Go's url.Parse takes in user-info, less "@": clients disagree on which "@"
       ends it, and a "/", "#", "?", quote or non-ASCII character makes Go, curl or
       Python read another host or no proxy at all. A "%" must start an escape. */ -}}
{{- if and $userInfo (not .literalUserInfo) (not (regexMatch "^([A-Za-z0-9._~!$&'()*+,;=:-]|%[0-7][0-9A-Fa-f])*$" $userInfo)) -}}
  {{- fail (printf "proxykit: %s: the user name or password holds a character a URL cannot carry as is (/ # ? @ %% quotes, backslash, or a %% that starts no escape), or a non-ASCII character, which clients send differently (Python requests as Latin-1), raw or escaped; percent-encode the others: / as %%2F, @ as %%40, %% as %%25, a space as %%20" .key) -}}
{{- end -}}
{{- $hostPort := $parts.hostPort -}}
{{- $host := "" -}}
{{- $port := "" -}}
{{- $hasPort := false -}}
{{- if hasPrefix "[" $hostPort -}}
  {{- if regexMatch "^\\[[^\\]]*\\](:.*)?$" $hostPort -}}
    {{- $host = regexReplaceAll "^\\[([^\\]]*)\\].*$" $hostPort "${1}" -}}
    {{- $port = regexReplaceAll "^\\[[^\\]]*\\]:?" $hostPort "" -}}
    {{- $hasPort = contains "]:" $hostPort -}}
    {{- if ne (include "proxykit.validate.ipVersion" $host) "6" }}{{ $host = "" }}{{ end -}}
  {{- end -}}
{{- else if not (regexMatch "[/?#\\[\\]]" $hostPort) -}}
  {{- $host = regexReplaceAll ":.*$" $hostPort "" -}}
  {{- $port = regexReplaceAll "^[^:]*:?" $hostPort "" -}}
  {{- $hasPort = contains ":" $hostPort -}}
  {{- /* an IPv6 host needs brackets */ -}}
  {{- if not (has (include "proxykit.validate.host" $host) (list "4" "name")) }}{{ $host = "" }}{{ end -}}
{{- end -}}
{{- if not $host -}}
  {{- fail (printf "proxykit: %s is not a proxy URL of the form http(s)://[user:password@]host[:port] (host: a DNS name, an IPv4 address or a bracketed IPv6 address; no path)" .key) -}}
{{- end -}}
{{- if $hasPort -}}
  {{- include "proxykit.validate.port" (dict "value" $port "key" .key "secret" true) -}}
{{- end -}}
{{- if $userInfo }}credentials{{ end -}}
{{- end -}}

{{/*
proxykit.validate.certificates — fail unless a value is one or more PEM certificates.
Input:  dict "value" <string> "key" <values key named in the message>
Output: nothing. Each block must be a "CERTIFICATE" PEM block whose body is base64
        of DER that starts as an X.509 certificate does (a SEQUENCE with a long-form
        length whose first element is a SEQUENCE: a private key in CERTIFICATE armour
        starts with an INTEGER and fails); text outside the blocks fails, so a private key pasted beside the
        certificate never goes to a ConfigMap.
*/}}
{{- define "proxykit.validate.certificates" -}}
{{- $block := "-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----" -}}
{{- $blocks := regexFindAll $block .value -1 -}}
{{- if not $blocks -}}
  {{- fail (printf "proxykit: %s holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)" .key) -}}
{{- end -}}
{{- if trim (regexReplaceAll $block .value "") -}}
  {{- fail (printf "proxykit: %s holds text besides PEM certificates (a private key, say); give only the CA certificates" .key) -}}
{{- end -}}
{{- range $i, $pem := $blocks -}}
  {{- $body := regexReplaceAll "\\s" (trimSuffix "-----END CERTIFICATE-----" (trimPrefix "-----BEGIN CERTIFICATE-----" $pem)) "" -}}
  {{- $der := "" -}}
  {{- if and (regexMatch "^[A-Za-z0-9+/]+={0,2}$" $body) (eq (mod (len $body) 4) 0) -}}
    {{- $der = b64dec $body -}}
  {{- end -}}
  {{- /* a certificate is a SEQUENCE whose first element, tbsCertificate, is a SEQUENCE
         ("0"); a private key put inside CERTIFICATE armour starts with an INTEGER there */ -}}
  {{- /* the length first: sprig's substr slices past the end of a short string and crashes */ -}}
  {{- $certificate := or (and (hasPrefix "0\x82" $der) (gt (len $der) 4) (eq (substr 4 5 $der) "0")) (and (hasPrefix "0\x83" $der) (gt (len $der) 5) (eq (substr 5 6 $der) "0")) -}}
  {{- if not $certificate -}}
    {{- fail (printf "proxykit: %s: certificate %d is not a base64 DER X.509 certificate (a private key or other data in CERTIFICATE armour, say); give only the CA certificates" $.key (add1 $i)) -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.secretName — fail unless a Secret name is a DNS-1123 subdomain.
Input:  dict "value" <string> "key" <values key named in the message>
Output: nothing.
*/}}
{{- define "proxykit.validate.secretName" -}}
{{- if not (and (le (len .value) 253) (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$" .value)) -}}
  {{- fail (printf "proxykit: %s: %q is not a valid Secret name (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)" .key (include "proxykit.validate.redact" .value)) -}}
{{- end -}}
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
Output: JSON list of trimmed, non-empty strings (decode with fromJsonArray). A list
        item that holds commas is split too ("a.example,b.example" in a list is
        two entries, as it would be in NO_PROXY). Control characters and
        whitespace inside an entry fail.
*/}}
{{- define "proxykit.validate.list" -}}
{{- $items := .value -}}
{{- if kindIs "string" $items -}}
  {{- $items = list $items -}}
{{- else if kindIs "invalid" $items -}}
  {{- $items = list -}}
{{- else if not (kindIs "slice" $items) -}}
  {{- fail (printf "proxykit: %s must be a list or a comma-separated string, got %s" .key (kindOf $items)) -}}
{{- end -}}
{{- /* written out as it goes, not appended to a list: append copies the list,
       which made 10,000 entries cost 100 times what 1,000 do */ -}}
[
{{- $first := true -}}
{{- range $i, $item := $items -}}
  {{- if not (kindIs "string" $item) -}}
    {{- fail (printf "proxykit: %s[%d] must be a string, got %s" $.key $i (kindOf $item)) -}}
  {{- end -}}
  {{- $key := ternary $.key (printf "%s[%d]" $.key $i) (kindIs "string" $.value) -}}
  {{- include "proxykit.validate.controlChars" (dict "value" $item "key" $key "multiline" true) -}}
  {{- range $part := splitList "," $item -}}
    {{- $part = trim $part -}}
    {{- /* what \s matches; other control characters failed above */ -}}
    {{- if or (contains " " $part) (contains "\t" $part) (contains "\n" $part) (contains "\r" $part) -}}
      {{- fail (printf "proxykit: %s: %q contains whitespace" $key (include "proxykit.validate.redact" $part)) -}}
    {{- end -}}
    {{- if $part }}{{ if not $first }},{{ end }}{{ toJson $part }}{{ $first = false }}{{ end -}}
  {{- end -}}
{{- end -}}
]
{{- end -}}

{{/*
proxykit.validate.ipv6Groups — an IPv6 address as its eight groups.
Input:  a string (not a dict) that proxykit.validate.ipVersion takes for IPv6.
Output: JSON {"groups": eight lower-case hex groups as written (leading zeros kept),
        "v4": the embedded IPv4 tail as written, or ""}; "::" expanded, an embedded
        IPv4 tail (::ffff:10.96.0.1) turned into its two groups.
*/}}
{{- define "proxykit.validate.ipv6Groups" -}}
{{- $halves := splitList "::" (lower .) -}}
{{- $left := list -}}
{{- if first $halves }}{{ $left = splitList ":" (first $halves) }}{{ end -}}
{{- $right := list -}}
{{- if and (eq (len $halves) 2) (last $halves) }}{{ $right = splitList ":" (last $halves) }}{{ end -}}
{{- $v4 := "" -}}
{{- $groups := concat $left $right -}}
{{- if and $groups (contains "." (last $groups)) -}}
  {{- $v4 = last $groups -}}
  {{- $o := splitList "." $v4 -}}
  {{- $tail := list (printf "%x" (add (mul (atoi (index $o 0)) 256) (atoi (index $o 1)))) (printf "%x" (add (mul (atoi (index $o 2)) 256) (atoi (index $o 3)))) -}}
  {{- if $right }}{{ $right = concat (initial $right) $tail }}{{ else }}{{ $left = concat (initial $left) $tail }}{{ end -}}
{{- end -}}
{{- $full := $left -}}
{{- range until (int (sub 8 (add (len $left) (len $right)))) }}{{ $full = append $full "0" }}{{ end -}}
{{- toJson (dict "groups" (concat $full $right) "v4" $v4) -}}
{{- end -}}

{{/*
proxykit.validate.canonicalIP — an IP address in the form net/netip prints it.
Input:  a string (not a dict) that proxykit.validate.ipVersion accepts.
Output: IPv4 as written (leading zeros fail earlier); IPv6 in lower case with
        leading zeros dropped and the longest run of two or more zero groups (the
        first, on a tie) written "::"; an IPv4-mapped address (::ffff:10.96.0.1)
        as the IPv4 address that clients connect to. curl, wget and urllib compare
        addresses as text, so fd00:10:96:0:0:0:0:1 must be listed as fd00:10:96::1.
*/}}
{{- define "proxykit.validate.canonicalIP" -}}
{{- if not (contains ":" .) -}}
{{ . }}
{{- else -}}
  {{- $parsed := include "proxykit.validate.ipv6Groups" . | fromJson -}}
  {{- $canonical := list -}}
  {{- range $g := $parsed.groups -}}
    {{- range until 3 }}{{ if and (gt (len $g) 1) (hasPrefix "0" $g) }}{{ $g = trimPrefix "0" $g }}{{ end }}{{ end -}}
    {{- $canonical = append $canonical $g -}}
  {{- end -}}
  {{- if and $parsed.v4 (eq (join ":" (slice $canonical 0 6)) "0:0:0:0:0:ffff") -}}
{{ $parsed.v4 }}
  {{- else -}}
    {{- /* the longest run of zero groups, at least two long */ -}}
    {{- $best := dict "at" -1 "len" 1 -}}
    {{- $run := dict "at" -1 "len" 0 -}}
    {{- range $i, $g := $canonical -}}
      {{- if eq $g "0" -}}
        {{- if eq (int $run.len) 0 }}{{ $_ := set $run "at" $i }}{{ end -}}
        {{- $_ := set $run "len" (add1 $run.len) -}}
        {{- if gt (int $run.len) (int $best.len) }}{{ $_ := set $best "at" $run.at }}{{ $_ := set $best "len" $run.len }}{{ end -}}
      {{- else -}}
        {{- $_ := set $run "len" 0 -}}
      {{- end -}}
    {{- end -}}
    {{- if lt (int $best.at) 0 -}}
{{ join ":" $canonical }}
    {{- else -}}
{{ join ":" (slice $canonical 0 (int $best.at)) }}::{{ join ":" (slice $canonical (int (add $best.at $best.len))) }}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.validate.canonicalCIDR — a CIDR in the form net/netip prints it, masked.
Input:  a string that proxykit.validate.cidr accepts.
Output: the network address with its host bits cleared, in canonical form, and the
        prefix length: 10.96.0.1/12 is 10.96.0.0/12, fd00:10:244:0:0::5/56 is fd00:10:244::/56.
*/}}
{{- define "proxykit.validate.canonicalCIDR" -}}
{{- $cidr := splitList "/" . -}}
{{- $addr := first $cidr -}}
{{- $bits := atoi (last $cidr) -}}
{{- /* each part (IPv4 octets of 8 bits, IPv6 groups of 16) keeps the bits the prefix covers */ -}}
{{- $v6 := contains ":" $addr -}}
{{- $width := ternary 16 8 $v6 -}}
{{- $hex := dict "0" 0 "1" 1 "2" 2 "3" 3 "4" 4 "5" 5 "6" 6 "7" 7 "8" 8 "9" 9 "a" 10 "b" 11 "c" 12 "d" 13 "e" 14 "f" 15 -}}
{{- $parts := splitList "." $addr -}}
{{- if $v6 }}{{ $parts = get (include "proxykit.validate.ipv6Groups" $addr | fromJson) "groups" }}{{ end -}}
{{- $masked := list -}}
{{- range $i, $p := $parts -}}
  {{- $value := 0 -}}
  {{- if $v6 -}}
    {{- range $c := splitList "" $p }}{{ $value = add (mul $value 16) (index $hex $c) }}{{ end -}}
  {{- else -}}
    {{- $value = atoi $p -}}
  {{- end -}}
  {{- $from := mul $i $width -}}
  {{- if ge $from $bits }}{{ $value = 0 }}{{ else if lt $bits (add $from $width) -}}
    {{- $unit := 1 }}{{ range until (int (sub (add $from $width) $bits)) }}{{ $unit = mul $unit 2 }}{{ end -}}
    {{- $value = sub $value (mod $value $unit) -}}
  {{- end -}}
  {{- $masked = append $masked (ternary (printf "%x" $value) (toString $value) $v6) -}}
{{- end -}}
{{- printf "%s/%d" (include "proxykit.validate.canonicalIP" (join (ternary ":" "." $v6) $masked)) $bits -}}
{{- end -}}
