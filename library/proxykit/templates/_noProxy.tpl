{{/*
NO_PROXY composition. Public access goes through proxykit.proxy.noProxy; this
file holds the rules so they live in one place.
*/}}

{{/*
proxykit.noProxy.compose — the full NO_PROXY string for one cluster.
Input:  dict "cluster" <the cluster values map> "entries" <list|string|nil> "entriesKey" <values key of entries>
Output: comma-separated, no spaces, each entry once (first occurrence kept), in this order:
  localhost, 127.0.0.1, ::1           loopback
  <domain>, <domain>.                 the cluster domain and everything under it, with and without trailing dot
  svc                                 short service names (name.namespace.svc)
  cluster.podCIDRs, cluster.serviceCIDRs
  cluster.apiServer                   listed explicitly: no client resolves names to match CIDRs
  169.254.169.254, metadata.google.internal   unless cluster.metadataEndpoints is false
  entries                             installation-wide bypasses; "*.example.com" is written ".example.com"
*/}}
{{- define "proxykit.noProxy.compose" -}}
{{- $cluster := .cluster -}}
{{- $hostname := "^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$" -}}

{{- $domain := index $cluster "domain" | default "cluster.local" -}}
{{- if not (kindIs "string" $domain) -}}
  {{- fail (printf "proxykit: cluster.domain must be a string, got %s" (kindOf $domain)) -}}
{{- end -}}
{{- $domain = trimSuffix "." (trim $domain) -}}
{{- if not (regexMatch $hostname $domain) -}}
  {{- fail (printf "proxykit: cluster.domain: %q is not a DNS domain such as cluster.local" $domain) -}}
{{- end -}}
{{- $entries := list "localhost" "127.0.0.1" "::1" $domain (printf "%s." $domain) "svc" -}}

{{- range $name := list "podCIDRs" "serviceCIDRs" -}}
  {{- $key := printf "cluster.%s" $name -}}
  {{- range $cidr := include "proxykit.validate.list" (dict "value" (index $cluster $name) "key" $key) | fromJsonArray -}}
    {{- include "proxykit.validate.cidr" (dict "value" $cidr "key" $key) -}}
    {{- $entries = append $entries $cidr -}}
  {{- end -}}
{{- end -}}

{{- $apiServer := index $cluster "apiServer" | default "" -}}
{{- if not (kindIs "string" $apiServer) -}}
  {{- fail (printf "proxykit: cluster.apiServer must be a string, got %s" (kindOf $apiServer)) -}}
{{- end -}}
{{- $apiServer = trim $apiServer | trimPrefix "[" | trimSuffix "]" -}}
{{- if $apiServer -}}
  {{- $isIP := include "proxykit.validate.ipVersion" $apiServer -}}
  {{- if not (or $isIP (and (regexMatch $hostname $apiServer) (not (regexMatch "^[0-9.]+$" $apiServer)))) -}}
    {{- fail (printf "proxykit: cluster.apiServer: %q must be a host name or an IP address, without scheme or port" $apiServer) -}}
  {{- end -}}
  {{- $entries = append $entries $apiServer -}}
{{- end -}}

{{- $metadata := true -}}
{{- if hasKey $cluster "metadataEndpoints" -}}
  {{- $metadata = index $cluster "metadataEndpoints" -}}
  {{- if not (kindIs "bool" $metadata) -}}
    {{- fail (printf "proxykit: cluster.metadataEndpoints must be true or false, got %s" (kindOf $metadata)) -}}
  {{- end -}}
{{- end -}}
{{- if $metadata -}}
  {{- $entries = concat $entries (list "169.254.169.254" "metadata.google.internal") -}}
{{- end -}}

{{- range $entry := include "proxykit.validate.list" (dict "value" .entries "key" .entriesKey) | fromJsonArray -}}
  {{- if contains "/" $entry -}}
    {{- include "proxykit.validate.cidr" (dict "value" $entry "key" $.entriesKey) -}}
  {{- end -}}
  {{- /* ".example.com" means the same as "*.example.com" to Go, curl, wget and Python */ -}}
  {{- $entries = append $entries (ternary (trimPrefix "*" $entry) $entry (hasPrefix "*." $entry)) -}}
{{- end -}}

{{- $seen := dict -}}
{{- $unique := list -}}
{{- range $entry := $entries -}}
  {{- if not (hasKey $seen $entry) -}}
    {{- $_ := set $seen $entry true -}}
    {{- $unique = append $unique $entry -}}
  {{- end -}}
{{- end -}}
{{- join "," $unique -}}
{{- end -}}
