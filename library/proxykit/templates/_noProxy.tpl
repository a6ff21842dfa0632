{{/*
NO_PROXY composition. Public access goes through proxykit.proxy.noProxy; this
file holds the rules so they live in one place.
*/}}

{{/*
proxykit.noProxy.compose — the full NO_PROXY string for one cluster.
Input:  dict "cluster" <the cluster values map> "entries" <list|string|nil> "entriesKey" <values key of entries>
Output: JSON {"noProxy": <string>, "networks": <bool>, "cluster": <facts>}. noProxy is comma-separated,
  without spaces, each entry once (first occurrence kept), in this order:
  localhost, 127.0.0.1, ::1, [::1]    loopback
  <domain>, .<domain>, <domain>., .<domain>.
                                      the cluster domain and everything under it, with and without trailing
                                      dot; the dotted forms for .NET, which matches a bare entry only exactly
                                      and compares the host with its trailing dot
  svc, .svc                           short service names (name.namespace.svc), bare and dotted as the domain
  kubernetes, kubernetes.default, kubernetes.default.svc
                                      the API server's Service by every name clients use (Jenkins' default
                                      URL is https://kubernetes.default, which neither svc nor the domain covers)
  cluster.podCIDRs, cluster.serviceCIDRs, cluster.nodeCIDRs
  cluster.apiServer                   listed explicitly: no client resolves names to match CIDRs
  169.254.169.254, metadata.google.internal, 168.63.129.16, 169.254.170.23,
  fd00:ec2::254, [fd00:ec2::254], fd00:ec2::23, [fd00:ec2::23]
                                      unless cluster.metadataEndpoints is false
  entries                             installation-wide bypasses (see proxykit.noProxy.entry)
  Every IPv6 address is listed bare and in brackets: Python's urllib compares the
  URL's host text, which keeps the brackets. Every bracketed entry comes last (see
  proxykit.noProxy.join): the fabric8 Kubernetes client throws on the first entry
  outside [0-9A-Za-z./:-] it reaches before a match.
  networks is true when a pod or service CIDR is known (cluster.podCIDRs,
  cluster.serviceCIDRs or a CIDR among the entries); services when the API
  server's ClusterIP is covered by what is known (cluster.serviceCIDRs,
  cluster.apiServer, or a CIDR among the entries).
  cluster holds the cluster.* keys as read here (see proxykit.cluster.facts), cluster.namespaces
  among them: no entry of NO_PROXY, but the namespaces whose name.namespace calls are the cluster's.
*/}}
{{- define "proxykit.noProxy.compose" -}}
{{- $cluster := .cluster -}}
{{- $domain := index $cluster "domain" | default "cluster.local" -}}
{{- if not (kindIs "string" $domain) -}}
  {{- fail (printf "proxykit: cluster.domain must be a string, got %s" (kindOf $domain)) -}}
{{- end -}}
{{- include "proxykit.validate.controlChars" (dict "value" $domain "key" "cluster.domain") -}}
{{- $domain = trimSuffix "." (trim $domain) -}}
{{- if or (hasSuffix "." $domain) (ne (include "proxykit.validate.host" $domain) "name") -}}
  {{- fail (printf "proxykit: cluster.domain: %q is not a DNS domain such as cluster.local" (include "proxykit.validate.redact" $domain)) -}}
{{- end -}}
{{- $entries := list "localhost" "127.0.0.1" "::1" "[::1]" $domain (printf ".%s" $domain) (printf "%s." $domain) (printf ".%s." $domain) "svc" ".svc" "kubernetes" "kubernetes.default" "kubernetes.default.svc" -}}

