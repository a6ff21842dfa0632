{{/*
Cluster API wiring: KubeadmConfig(Template) entries that install the systemd
drop-ins from the Secret that charts/cluster-proxy renders.
*/}}

{{/*
proxykit.kubeadm.secretName — the Secret that holds a cluster's systemd drop-ins.
Input:  dict "clusterName" <string>
Output: "<clusterName>-systemd-proxy"; fails naming clusterName when it is empty.
*/}}
{{- define "proxykit.kubeadm.secretName" -}}
{{- $name := .clusterName | default "" -}}
{{- if not (and (kindIs "string" $name) (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $name)) -}}
  {{- fail (printf "proxykit: clusterName is required and must be a DNS label (lower case letters, digits, '-'), got %q" (toString $name)) -}}
{{- end -}}
{{- printf "%s-systemd-proxy" $name -}}
{{- end -}}

{{/*
proxykit.kubeadm.files — KubeadmConfigSpec `files` entries for the proxy drop-ins.
Input:  dict "clusterName" <string>
Output: YAML list: /etc/systemd/system/containerd.service.d/http-proxy.conf and
        /etc/systemd/system/kubelet.service.d/http-proxy.conf, each with
        contentFrom.secret pointing at proxykit.kubeadm.secretName (keys
        containerdProxy, kubeletProxy). The Secret must live in the namespace of
        the KubeadmConfig, as Cluster API reads it from there.
*/}}
{{- define "proxykit.kubeadm.files" -}}
{{- $secret := include "proxykit.kubeadm.secretName" . -}}
{{- $files := list -}}
{{- range $unit, $key := dict "containerd" "containerdProxy" "kubelet" "kubeletProxy" -}}
  {{- $files = append $files (dict
      "path" (printf "/etc/systemd/system/%s.service.d/http-proxy.conf" $unit)
      "owner" "root:root"
      "permissions" "0600"
      "contentFrom" (dict "secret" (dict "name" $secret "key" $key))) -}}
{{- end -}}
{{- toYaml $files -}}
{{- end -}}

{{/*
proxykit.kubeadm.preKubeadmCommands — commands that make systemd pick the drop-ins up.
Input:  dict (nothing is read)
Output: YAML list: systemctl daemon-reload, then restart containerd (already running
        on most images; kubelet starts later under kubeadm and reads its drop-in then).
*/}}
{{- define "proxykit.kubeadm.preKubeadmCommands" -}}
{{- toYaml (list "systemctl daemon-reload" "systemctl restart containerd") -}}
{{- end -}}
