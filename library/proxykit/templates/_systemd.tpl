{{/*
proxykit.systemd.dropIn — a systemd drop-in that gives a unit (containerd, kubelet) the proxy.
Input:  dict "context" $
Output: "[Service]" and one Environment="NAME=value" line per variable: HTTP_PROXY,
        HTTPS_PROXY, NO_PROXY, http_proxy, https_proxy, no_proxy (an empty URL's pair
        is left out). Nodes always get both cases: proxy.lowercase is for containers.
        Inside the quotes "\" is written "\\", '"' is written '\"' and "%" is written
        "%%" (systemd specifiers), so a password survives byte-exact.
        Nothing when no proxy URL is set in values (proxy.existingSecret alone
        cannot reach a node).
The text stays in this define, not in a file: in a library chart .Files reads the
consuming chart's files.
*/}}
{{- define "proxykit.systemd.dropIn" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.systemd.dropIn") -}}
{{- $s := .context.proxykitSettings -}}
{{- if or $s.http $s.https -}}
[Service]
{{- range $name := list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" "http_proxy" "https_proxy" "no_proxy" -}}
  {{- $value := index (dict "HTTP_PROXY" $s.http "HTTPS_PROXY" $s.https "NO_PROXY" $s.noProxy) (upper $name) -}}
  {{- if $value }}
Environment="{{ $name }}={{ $value | replace "\\" "\\\\" | replace "\"" "\\\"" | replace "%" "%%" }}"
  {{- end -}}
{{- end }}
{{ end -}}
{{- end -}}

{{/*
proxykit.systemd.envFile — the proxy variables as a shell environment file.
Input:  dict "context" $
Output: one `export NAME='value'` line per variable: HTTP_PROXY, HTTPS_PROXY,
        NO_PROXY, http_proxy, https_proxy, no_proxy (an empty URL's pair left out).
        Values are single-quoted, a "'" written as '\'' so any password survives
        byte-exact in sh, dash and bash. Nothing when no proxy URL is set.
Cluster API nodes source it before kubeadm (see proxykit.kubeadm.preKubeadmCommands):
kubeadm itself reaches out (kubernetes/kubeadm#2765), and the file keeps the URL
out of the KubeadmConfig, where export lines would put credentials.
*/}}
{{- define "proxykit.systemd.envFile" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.systemd.envFile") -}}
{{- $s := .context.proxykitSettings -}}
{{- if or $s.http $s.https -}}
{{- range $name := list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" "http_proxy" "https_proxy" "no_proxy" -}}
  {{- $value := index (dict "HTTP_PROXY" $s.http "HTTPS_PROXY" $s.https "NO_PROXY" $s.noProxy) (upper $name) -}}
  {{- if $value }}
export {{ $name }}='{{ $value | replace "'" "'\\''" }}'
  {{- end -}}
{{- end }}
{{ end -}}
{{- end -}}
