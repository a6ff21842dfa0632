{{/*
The cluster facts as the library reads them, for tools: Go's proxytest and the
proxykit CLI render this helper instead of parsing cluster.* themselves.
*/}}

{{/*
proxykit.cluster.facts — the cluster.* keys as the library reads them, for tools.
Input:  dict "context" $
Output: JSON {"domain", "podCIDRs", "serviceCIDRs", "nodeCIDRs", "apiServer", "metadataEndpoints", "namespaces"},
        the values' own keys (Go's cluster.Facts), and "relay" (proxy.relay at any tier) when set:
        the domain without trailing dot, each CIDR list parsed and checked, the API
        server without brackets, whether the metadata endpoints are bypassed. Go's
        proxytest.ClusterFromValues renders it, so Go never parses these keys itself.
*/}}
{{- define "proxykit.cluster.facts" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.cluster.facts") -}}
{{- $facts := deepCopy .context.proxykitSettings.cluster -}}
{{- with .context.proxykitSettings.relay }}{{ $_ := set $facts "relay" . }}{{ end -}}
{{- toJson $facts -}}
{{- end -}}
