{{/*
Public proxy helpers. Each takes dict "context" $ and reads the settings that
proxykit.resolve.settings derives from proxy, cluster.proxy and global.proxy.
Each first includes proxykit.resolve.settings with its own name, which checks
the argument and leaves the settings map on the root context.
*/}}

{{/*
proxykit.proxy.enabled — whether any proxy variable is emitted.
Input:  dict "context" $
Output: "true" when a proxy URL (or proxy.existingSecret) is set, nothing otherwise.
*/}}
{{- define "proxykit.proxy.enabled" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.enabled") -}}
{{- if .context.proxykitSettings.enabled }}true{{ end -}}
{{- end -}}

{{/*
proxykit.proxy.hasCredentials — whether env must come from a Secret.
Input:  dict "context" $
Output: "true" when a resolved URL carries user-info or proxy.existingSecret is set, nothing otherwise.
*/}}
{{- define "proxykit.proxy.hasCredentials" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.hasCredentials") -}}
{{- if .context.proxykitSettings.credentials }}true{{ end -}}
{{- end -}}

{{/*
proxykit.proxy.noProxy — the resolved NO_PROXY string.
Input:  dict "context" $ ["noProxy" (list HOST ...)] ["extra" (list HOST ...)] ["extraKey" <values key of extra, for messages>]
        noProxy (or extra, its older name): entries for this one use (e.g. the chart's
        own Service names, a bootstrap API server endpoint), a list or a
        comma-separated string, checked and written like proxy.noProxy entries,
        appended when missing.
Output: e.g. "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.244.0.0/16,...";
        nothing when the proxy is off.
*/}}
{{- define "proxykit.proxy.noProxy" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.noProxy") -}}
{{- $noProxy := .context.proxykitSettings.noProxy -}}
{{- $extra := .extra -}}
{{- $key := .extraKey | default "proxykit.proxy.noProxy \"extra\"" -}}
{{- if and (hasKey . "noProxy") .noProxy -}}
  {{- $extra = .noProxy -}}
  {{- $key = .extraKey | default "proxykit.proxy.noProxy \"noProxy\"" -}}
{{- end -}}
{{- if and $noProxy $extra -}}
  {{- /* through proxykit.noProxy.join: each entry once (a dict of those seen; a
         search of the list for each entry grew with the square of the entries), the
         call's entries before the bracketed ones, so that the fabric8 client matches
         the release's Services first */ -}}
  {{- $suffixes := include "proxykit.noProxy.publicSuffixes" dict | fromJson -}}
  {{- $more := dict -}}
  {{- range $i, $extra := include "proxykit.validate.list" (dict "value" $extra "key" $key) | fromJsonArray -}}
    {{- $_ := set $more (printf "%09d" $i) (include "proxykit.noProxy.entry" (dict "value" $extra "key" $key "suffixes" $suffixes) | fromJsonArray) -}}
  {{- end -}}
  {{- $noProxy = include "proxykit.noProxy.join" (dict "entries" (splitList "," $noProxy) "extra" $more) -}}
{{- end -}}
{{- $noProxy -}}
{{- end -}}

{{/*
proxykit.proxy.config — the resolved settings in the shape of the proxy values.
Input:  dict "context" $
Output: YAML map {http, https, noProxy}; noProxy is the full NO_PROXY string.
        Carries credentials when the URLs do: write it into Secrets only.
*/}}
{{- define "proxykit.proxy.config" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.config") -}}
{{- $s := .context.proxykitSettings -}}
{{- toYaml (dict "http" $s.http "https" $s.https "noProxy" $s.noProxy) -}}
{{- end -}}

{{/*
proxykit.proxy.secretName — the Secret that proxy secretKeyRefs point at.
Input:  dict "context" $
Output: proxy.existingSecret when set, else "<release name>-proxy-credentials".
*/}}
{{- define "proxykit.proxy.secretName" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.secretName") -}}
{{- .context.proxykitSettings.secretName -}}
{{- end -}}

{{/*
proxykit.proxy.env — the proxy variables as a Kubernetes EnvVar list.
Input:  dict "context" $ ["noProxy" (list HOST ...)]
Output: YAML list: HTTP_PROXY, HTTPS_PROXY, NO_PROXY, then http_proxy, https_proxy,
        no_proxy unless proxy.lowercase is false. A variable whose URL is empty is
        left out. With credentials every entry is a secretKeyRef into
        proxykit.proxy.secretName (upper-case keys for both cases), never a value.
        "[]" when the proxy is off.
        noProxy: entries for this one call (the chart's own Service names, say),
        appended to NO_PROXY and no_proxy, which are then plain values also with
        credentials (see proxykit.resolve.envWithNoProxy).
*/}}
{{- define "proxykit.proxy.env" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.env") -}}
{{- if and (hasKey . "noProxy") .noProxy -}}
  {{- include "proxykit.resolve.envWithNoProxy" (dict "context" .context "noProxy" .noProxy "key" "proxykit.proxy.env \"noProxy\"") | fromJsonArray | toYaml -}}
{{- else -}}
  {{- toYaml .context.proxykitSettings.env -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.proxy.fabric8Env — an env list as a container that may run the fabric8 Kubernetes
client (a JVM's) gets it: a plain NO_PROXY and no_proxy without their bracketed entries
(proxykit.noProxy.forFabric8), everything else as it is (one from a Secret too). A
transform of proxykit.proxy.env's answer, so that NO_PROXY is composed once.
Input:  dict "env" <YAML list, as proxykit.proxy.env gives it>
Output: YAML list.
*/}}
{{- define "proxykit.proxy.fabric8Env" -}}
{{- $out := list -}}
{{- range $e := .env | fromYamlArray -}}
  {{- if and (has $e.name (list "NO_PROXY" "no_proxy")) (hasKey $e "value") -}}
    {{- $_ := set $e "value" (include "proxykit.noProxy.forFabric8" $e.value) -}}
  {{- end -}}
  {{- $out = append $out $e -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
proxykit.proxy.envValues — the value each proxy variable has in a container, Secret read.
Input:  dict "context" $
Output: JSON map {NAME: value} of proxykit.proxy.env's variables as a container sees
        them: a secretKeyRef's value is the URL the library's Secret holds. A variable
        whose value lives in proxy.existingSecret, which the values do not know, is
        left out. "{}" when the proxy is off. For Go code that compares what a Pod
        runs with (proxykit audit's stale-proxy-env): never written into a manifest.
*/}}
{{- define "proxykit.proxy.envValues" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.envValues") -}}
{{- $s := .context.proxykitSettings -}}
{{- $out := dict -}}
{{- /* the settings as if no Secret were read: every entry a plain value, the
       ones only an existing Secret knows left out */ -}}
{{- range $e := include "proxykit.resolve.env" (omit $s "credentials" "existingSecret") | fromJsonArray -}}
  {{- $_ := set $out $e.name $e.value -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
proxykit.proxy.secret — the Secret that holds the proxy URLs when they carry credentials.
Input:  dict "context" $ ["namespace" <string>] ["name" <string>] ["annotations" <map>]
        namespace defaults to the release namespace, name to proxykit.proxy.secretName;
        annotations, e.g. helm.sh/resource-policy: keep, go on the Secret as given.
Output: a Secret manifest with keys HTTP_PROXY, HTTPS_PROXY, NO_PROXY (base64, byte-exact),
        annotated proxykit.io/proxy-config with proxykit.proxy.record;
        nothing when no URL carries user-info or proxy.existingSecret is set.
*/}}
{{- define "proxykit.proxy.secret" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.proxy.secret") -}}
{{- $s := .context.proxykitSettings -}}
{{- if and $s.credentials (not $s.existingSecret) -}}
{{- $data := dict "NO_PROXY" (b64enc $s.noProxy) -}}
{{- if $s.http }}{{ $_ := set $data "HTTP_PROXY" (b64enc $s.http) }}{{ end -}}
{{- if $s.https }}{{ $_ := set $data "HTTPS_PROXY" (b64enc $s.https) }}{{ end -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .name | default $s.secretName | quote }}
  namespace: {{ .namespace | default .context.Release.Namespace | quote }}
  annotations:
    {{- /* the record of what the Secret gives a Pod that starts now (_record.tpl) */}}
    proxykit.io/proxy-config: {{ include "proxykit.record.digest" $s | quote }}
    {{- range $k, $v := .annotations }}
    {{ toJson $k }}: {{ toJson (toString $v) }}
    {{- end }}
  labels:
    {{- include "proxykit.labels" (dict "context" .context) | nindent 4 }}
type: Opaque
data:
{{- toYaml $data | nindent 2 }}
{{- end -}}
{{- end -}}

{{/*
proxykit.proxy.serviceHosts — the host names Pods call Services by, as NO_PROXY entries.
Input:  dict "context" $ "services" (list NAME ...) ["namespace" NS]
        namespace defaults to the release namespace.
Output: comma-separated, for each Service: name,name.namespace,name.namespace.svc, the
        forms a Pod's DNS search path resolves (name.namespace.svc.<domain> is already
        covered by the cluster domain). A form that is a public suffix is left out (a
        Service called app: app would send every host under .app around the proxy; Pods
        call it app.<namespace>.svc, and proxykit check names a container that does not). No client resolves a name to match a CIDR, so
        the service network in NO_PROXY does not cover them. Pass it to
        proxykit.generateEnv or proxykit.proxy.env as "noProxy".
Usage:  {{ "{{-" }} include "proxykit.generateEnv" (dict "context" $ "env" (list .Values.env)
          "noProxy" (include "proxykit.proxy.serviceHosts" (dict "context" $ "services" (list (include "app.fullname" .) "app-db")))) | nindent 10 }}
*/}}
{{- define "proxykit.proxy.serviceHosts" -}}
{{- include "proxykit.context.check" (dict "args" . "helper" "proxykit.proxy.serviceHosts") -}}
{{- $key := "proxykit.proxy.serviceHosts \"services\"" -}}
{{- $ns := .namespace | default .context.Release.Namespace | default "default" -}}
{{- if not (and (kindIs "string" $ns) (le (len $ns) 63) (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $ns)) -}}
  {{- fail (printf "proxykit.proxy.serviceHosts: \"namespace\" %q is not a namespace name (a DNS label: lower case letters, digits and -, at most 63)" (include "proxykit.validate.redact" (toString $ns))) -}}
{{- end -}}
{{- $first := true -}}
{{- $suffixes := include "proxykit.noProxy.publicSuffixes" dict | fromJson -}}
{{- range $name := include "proxykit.validate.list" (dict "value" .services "key" $key) | fromJsonArray -}}
  {{- if not (and (le (len $name) 63) (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $name)) -}}
    {{- fail (printf "proxykit: %s: %q is not a Service name (a DNS label that starts with a letter: lower case letters, digits and -, at most 63)" $key (include "proxykit.validate.redact" $name)) -}}
  {{- end -}}
  {{- range $form := list $name (printf "%s.%s" $name $ns) (printf "%s.%s.svc" $name $ns) -}}
    {{- /* a form that is a public suffix (a Service called app, dev or shop; github
           in namespace io) would send every host under it around the proxy: it is
           left out, and proxykit check names a container that calls it so */ -}}
    {{- if not (include "proxykit.noProxy.publicSuffix" (dict "name" $form "suffixes" $suffixes)) -}}
      {{- if not $first }},{{ end }}{{ $form }}{{ $first = false -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}