{{- $networks := false -}}
{{- $services := false -}}
{{- $facts := dict "domain" $domain "apiServer" "" "metadataEndpoints" true -}}
{{- /* the namespaces the cluster has: no NO_PROXY entry, but a call to name.namespace is one
       into the cluster for them even when the namespace is a top-level domain too (security) */ -}}
{{- $namespaces := list -}}
{{- range $ns := include "proxykit.validate.list" (dict "value" (index $cluster "namespaces") "key" "cluster.namespaces") | fromJsonArray -}}
  {{- if not (and (le (len $ns) 63) (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $ns)) -}}
    {{- fail (printf "proxykit: cluster.namespaces: %q is not a namespace name (a DNS label: lower case letters, digits and -, at most 63)" (include "proxykit.validate.redact" $ns)) -}}
  {{- end -}}
  {{- $namespaces = append $namespaces $ns -}}
{{- end -}}
{{- if $namespaces }}{{ $_ := set $facts "namespaces" $namespaces }}{{ end -}}
{{- range $name := list "podCIDRs" "serviceCIDRs" "nodeCIDRs" -}}
  {{- $key := printf "cluster.%s" $name -}}
  {{- $cidrs := include "proxykit.noProxy.cidrs" (dict "value" (index $cluster $name) "key" $key) | fromJsonArray -}}
  {{- $entries = concat $entries $cidrs -}}
  {{- if $cidrs -}}
    {{- if ne $name "nodeCIDRs" }}{{ $networks = true }}{{ end -}}
    {{- if eq $name "serviceCIDRs" }}{{ $services = true }}{{ end -}}
  {{- end -}}
  {{- $_ := set $facts $name $cidrs -}}
{{- end -}}

{{- $apiServer := index $cluster "apiServer" | default "" -}}
{{- if not (kindIs "string" $apiServer) -}}
  {{- fail (printf "proxykit: cluster.apiServer must be a string, got %s" (kindOf $apiServer)) -}}
{{- end -}}
{{- include "proxykit.validate.controlChars" (dict "value" $apiServer "key" "cluster.apiServer") -}}
{{- $apiServer = trim $apiServer | trimPrefix "[" | trimSuffix "]" -}}
{{- if $apiServer -}}
  {{- $kind := include "proxykit.validate.host" $apiServer -}}
  {{- if not $kind -}}
    {{- fail (printf "proxykit: cluster.apiServer: %q must be a host name or an IP address, without scheme or port" (include "proxykit.validate.redact" $apiServer)) -}}
  {{- end -}}
  {{- if ne $kind "name" -}}
    {{- $apiServer = include "proxykit.validate.canonicalIP" $apiServer -}}
    {{- $kind = ternary "6" "4" (contains ":" $apiServer) -}}
  {{- end -}}
  {{- $entries = append $entries $apiServer -}}
  {{- $_ := set $facts "apiServer" $apiServer -}}
  {{- $services = true -}}
  {{- if eq $kind "6" }}{{ $entries = append $entries (printf "[%s]" $apiServer) }}{{ end -}}
{{- end -}}

{{- $metadata := true -}}
{{- if hasKey $cluster "metadataEndpoints" -}}
  {{- $metadata = index $cluster "metadataEndpoints" -}}
  {{- if not (kindIs "bool" $metadata) -}}
    {{- fail (printf "proxykit: cluster.metadataEndpoints must be true or false, got %s" (kindOf $metadata)) -}}
  {{- end -}}
{{- end -}}
{{- $_ := set $facts "metadataEndpoints" $metadata -}}
{{- if $metadata -}}
  {{- /* AWS, GCP and Azure instance metadata, GCP's name for it, Azure's platform address
         (wireserver), EKS Pod Identity's agent (Pods that use it fetch their credentials
         there), and AWS's IPv6 instance metadata and Pod Identity (bare and bracketed, as
         every IPv6 address) */ -}}
  {{- $entries = concat $entries (list "169.254.169.254" "metadata.google.internal" "168.63.129.16" "169.254.170.23" "fd00:ec2::254" "[fd00:ec2::254]" "fd00:ec2::23" "[fd00:ec2::23]") -}}
{{- end -}}

{{- /* installation-wide entries by position, kept in a dict: appending to a list
       copies it, which grew the cost with the square of the entries */ -}}
{{- $extra := dict -}}
{{- $given := include "proxykit.validate.list" (dict "value" .entries "key" .entriesKey) | fromJsonArray -}}
{{- $suffixes := dict -}}
{{- if $given }}{{ $suffixes = include "proxykit.noProxy.publicSuffixes" dict | fromJson }}{{ end -}}
{{- range $i, $entry := $given -}}
  {{- $_ := set $extra (printf "%09d" $i) (include "proxykit.noProxy.entry" (dict "value" $entry "key" $.entriesKey "suffixes" $suffixes) | fromJsonArray) -}}
  {{- if contains "/" $entry }}{{ $networks = true }}{{ $services = true }}{{ end -}}
{{- end -}}
{{- $noProxy := include "proxykit.noProxy.join" (dict "entries" $entries "extra" $extra) -}}
{{- toJson (dict "noProxy" $noProxy "networks" $networks "services" $services "cluster" $facts) -}}
{{- end -}}

