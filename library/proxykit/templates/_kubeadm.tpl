{{/*
Cluster API wiring: KubeadmConfig(Template) entries that install the systemd
drop-ins from the Secret that charts/cluster-proxy renders. Like every helper they
take (dict "context" $) and read the resolved settings: the CA file and
update-ca-certificates come with a resolved trustedCA (proxy, cluster.proxy or
global.proxy), as in cluster-proxy's Secret.
*/}}

{{/*
proxykit.kubeadm.secretName — the Secret that holds a cluster's systemd drop-ins.
Input:  dict "context" $ ["clusterName" NAME]; clusterName defaults to .Values.clusterName.
Output: "<clusterName>-systemd-proxy"; fails naming clusterName when it is not a DNS label.
*/}}
{{- define "proxykit.kubeadm.secretName" -}}
{{- include "proxykit.context.check" (dict "args" . "helper" "proxykit.kubeadm.secretName") -}}
{{- $name := .clusterName | default .context.Values.clusterName | default "" -}}
{{- if not (and (kindIs "string" $name) (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $name)) -}}
  {{- fail (printf "proxykit: clusterName is required and must be a DNS label (lower case letters, digits, '-'), got %q" (toString $name)) -}}
{{- end -}}
{{- printf "%s-systemd-proxy" $name -}}
{{- end -}}

{{/*
proxykit.kubeadm.files — KubeadmConfigSpec `files` entries for the node's proxy.
Input:  dict "context" $ ["clusterName" NAME]
Output: YAML list, each with contentFrom.secret pointing at proxykit.kubeadm.secretName:
          /etc/systemd/system/containerd.service.d/http-proxy.conf   key containerdProxy
          /etc/systemd/system/kubelet.service.d/http-proxy.conf      key kubeletProxy
          /etc/proxykit/proxy.env                                    key proxyEnv
          /usr/local/share/ca-certificates/proxykit-proxy-ca.crt     key trustedCA (with a resolved trustedCA)
        (owner root, mode 0600: they may carry credentials). The Secret must live in
        the namespace of the KubeadmConfig, as Cluster API reads it from there. Use
        them in KubeadmConfigTemplates (workers) and KubeadmControlPlanes alike.
*/}}
{{- define "proxykit.kubeadm.files" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.kubeadm.files") -}}
{{- $secret := include "proxykit.kubeadm.secretName" . -}}
{{- $files := list -}}
{{- range $path, $key := dict
    "/etc/systemd/system/containerd.service.d/http-proxy.conf" "containerdProxy"
    "/etc/systemd/system/kubelet.service.d/http-proxy.conf" "kubeletProxy"
    "/etc/proxykit/proxy.env" "proxyEnv"
    "/usr/local/share/ca-certificates/proxykit-proxy-ca.crt" (ternary "trustedCA" "" (ne .context.proxykitSettings.trustedCA "")) -}}
  {{- if not $key }}{{ continue }}{{ end -}}
  {{- $files = append $files (dict
      "path" $path
      "owner" "root:root"
      "permissions" "0600"
      "contentFrom" (dict "secret" (dict "name" $secret "key" $key))) -}}
{{- end -}}
{{- toYaml $files -}}
{{- end -}}

{{/*
proxykit.kubeadm.preKubeadmCommands — commands that give systemd and kubeadm the proxy.
Input:  dict "context" $
Output: YAML list: with a resolved trustedCA, update-ca-certificates first, so the
        node trusts the intercepting proxy's CA before containerd restarts; then
        systemctl daemon-reload, restart containerd (already running on most
        images; kubelet starts later under kubeadm and reads its drop-in then),
        and source /etc/proxykit/proxy.env with every variable exported.
        Cluster API runs preKubeadmCommands and kubeadm in one cloud-init script,
        so kubeadm init and join inherit the variables; the KubeadmConfig holds
        only the file's path, never the URL.
*/}}
{{- define "proxykit.kubeadm.preKubeadmCommands" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.kubeadm.preKubeadmCommands") -}}
{{- $commands := list "systemctl daemon-reload" "systemctl restart containerd" "if [ -f /etc/proxykit/proxy.env ]; then . /etc/proxykit/proxy.env; fi" -}}
{{- if .context.proxykitSettings.trustedCA }}{{ $commands = prepend $commands "update-ca-certificates" }}{{ end -}}
{{- toYaml $commands -}}
{{- end -}}
