{{/*
Trust for TLS-intercepting proxies: the proxy's CA (proxy.trustedCA, or
cluster.proxy.trustedCA, global.proxy.trustedCA) in a complete bundle that
every container reads. The bundle is public roots plus the CA, from one of two
places (proxy.trustBundle):
- configMap (the default): trust-manager's Bundle with useDefaultCAs writes it
  into every namespace as ConfigMap proxykit-ca-bundle (cluster-proxy renders the
  Bundle), with a PKCS#12 copy for the JVM;
- clusterTrustBundle: the kubelet joins every ClusterTrustBundle of signer
  proxykit.io/trusted-ca labelled proxykit.io/trusted-ca: "true" into one file
  through a projected volume, with no trust-manager (cluster-proxy renders one
  with the CA and trust.publicRoots).
These helpers mount it and point the clients at it.
*/}}

{{/*
proxykit.trust.bundle — where the complete bundle lives, as JSON:
  configMap   "proxykit-ca-bundle"             the ConfigMap in each namespace (trust-manager's target)
  key         "ca-certificates.crt"            its key (PEM)
  signerName  "proxykit.io/trusted-ca"         the signer of the ClusterTrustBundles a clusterTrustBundle
                                               bundle joins (their names start "proxykit.io:trusted-ca:")
  labels      {"proxykit.io/trusted-ca": "true"}  the labels those bundles carry (a selector must not be
                                               empty: Kyverno's strategic merge drops an empty one, and
                                               an absent selector matches no bundle)
  mountPath   "/etc/proxykit/ca"               where containers mount it, read-only
  file        "/etc/proxykit/ca/ca-certificates.crt"
  pkcs12Key   "ca-certificates.p12"            the same certificates as a password-less PKCS#12
                                               trust store, for the JVM (the Bundle's additionalFormats)
  pkcs12File  "/etc/proxykit/ca/ca-certificates.p12"
*/}}
{{- define "proxykit.trust.bundle" -}}
{{- toJson (dict "configMap" "proxykit-ca-bundle" "key" "ca-certificates.crt" "signerName" "proxykit.io/trusted-ca" "labels" (dict "proxykit.io/trusted-ca" "true") "mountPath" "/etc/proxykit/ca" "file" "/etc/proxykit/ca/ca-certificates.crt" "pkcs12Key" "ca-certificates.p12" "pkcs12File" "/etc/proxykit/ca/ca-certificates.p12") -}}
{{- end -}}

{{/*
proxykit.trust.env — the variables that point clients at the bundle.
Input:  dict "context" $
Output: YAML list: SSL_CERT_FILE (Go, OpenSSL: curl, Python's ssl, Ruby),
        REQUESTS_CA_BUNDLE (Python requests), CURL_CA_BUNDLE (curl),
        NODE_EXTRA_CA_CERTS (Node.js); "[]" when no trustedCA is set.
        generateEnv adds them to its proxy tier by itself.
*/}}
{{- define "proxykit.trust.env" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.trust.env") -}}
{{- $env := list -}}
{{- if .context.proxykitSettings.trustedCA -}}
  {{- $file := (include "proxykit.trust.bundle" . | fromJson).file -}}
  {{- range $name := list "SSL_CERT_FILE" "REQUESTS_CA_BUNDLE" "CURL_CA_BUNDLE" "NODE_EXTRA_CA_CERTS" -}}
    {{- $env = append $env (dict "name" $name "value" $file) -}}
  {{- end -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/*
proxykit.trust.volumes — the Pod volume with the bundle.
Input:  dict "context" $
Output: YAML list with volume proxykit-ca-bundle, or "[]" when no trustedCA is set:
        the ConfigMap of proxykit.trust.bundle, or with proxy.trustBundle
        clusterTrustBundle a projected volume that joins every ClusterTrustBundle of
        its signer and labels (the kubelet keeps the file current as bundles come
        and go) into the same file name.
Usage:  volumes: {{ "{{-" }} include "proxykit.trust.volumes" (dict "context" $) | nindent 8 }}
*/}}
{{- define "proxykit.trust.volumes" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.trust.volumes") -}}
{{- $volumes := list -}}
{{- if .context.proxykitSettings.trustedCA -}}
  {{- $b := include "proxykit.trust.bundle" . | fromJson -}}
  {{- /* the whole ConfigMap, whose one key is the file: no items list, which admission
         policies could not add (ApplyConfiguration rejects new atomic lists) */ -}}
  {{- if eq .context.proxykitSettings.trustBundle "clusterTrustBundle" -}}
    {{- $source := dict "signerName" $b.signerName "labelSelector" (dict "matchLabels" $b.labels) "path" $b.key -}}
    {{- $volumes = list (dict "name" "proxykit-ca-bundle" "projected" (dict "sources" (list (dict "clusterTrustBundle" $source)))) -}}
  {{- else -}}
    {{- $volumes = list (dict "name" "proxykit-ca-bundle" "configMap" (dict "name" $b.configMap)) -}}
  {{- end -}}
{{- end -}}
{{- toYaml $volumes -}}
{{- end -}}

{{/*
proxykit.trust.volumeMounts — the container's read-only mount of the bundle.
Input:  dict "context" $
Output: YAML list with the mount at proxykit.trust.bundle's mountPath, or "[]"
        when no trustedCA is set.
*/}}
{{- define "proxykit.trust.volumeMounts" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.trust.volumeMounts") -}}
{{- $mounts := list -}}
{{- if .context.proxykitSettings.trustedCA -}}
  {{- $mounts = list (dict "name" "proxykit-ca-bundle" "mountPath" (include "proxykit.trust.bundle" . | fromJson).mountPath "readOnly" true) -}}
{{- end -}}
{{- toYaml $mounts -}}
{{- end -}}

{{/*
proxykit.trust.ca — the proxy's CA certificates as resolved (PEM), for the
ConfigMap trust-manager reads and the nodes' trust store; nothing when unset.
Input:  dict "context" $
*/}}
{{- define "proxykit.trust.ca" -}}
{{- include "proxykit.resolve.settings" (dict "args" . "helper" "proxykit.trust.ca") -}}
{{- .context.proxykitSettings.trustedCA -}}
{{- end -}}