{{/*
proxykit.noProxy.cidrs — a list of CIDRs, each checked and in its canonical form.
Input:  dict "value" <list or comma-separated string> "key" <values key named in messages>
Output: JSON list, written out as it goes: appending to a list copies it, which made
        10,000 pod CIDRs cost 7.9x the time of 2,500.
*/}}
{{- define "proxykit.noProxy.cidrs" -}}
[
{{- range $i, $cidr := include "proxykit.validate.list" (dict "value" .value "key" .key) | fromJsonArray -}}
  {{- include "proxykit.validate.cidr" (dict "value" $cidr "key" $.key) -}}
  {{- if $i }},{{ end }}{{ include "proxykit.validate.canonicalCIDR" $cidr | toJson -}}
{{- end -}}
]
{{- end -}}

{{/*
proxykit.noProxy.join — entries joined with ",", each once (first occurrence kept),
every bracketed IPv6 entry ([::1], [fd00::1]:5000) after all the others.
Input:  dict "entries" <list> "extra" <dict of position (sortable) -> list of entries>
Output: the NO_PROXY string, written out as it goes (linear in the entries). The
        fabric8 Kubernetes client (Jenkins' Kubernetes cloud, Spark, Strimzi) throws on
        the first entry outside [0-9A-Za-z./:-] it reaches before a match: with the
        brackets last, every cluster destination matches before it gets there.
*/}}
{{- define "proxykit.noProxy.join" -}}
{{- $seen := dict -}}
{{- $first := true -}}
{{- /* lists by position ("" first, then extra's), and the bracketed entries by their
       order: never appended to a list, which copies it each time */ -}}
{{- $groups := merge (dict "" .entries) .extra -}}
{{- $bracketed := dict -}}
{{- range $at := keys $groups | sortAlpha -}}
  {{- range $entry := index $groups $at -}}
    {{- if hasPrefix "[" $entry -}}
      {{- $_ := set $bracketed (printf "%09d" (len $bracketed)) $entry -}}
    {{- else if not (hasKey $seen $entry) -}}
      {{- $_ := set $seen $entry true }}{{ if not $first }},{{ end }}{{ $entry }}{{ $first = false -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- range $at := keys $bracketed | sortAlpha -}}
  {{- $entry := index $bracketed $at -}}
  {{- if not (hasKey $seen $entry) }}{{ $_ := set $seen $entry true }}{{ if not $first }},{{ end }}{{ $entry }}{{ $first = false }}{{ end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.noProxy.entry — one installation-wide NO_PROXY entry, checked and written portably.
Input:  dict "value" <string, trimmed, no whitespace> "key" <values key named in the message>
        ["suffixes" <proxykit.noProxy.publicSuffixes, read with fromJson once by a caller that checks many entries>]
Output: JSON list of the entries to add:
  10.0.0.0/8, fd00::/8            a CIDR, masked and in canonical form (10.0.0.1/8 is 10.0.0.0/8)
  .example.com                    also for "*.example.com" (".example.com" means the same to Go, curl, wget and Python)
  host, host:port, 10.0.0.1       as written
  fd00::1 or [fd00::1]            both forms, bare and bracketed, in canonical form
                                  (fd00:0::0001 is fd00::1; ::ffff:10.0.0.1 is 10.0.0.1)
  [fd00::1]:5000                  as written
Fails on "*" (it would bypass the proxy for every host), on a wildcard anywhere
but a leading "*.", on anything that is not a host name, domain, IP address or CIDR,
and on what sends public hosts around the proxy: a public suffix of the ICANN section
(com, .io, app, co.uk:443) and a CIDR wider than one holder's block that holds public
addresses (128.0.0.0/1, 2000::/3). A provider's suffix (github.io, googleapis.com,
s3.us-east-1.amazonaws.com) is kept: operators bypass their cloud's endpoints on purpose.
*/}}
{{- define "proxykit.noProxy.entry" -}}
{{- $entry := .value -}}
{{- $key := .key -}}
{{- if eq $entry "*" -}}
  {{- fail (printf "proxykit: %s: \"*\" would send every host around the proxy; turn the proxy off instead (leave proxy.http and proxy.https empty)" $key) -}}
{{- end -}}
{{- if contains "*" $entry -}}
  {{- if not (and (hasPrefix "*." $entry) (not (contains "*" (trimPrefix "*." $entry)))) -}}
    {{- fail (printf "proxykit: %s: %q has a wildcard where NO_PROXY does not take one; only a leading \"*.\" is allowed, as in *.example.com" $key (include "proxykit.validate.redact" $entry)) -}}
  {{- end -}}
  {{- $entry = trimPrefix "*" $entry -}}
{{- end -}}
{{- $out := list $entry -}}
{{- $invalid := false -}}
{{- if contains "/" $entry -}}
  {{- include "proxykit.validate.cidr" (dict "value" $entry "key" $key) -}}
  {{- $out = list (include "proxykit.validate.canonicalCIDR" $entry) -}}
  {{- if include "proxykit.noProxy.widePublic" (first $out) -}}
    {{- fail (printf "proxykit: %s: %q holds public addresses of many holders (wider than an IPv4 /8 or an IPv6 /32): NO_PROXY would send them all around the proxy; name your own networks instead" $key (first $out)) -}}
  {{- end -}}
{{- else if hasPrefix "[" $entry -}}
  {{- $host := regexReplaceAll "^\\[([^\\]]*)\\](:[0-9]+)?$" $entry "${1}" -}}
  {{- if or (eq $host $entry) (ne (include "proxykit.validate.ipVersion" $host) "6") -}}
    {{- $invalid = true -}}
  {{- else if contains "]:" $entry -}}
    {{- $port := regexReplaceAll "^.*\\]:" $entry "" -}}
    {{- include "proxykit.validate.port" (dict "value" $port "key" (printf "%s: %s" $key (include "proxykit.validate.redact" $entry))) -}}
    {{- $out = list (printf "[%s]:%s" (include "proxykit.validate.canonicalIP" $host) $port) -}}
  {{- else -}}
    {{- $host = include "proxykit.validate.canonicalIP" $host -}}
    {{- $out = ternary (list $host (printf "[%s]" $host)) (list $host) (contains ":" $host) -}}
  {{- end -}}
{{- else if eq (include "proxykit.validate.ipVersion" $entry) "6" -}}
  {{- $host := include "proxykit.validate.canonicalIP" $entry -}}
  {{- $out = ternary (list $host (printf "[%s]" $host)) (list $host) (contains ":" $host) -}}
{{- else -}}
  {{- $parts := splitList ":" $entry -}}
  {{- $host := first $parts -}}
  {{- $kind := include "proxykit.validate.host" (trimPrefix "." $host) -}}
  {{- if or (gt (len $parts) 2) (not $kind) (and (hasPrefix "." $host) (ne $kind "name")) -}}
    {{- $invalid = true -}}
  {{- else if eq (len $parts) 2 -}}
    {{- include "proxykit.validate.port" (dict "value" (last $parts) "key" (printf "%s: %s" $key (include "proxykit.validate.redact" $entry))) -}}
  {{- end -}}
  {{- if and (not $invalid) (eq $kind "name") (eq (include "proxykit.noProxy.publicSuffix" (dict "name" $host "suffixes" .suffixes)) "icann") -}}
    {{- fail (printf "proxykit: %s: %q is a public suffix: every host under %s belongs to someone else, and NO_PROXY would send them all around the proxy; name your own domains instead (.corp.example)" $key (include "proxykit.validate.redact" $entry) (trimAll "." $host)) -}}
  {{- end -}}
  {{- if and (not $invalid) (hasPrefix "." $host) -}}
    {{- /* its bare twin first: clients that match an entry as a pattern of the whole host name
           (Keycloak's (?:.+\.)?<entry>, .NET's exact names) match no real host with the dot */ -}}
    {{- $out = list (trimPrefix "." $entry) $entry -}}
  {{- end -}}
{{- end -}}
{{- if $invalid -}}
  {{- fail (printf "proxykit: %s: %q is not a host name, domain (.example.com), IP address, [IPv6]:port or CIDR" $key (include "proxykit.validate.redact" $entry)) -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
proxykit.noProxy.forNode — NO_PROXY with the forms Node.js needs, for proxy.runtimes node.
Input:  a NO_PROXY string (not a dict).
Output: the same entries, each bare host name (with or without :port) followed by its
        ".name" form, each IPv4 CIDR by its address range:
        cluster.local,.cluster.local,...,10.96.0.0/12,10.96.0.0-10.111.255.255,...
With NODE_USE_ENV_PROXY=1, Node's http module (http.request) matches a bare entry only
exactly, a ".name" entry as the name and its subdomains, and an IPv4 range "a-b", but no
CIDR; fetch (undici) before Node 24 matches a bare entry only exactly too. Go, curl, wget
and Python read a bare name as the domain and everything under it and ".name" as its
subdomains, and no client but Node.js reads a range, so the added entries change no
other client's decision (the JVM's translation leaves ranges out).
*/}}
{{- define "proxykit.noProxy.forNode" -}}
{{- $entries := splitList "," . -}}
{{- $seen := dict -}}
{{- range $entry := $entries }}{{ $_ := set $seen $entry true }}{{ end -}}
{{- $first := true -}}
{{- range $entry := $entries -}}
  {{- if not $first }},{{ end }}{{ $entry }}{{ $first = false -}}
  {{- if contains "/" $entry -}}
    {{- $range := include "proxykit.noProxy.ipv4Range" $entry -}}
    {{- if and $range (not (hasKey $seen $range)) }},{{ $range }}{{ $_ := set $seen $range true }}{{ end -}}
  {{- else if not (or (not $entry) (hasPrefix "." $entry) (hasPrefix "[" $entry) (contains "*" $entry) (gt (len (splitList ":" $entry)) 2) (hasKey $seen (printf ".%s" $entry))) -}}
    {{- if ne (include "proxykit.validate.ipVersion" (first (splitList ":" $entry))) "4" -}}
      ,.{{ $entry }}{{ $_ := set $seen (printf ".%s" $entry) true -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.noProxy.forFabric8 — NO_PROXY for a container that may run the fabric8
Kubernetes client (Jenkins' Kubernetes cloud, the Spark, Flink, Keycloak and Strimzi
operators): the same entries but the bracketed IPv6 ones ([::1], [fd00::1]:5000).
fabric8 reads NO_PROXY in order and throws on the first entry with a bracket it reaches
before one matches: for a destination no entry matches (another cluster's API server)
it reaches them whatever their place. The JVM reads its own -Dhttp.nonProxyHosts, which
keeps them, and Go, curl and requests match an IPv6 host by its bare entry; Python's
urllib, which compares the bracketed host text, is what loses them.
Input:  a NO_PROXY string. Output: the string.
*/}}
{{- define "proxykit.noProxy.forFabric8" -}}
{{- /* written out as it goes: appending to a list copies it */ -}}
{{- $first := true -}}
{{- range $entry := splitList "," . -}}
  {{- if not (hasPrefix "[" $entry) }}{{ if not $first }},{{ end }}{{ $entry }}{{ $first = false }}{{ end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.noProxy.ipv4Range — an IPv4 CIDR as the address range Node's http module reads.
Input:  a CIDR string: 10.96.0.0/12.
Output: first-last (10.96.0.0-10.111.255.255); nothing for an IPv6 CIDR or anything else.
*/}}
{{- define "proxykit.noProxy.ipv4Range" -}}
{{- $parts := splitList "/" . -}}
{{- $bits := last $parts -}}
{{- if and (eq (len $parts) 2) (eq (include "proxykit.validate.ipVersion" (first $parts)) "4") (regexMatch "^[0-9]{1,2}$" $bits) (le (atoi $bits) 32) -}}
  {{- $sizes := list 256 128 64 32 16 8 4 2 1 -}}
  {{- $from := list -}}
  {{- $to := list -}}
  {{- range $i, $octet := splitList "." (first $parts) -}}
    {{- /* how many of this octet's 8 bits the prefix fixes, and so how many values it spans */ -}}
    {{- $size := index $sizes (int (max 0 (min 8 (sub (atoi $bits) (mul $i 8))))) -}}
    {{- $start := sub (atoi $octet) (mod (atoi $octet) $size) -}}
    {{- $from = append $from $start -}}
    {{- $to = append $to (add $start (sub $size 1)) -}}
  {{- end -}}
  {{- printf "%s-%s" (join "." $from) (join "." $to) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.noProxy.publicSuffix — whether a host name is itself a public suffix.
Input:  dict "name" <host name; case, a leading and a trailing "." ignored>
        ["suffixes" (include "proxykit.noProxy.publicSuffixes" dict | fromJson)]
        Pass "suffixes" when asking for many names: the table is read once.
        Or dict "names" (list NAME ...): every verdict of one reading of the table.
Output: "icann" (com, .io, co.uk, ck, foo.ck), "private" (github.io, vercel.app) or nothing;
        for "names", a JSON object of the names that are one, each with its verdict.
        The same verdict as Go's cluster.PublicSuffix, for the names the table holds.
*/}}
{{- define "proxykit.noProxy.publicSuffix" -}}
{{- $table := .suffixes -}}
{{- if not $table }}{{ $table = include "proxykit.noProxy.publicSuffixes" dict | fromJson }}{{ end -}}
{{- if hasKey . "names" -}}
  {{- $out := dict -}}
  {{- range $name := .names -}}
    {{- $verdict := include "proxykit.noProxy.publicSuffix" (dict "name" $name "suffixes" $table) -}}
    {{- if $verdict }}{{ $_ := set $out $name $verdict }}{{ end -}}
  {{- end -}}
  {{- toJson $out -}}
{{- else -}}
  {{- $name := lower (trimAll "." .name) -}}
  {{- $section := index $table $name -}}
  {{- $parent := regexReplaceAll "^[^.]*[.]?" $name "" -}}
  {{- if and (not $section) $parent (not (hasKey $table (printf "!%s" $name))) -}}
    {{- $section = index $table (printf "*.%s" $parent) -}}
  {{- end -}}
  {{- if eq $section "i" }}icann{{ else if eq $section "p" }}private{{ end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.noProxy.icannSuffixes — the rules of the public suffix list's ICANN section as one
string, each between bars: "|ac|com.ac|*.ck|!www.ck|...|". For engines that look a name up
with a substring search (the policies' CEL and JMESPath, where a string literal is a
constant and a map literal is built anew on every request): a name n is a suffix when
"|n|" is in it; or, for a name of one label, "|*.n|" (ck, whose names all sit under *.ck);
or, for a longer one, "|*.<n's parent>|" is and "|!n|" is not (foo.ck, but not www.ck).
Input:  none (dict).
Output: the string.
*/}}
{{- define "proxykit.noProxy.icannSuffixes" -}}
{{- $table := include "proxykit.noProxy.publicSuffixes" dict | fromJson -}}
{{- /* written out as it goes: appending 7,000 rules to a list one by one copies it each time */ -}}
|{{ range $rule := keys $table | sortAlpha }}{{ if eq (index $table $rule) "i" }}{{ $rule }}|{{ end }}{{ end -}}
{{- end -}}

{{/*
proxykit.noProxy.widePublic — whether a CIDR (canonical) is wider than any one holder's
block and holds public addresses: IPv4 wider than /8, IPv6 wider than /32 outside
fc00::/7 (unique local) and fe80::/10 (link-local). The same verdict as Go's cluster.Public.
Input:  a canonical CIDR string.
Output: "true" or nothing.
*/}}
{{- define "proxykit.noProxy.widePublic" -}}
{{- $parts := splitList "/" . -}}
{{- $bits := atoi (last $parts) -}}
{{- if eq (include "proxykit.validate.ipVersion" (first $parts)) "4" -}}
  {{- if lt $bits 8 }}true{{ end -}}
{{- else if lt $bits 32 -}}
  {{- $first := lower (first (splitList ":" (first $parts))) -}}
  {{- $ula := and (ge $bits 7) (regexMatch "^f[cd][0-9a-f]{2}$" $first) -}}
  {{- $linkLocal := and (ge $bits 10) (regexMatch "^fe[89ab][0-9a-f]$" $first) -}}
  {{- if not (or $ula $linkLocal) }}true{{ end -}}
{{- end -}}
{{- end -}}
