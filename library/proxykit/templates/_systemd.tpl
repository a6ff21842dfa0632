{{/*
proxykit.systemd.dropIn — a systemd drop-in that gives a unit (containerd, kubelet) the proxy.
Input:  dict "context" $
Output: "[Service]" and one Environment="NAME=value" line per variable: HTTP_PROXY,
        HTTPS_PROXY, NO_PROXY, http_proxy, https_proxy, no_proxy (an empty URL's pair
        is left out), then JAVA_TOOL_OPTIONS and NODE_USE_ENV_PROXY with proxy.runtimes.
        Nodes always get both cases: proxy.lowercase is for containers.
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
{{- $values := include "proxykit.systemd.values" $s | fromJson -}}
{{- range $name := list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" "http_proxy" "https_proxy" "no_proxy" "JAVA_TOOL_OPTIONS" "NODE_USE_ENV_PROXY" -}}
  {{- $value := index $values $name -}}
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
        NO_PROXY, http_proxy, https_proxy, no_proxy (an empty URL's pair left out),
        then JAVA_TOOL_OPTIONS and NODE_USE_ENV_PROXY with proxy.runtimes.
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
{{- $values := include "proxykit.systemd.values" $s | fromJson -}}
{{- range $name := list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" "http_proxy" "https_proxy" "no_proxy" "JAVA_TOOL_OPTIONS" "NODE_USE_ENV_PROXY" -}}
  {{- $value := index $values $name -}}
  {{- if $value }}
export {{ $name }}='{{ $value | replace "'" "'\\''" }}'
  {{- end -}}
{{- end }}
{{ end -}}
{{- end -}}

{{/*
proxykit.systemd.environmentFile — the proxy variables as systemd's EnvironmentFile= reads
them: RKE2's /etc/default/rke2-server and rke2-agent, k3s's k3s.service.env.
Input:  dict "context" $ ["prefix" <string, e.g. "CONTAINERD_": only the upper-case three,
        named with it, which RKE2 and k3s hand containerd alone>]
Output: one NAME="value" line per variable, as proxykit.systemd.dropIn lists them, in
        double quotes with "\", '"', "$" and "`" escaped by a backslash (systemd reads
        "\$" as "$" and expands nothing: no "%%" here, which only unit files need);
        no "export ", which systemd refuses. Nothing when no proxy URL is set.
*/}}
{{- define "proxykit.systemd.environmentFile" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.systemd.environmentFile") -}}
{{- $s := .context.proxykitSettings -}}
{{- $prefix := .prefix | default "" -}}
{{- if and $prefix (not (regexMatch "^[A-Z][A-Z0-9_]*_$" (toString $prefix))) -}}
  {{- fail (printf "proxykit.systemd.environmentFile: \"prefix\" %q is not a variable name's start (upper case, ending in _)" (toString $prefix)) -}}
{{- end -}}
{{- if or $s.http $s.https -}}
{{- $values := include "proxykit.systemd.values" $s | fromJson -}}
{{- $names := ternary (list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY") (list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" "http_proxy" "https_proxy" "no_proxy" "JAVA_TOOL_OPTIONS" "NODE_USE_ENV_PROXY") (ne $prefix "") -}}
{{- range $name := $names -}}
  {{- $value := index $values $name -}}
  {{- if $value }}
{{ $prefix }}{{ $name }}="{{ $value | replace "\\" "\\\\" | replace "\"" "\\\"" | replace "$" "\\$" | replace "`" "\\`" }}"
  {{- end -}}
{{- end }}
{{ end -}}
{{- end -}}

{{/*
proxykit.systemd.variables — the variables a machine gets, by name and unescaped: what
proxykit.systemd.dropIn and the two files above write (`proxykit env --format yaml`).
Input:  dict "context" $
Output: JSON map of name -> value, only the variables set; {} when no proxy URL is set.
*/}}
{{- define "proxykit.systemd.variables" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.systemd.variables") -}}
{{- $s := .context.proxykitSettings -}}
{{- $set := dict -}}
{{- if or $s.http $s.https -}}
{{- range $name, $value := include "proxykit.systemd.values" $s | fromJson -}}
  {{- if $value }}{{ $_ := set $set $name $value }}{{ end -}}
{{- end -}}
{{- end -}}
{{- toJson $set -}}
{{- end -}}

{{/*
proxykit.systemd.values — every variable a machine gets, by name, for the helpers above.
Input:  the settings map of proxykit.resolve.settings. Output: JSON map of name -> value ("" when unset).
*/}}
{{- define "proxykit.systemd.values" -}}
{{- $node := ternary "1" "" (has "node" .runtimes) -}}
{{- toJson (dict "HTTP_PROXY" .http "HTTPS_PROXY" .https "NO_PROXY" .noProxy "http_proxy" .http "https_proxy" .https "no_proxy" .noProxy "JAVA_TOOL_OPTIONS" .javaMachineOptions "NODE_USE_ENV_PROXY" $node) -}}
{{- end -}}
