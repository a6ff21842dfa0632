{{/*
Public proxy helpers. Each takes dict "context" $ and reads the settings that
proxykit.resolve.settings derives from proxy, cluster.proxy and global.proxy.
*/}}

{{/*
proxykit.proxy.enabled — whether any proxy variable is emitted.
Input:  dict "context" $
Output: "true" when a proxy URL (or proxy.existingSecret) is set, nothing otherwise.
*/}}
{{- define "proxykit.proxy.enabled" -}}
{{- if (include "proxykit.resolve.settings" . | fromJson).enabled }}true{{ end -}}
{{- end -}}

{{/*
proxykit.proxy.hasCredentials — whether env must come from a Secret.
Input:  dict "context" $
Output: "true" when a resolved URL carries user-info or proxy.existingSecret is set, nothing otherwise.
*/}}
{{- define "proxykit.proxy.hasCredentials" -}}
{{- if (include "proxykit.resolve.settings" . | fromJson).credentials }}true{{ end -}}
{{- end -}}

{{/*
proxykit.proxy.noProxy — the resolved NO_PROXY string.
Input:  dict "context" $
Output: e.g. "localhost,127.0.0.1,::1,cluster.local,cluster.local.,svc,10.244.0.0/16,...";
        nothing when the proxy is off.
*/}}
{{- define "proxykit.proxy.noProxy" -}}
{{- (include "proxykit.resolve.settings" . | fromJson).noProxy -}}
{{- end -}}

{{/*
proxykit.proxy.config — the resolved settings in the shape of the proxy values.
Input:  dict "context" $
Output: YAML map {http, https, noProxy}; noProxy is the full NO_PROXY string.
        Carries credentials when the URLs do: write it into Secrets only.
*/}}
{{- define "proxykit.proxy.config" -}}
{{- $s := include "proxykit.resolve.settings" . | fromJson -}}
{{- toYaml (dict "http" $s.http "https" $s.https "noProxy" $s.noProxy) -}}
{{- end -}}

{{/*
proxykit.proxy.secretName — the Secret that proxy secretKeyRefs point at.
Input:  dict "context" $
Output: proxy.existingSecret when set, else "<release name>-proxy-credentials".
*/}}
{{- define "proxykit.proxy.secretName" -}}
{{- (include "proxykit.resolve.settings" . | fromJson).secretName -}}
{{- end -}}

{{/*
proxykit.proxy.env — the proxy variables as a Kubernetes EnvVar list.
Input:  dict "context" $
Output: YAML list: HTTP_PROXY, HTTPS_PROXY, NO_PROXY, then http_proxy, https_proxy,
        no_proxy unless proxy.lowercase is false. A variable whose URL is empty is
        left out. With credentials every entry is a secretKeyRef into
        proxykit.proxy.secretName (upper-case keys for both cases), never a value.
        "[]" when the proxy is off.
*/}}
{{- define "proxykit.proxy.env" -}}
{{- $s := include "proxykit.resolve.settings" . | fromJson -}}
{{- $env := list -}}
{{- if $s.enabled -}}
  {{- $names := list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" -}}
  {{- $values := dict "HTTP_PROXY" $s.http "HTTPS_PROXY" $s.https "NO_PROXY" $s.noProxy -}}
  {{- $cases := list "" -}}
  {{- if $s.lowercase }}{{ $cases = append $cases "lower" }}{{ end -}}
  {{- range $case := $cases -}}
    {{- range $key := $names -}}
      {{- /* with an existing Secret the URLs live there, so every key is referenced */ -}}
      {{- if or (index $values $key) $s.existingSecret -}}
        {{- $name := ternary (lower $key) $key (eq $case "lower") -}}
        {{- if $s.credentials -}}
          {{- $env = append $env (dict "name" $name "valueFrom" (dict "secretKeyRef" (dict "name" $s.secretName "key" $key))) -}}
        {{- else -}}
          {{- $env = append $env (dict "name" $name "value" (index $values $key)) -}}
        {{- end -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/*
proxykit.proxy.secret — the Secret that holds the proxy URLs when they carry credentials.
Input:  dict "context" $ ["namespace" <string>] ["name" <string>]
        namespace defaults to the release namespace, name to proxykit.proxy.secretName.
Output: a Secret manifest with keys HTTP_PROXY, HTTPS_PROXY, NO_PROXY (base64, byte-exact);
        nothing when no URL carries user-info or proxy.existingSecret is set.
*/}}
{{- define "proxykit.proxy.secret" -}}
{{- $s := include "proxykit.resolve.settings" . | fromJson -}}
{{- if and $s.credentials (not $s.existingSecret) -}}
{{- $data := dict "NO_PROXY" (b64enc $s.noProxy) -}}
{{- if $s.http }}{{ $_ := set $data "HTTP_PROXY" (b64enc $s.http) }}{{ end -}}
{{- if $s.https }}{{ $_ := set $data "HTTPS_PROXY" (b64enc $s.https) }}{{ end -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .name | default $s.secretName | quote }}
  namespace: {{ .namespace | default .context.Release.Namespace | quote }}
  labels:
    app.kubernetes.io/managed-by: {{ .context.Release.Service | default "Helm" | quote }}
    app.kubernetes.io/part-of: proxykit
type: Opaque
data:
{{- toYaml $data | nindent 2 }}
{{- end -}}
{{- end -}}
