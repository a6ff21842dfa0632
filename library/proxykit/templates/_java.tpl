{{/*
The JVM reads no proxy variable: it takes system properties, here given through
JAVA_TOOL_OPTIONS, which every JVM (java, jshell, a launcher) reads at start.
The NO_PROXY the library composes is translated to http.nonProxyHosts, whose
syntax is "|"-separated patterns with "*" only at either end, matched against
the URL's host text (IPv6 in brackets), case-insensitively, with no CIDR and
no port. The translation makes the JVM decide as Go's httpproxy does, entry by
entry, and leaves out what it cannot say rather than say something wider.
*/}}

{{/*
proxykit.java.options — the JVM's proxy flags for the resolved settings.
Input:  dict "context" $
        Works whether or not proxy.runtimes has java, for a chart that passes the
        flags its own way (JAVA_OPTS, a config file).
Output: "-Dhttp.proxyHost=H -Dhttp.proxyPort=P -Dhttps.proxyHost=H -Dhttps.proxyPort=P
        -Dhttp.nonProxyHosts=..." for the proxies that are set (https.* only with an
        HTTPS proxy, as Go sends https:// direct without one); nothing when the proxy
        is off. Never a credential: the JVM prints JAVA_TOOL_OPTIONS to stderr at
        every start, and its HTTP clients read no proxy credential from flags.
        With proxy.trustedCA, then -Djavax.net.ssl.trustStore=<the bundle's PKCS#12
        file>, its type and its (empty) password (see proxykit.java.trustFlags).
        Fails when the proxy URLs are only in proxy.existingSecret (host and port
        are unknown at render time) or a proxy URL is https:// (the JVM cannot
        speak TLS to its proxy).
*/}}
{{- define "proxykit.java.options" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.java.options") -}}
{{- $s := .context.proxykitSettings -}}
{{- if or $s.javaOptions (not $s.enabled) -}}
  {{- $s.javaOptions -}}
{{- else -}}
  {{- /* java is not among the runtimes: the chart author wants the flags for a config of their own */ -}}
  {{- $flags := include "proxykit.java.flags" (dict "http" $s.http "https" $s.https "httpKey" "proxy.http" "httpsKey" "proxy.https" "runtimesKey" "" "noProxy" $s.noProxy "existingSecret" (ne $s.existingSecret "")) -}}
  {{- join " " (compact (list $flags (include "proxykit.java.trustFlags" $s.trustedCA))) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.java.trustFlags — the JVM's flags for the trust bundle, with proxy.trustedCA.
Input:  the resolved trustedCA (a PEM string, "" when unset).
Output: -Djavax.net.ssl.trustStore=/etc/proxykit/ca/ca-certificates.p12
        -Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword=
        (empty: the store has none), or nothing without a trustedCA.
The JVM ignores SSL_CERT_FILE and reads no PEM bundle: it needs a trust store, which
trust-manager's Bundle writes beside the PEM (additionalFormats.pkcs12, password-less:
its certificates are not encrypted, so every JVM reads them, whatever ciphers it has).
It replaces the JVM's own cacerts, so the store must hold the public roots too, as the
Bundle's useDefaultCAs gives it. Containers only: a machine
has no such file (Debian's update-ca-certificates feeds the JVM's cacerts instead).
*/}}
{{- define "proxykit.java.trustFlags" -}}
{{- if . -}}
  {{- printf "-Djavax.net.ssl.trustStore=%s -Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword=" (include "proxykit.trust.bundle" dict | fromJson).pkcs12File -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.java.flags — the flags of proxykit.java.options, from resolved parts.
Input:  dict "http" <URL or ""> "https" <URL or ""> "httpKey" "httpsKey" "runtimesKey" <values
        keys, for messages; runtimesKey "" when proxykit.java.options was called
        directly> "noProxy" <the NO_PROXY string> "existingSecret" <bool>
Output: the flags, or nothing when no URL is set.
*/}}
{{- define "proxykit.java.flags" -}}
{{- $who := "proxykit.java.options was called" -}}
{{- $instead := "or do not call proxykit.java.options" -}}
{{- if .runtimesKey -}}
  {{- $who = printf "%s has java" .runtimesKey -}}
  {{- $instead = printf "or remove java from %s" .runtimesKey -}}
{{- end -}}
{{- if and .existingSecret (not (or .http .https)) -}}
  {{- fail (printf "proxykit: %s, which needs the proxy's host and port at render time for the JVM's flags, but the proxy URLs are only in proxy.existingSecret; also set proxy.http and proxy.https (the host and port are enough: http://proxy.example:3128), %s" $who $instead) -}}
{{- end -}}
{{- $flags := list -}}
{{- range $scheme := list "http" "https" -}}
  {{- $url := index $ $scheme -}}
  {{- if $url -}}
    {{- $parts := include "proxykit.url.split" $url | fromJson -}}
    {{- if ne (lower $parts.scheme) "http" -}}
      {{- fail (printf "proxykit: %s, but %s is an %s:// URL: the JVM speaks plain HTTP to its proxy (http.proxyHost has no TLS); give the proxy's http:// address, %s" $who (index $ (printf "%sKey" $scheme)) (lower $parts.scheme) $instead) -}}
    {{- end -}}
    {{- $host := $parts.hostPort -}}
    {{- $port := "80" -}}
    {{- if hasPrefix "[" $host -}}
      {{- if contains "]:" $host }}{{ $port = regexReplaceAll "^.*\\]:" $host "" }}{{ end -}}
      {{- $host = regexReplaceAll "^\\[([^\\]]*)\\].*$" $host "${1}" -}}
    {{- else if contains ":" $host -}}
      {{- $port = regexReplaceAll "^.*:" $host "" -}}
      {{- $host = regexReplaceAll ":[^:]*$" $host "" -}}
    {{- end -}}
    {{- $flags = concat $flags (list (printf "-D%s.proxyHost=%s" $scheme $host) (printf "-D%s.proxyPort=%s" $scheme $port)) -}}
  {{- end -}}
{{- end -}}
{{- if $flags -}}
  {{- $hosts := (include "proxykit.java.nonProxyHosts" .noProxy | fromJson).nonProxyHosts -}}
  {{- join " " (append $flags (printf "-Dhttp.nonProxyHosts=%s" $hosts)) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.java.nonProxyHosts — a NO_PROXY translated to the JVM's http.nonProxyHosts.
Input:  a NO_PROXY string (not a dict), comma-separated.
Output: JSON {"nonProxyHosts": "<pattern>|<pattern>|...", "skipped": [{"entry", "reason"}, ...]}:
  always                 localhost, 127.*, [::1]: Go never proxies loopback
  example.com, svc       example.com, *.example.com (the domain and everything under it)
  .example.com           *.example.com (subdomains only, as in Go)
  cluster.local.         cluster.local., *.cluster.local. (the trailing-dot form is its own host text)
  10.0.0.1               as written
  fd00::1, [fd00::1]     [fd00::1]: the JVM matches the URL's host, bracketed
  10.96.0.0/12           10.96.*, 10.97.*, ... 10.111.*: exactly the CIDR's addresses, never wider
                         (at most 256 patterns for one CIDR)
  *                      * (every host)
  skipped: an IPv6 CIDR (the JVM has no CIDR, and an IPv6 address no wildcard form),
  an entry with a port (nonProxyHosts has none: the JVM sends that host through the
  proxy), anything else it cannot read. Each pattern once, first occurrence kept.
*/}}
{{- define "proxykit.java.nonProxyHosts" -}}
{{- /* patterns by position, joined once: appending to a list copies it */ -}}
{{- $byPosition := dict -}}
{{- $skipped := list -}}
{{- $powers := list 1 2 4 8 16 32 64 128 256 -}}
{{- range $position, $raw := splitList "," . -}}
  {{- $entry := lower (trim $raw) -}}
  {{- if not $entry }}{{ continue }}{{ end -}}
  {{- $out := list -}}
  {{- $reason := "" -}}
  {{- if eq $entry "*" -}}
    {{- $out = list "*" -}}
  {{- else if contains "/" $entry -}}
    {{- $address := regexReplaceAll "/.*$" $entry "" -}}
    {{- $bitsText := regexReplaceAll "^[^/]*/" $entry "" -}}
    {{- $version := include "proxykit.validate.ipVersion" $address -}}
    {{- if eq $version "6" -}}
      {{- $reason = "an IPv6 CIDR: http.nonProxyHosts has no CIDR, and an IPv6 address has no wildcard form; the JVM sends these addresses through the proxy" -}}
    {{- else if or (ne $version "4") (not $bitsText) (trimAll "0123456789" $bitsText) (gt (len $bitsText) 2) (gt (atoi $bitsText) 32) -}}
      {{- $reason = "not a CIDR the JVM's patterns can express" -}}
    {{- else -}}
      {{- $bits := atoi $bitsText -}}
      {{- $octets := splitList "." $address -}}
      {{- $k := div $bits 8 -}}
      {{- $r := mod $bits 8 -}}
      {{- $prefix := "" -}}
      {{- range $i := until (int $k) }}{{ $prefix = printf "%s%s." $prefix (index $octets $i) }}{{ end -}}
      {{- if eq $k 4 -}}
        {{- $out = list $address -}}
      {{- else if and (eq $r 0) (gt $k 0) -}}
        {{- $out = list (printf "%s*" $prefix) -}}
      {{- else -}}
        {{- /* the octet the prefix ends in: each of its values that the CIDR holds */ -}}
        {{- $count := index $powers (int (sub 8 $r)) -}}
        {{- $octet := atoi (index $octets (int $k)) -}}
        {{- $start := sub $octet (mod $octet $count) -}}
        {{- range $i := until (int $count) -}}
          {{- $out = append $out (printf "%s%d%s" $prefix (add $start $i) (ternary "" ".*" (eq $k 3))) -}}
        {{- end -}}
      {{- end -}}
    {{- end -}}
  {{- else if regexMatch "^[0-9.]+-[0-9.]+$" $entry -}}
    {{- /* an IPv4 range is Node's form of a CIDR the list also holds, which the patterns express */ -}}
  {{- else if hasPrefix "[" $entry -}}
    {{- if hasSuffix "]" $entry -}}
      {{- $out = list $entry -}}
    {{- else -}}
      {{- $reason = "a port: http.nonProxyHosts matches hosts on every port, so the JVM sends this host through the proxy" -}}
    {{- end -}}
  {{- else if eq (include "proxykit.validate.ipVersion" $entry) "6" -}}
    {{- $out = list (printf "[%s]" $entry) -}}
  {{- else if regexMatch ":[0-9]*$" $entry -}}
    {{- $reason = "a port: http.nonProxyHosts matches hosts on every port, so the JVM sends this host through the proxy" -}}
  {{- else if eq (include "proxykit.validate.ipVersion" $entry) "4" -}}
    {{- $out = list $entry -}}
  {{- else if hasPrefix "*." $entry -}}
    {{- $out = list $entry -}}
  {{- else if hasPrefix "." $entry -}}
    {{- $out = list (printf "*%s" $entry) -}}
  {{- else if not (contains "*" $entry) -}}
    {{- $out = list $entry (printf "*.%s" $entry) -}}
  {{- else -}}
    {{- $reason = "a wildcard the JVM's patterns do not read as Go does" -}}
  {{- end -}}
  {{- if $reason -}}
    {{- $skipped = append $skipped (dict "entry" (trim $raw) "reason" $reason) -}}
  {{- end -}}
  {{- $_ := set $byPosition (printf "%09d" $position) $out -}}
{{- end -}}
{{- $joined := include "proxykit.noProxy.join" (dict "entries" (list "localhost" "127.*" "[::1]") "extra" $byPosition) -}}
{{- /* no pattern holds a comma: the entries were split at them */ -}}
{{- toJson (dict "nonProxyHosts" (replace "," "|" $joined) "skipped" $skipped) -}}
{{- end -}}
