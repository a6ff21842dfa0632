{{/*
Resolution of the proxy settings from the consuming chart's values. Every public
helper reads its settings from here, so there is one source of truth.
*/}}

{{/*
proxykit.resolve.section — fail unless a values section is a map (or absent).
Input:  dict "value" <any> "key" <values key named in the message>
Output: nothing.
*/}}
{{- define "proxykit.resolve.section" -}}
{{- if not (or (kindIs "invalid" .value) (kindIs "map" .value)) -}}
  {{- fail (printf "proxykit: %s must be a map, got %s" .key (kindOf .value)) -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.resolve.settings — check a helper's argument and resolve the proxy settings.
Input:  dict "args" <the public helper's argument> "helper" <its name, for messages>
Output: nothing. The settings are computed once per chart render and kept on the
        root context under "proxykitSettings" as a map; helpers read it with
        (index .context "proxykitSettings") after this include:
  enabled        bool    the proxy is on (a resolved URL, or proxy.existingSecret)
  http, https    string  resolved URLs, exactly as written in values; the relay's URL when relay is set
  relay          string  the relay's URL (proxy.relay): Pods use it with no credentials, so http and
                         https are the relay, no secretKeyRef is written and no Secret rendered
  noProxy        string  the full NO_PROXY (see proxykit.noProxy.compose)
  credentials    bool    a URL carries user-info, or proxy.existingSecret is set
  existingSecret string  proxy.existingSecret
  secretName     string  the Secret that secretKeyRefs point at
  lowercase      bool    also emit http_proxy, https_proxy, no_proxy
  env            list    the proxy EnvVars (proxykit.proxy.env)
  cluster        map     the cluster.* keys as read (proxykit.cluster.facts)
  trustedCA      string  the PEM of the CA(s) a TLS-intercepting proxy signs with, checked; "" when unset
  trustBundle    string  where Pods read the complete bundle: "configMap" (trust-manager's, the default)
                         or "clusterTrustBundle" (the ClusterTrustBundles of signer proxykit.io/trusted-ca)
  runtimes       list    the runtimes of proxy.runtimes ("java", "node"), each once
  javaOptions    string  the JVM's flags for a container when runtimes has java and the proxy is on:
                         proxykit.java.flags, then proxykit.java.trustFlags with a trustedCA
  javaMachineOptions string the JVM's proxy flags for a machine (no trust store there)
  from           map     http, https, noProxy, trustedCA, trustBundle, runtimes -> the values key each was read from
  networksKnown  bool    NO_PROXY covers a pod or service network and the API server, or cluster.requireNetworks is false
Per key (http, https, noProxy, trustedCA, trustBundle, runtimes, relay): proxy > cluster.proxy > global.proxy; "" and [] count as unset.
A relay set at any tier replaces http and https set at any tier: the point of a relay
is that no Pod holds the corporate proxy's password, whichever tier carried it.
Values do not change during a render, so the map is computed once per context and
kept with the Values it was computed from ("proxykitSettingsOf"): a context whose
Values differ (Helm's merge idiom copies the root's keys into a new dict) gets its
own, and generateEnv's bases ("proxykitEnvBase...") are dropped with the old one.
deepEqual compares the very same map in constant time.
*/}}
{{- define "proxykit.resolve.settings" -}}
{{- include "proxykit.context.check" . -}}
{{- $ctx := .args.context -}}
{{- /* the settings of these very values: a context built with Helm's merge idiom,
       (merge (dict "Values" ...) $), copies the root's keys, this cache among them */ -}}
{{- if not (and (hasKey $ctx "proxykitSettings") (deepEqual (index $ctx "proxykitSettingsOf") $ctx.Values)) -}}
{{- range $key := keys $ctx }}{{ if hasPrefix "proxykitEnvBase" $key }}{{ $_ := unset $ctx $key }}{{ end }}{{ end -}}
{{- $values := $ctx.Values | default dict -}}
{{- include "proxykit.keys.notNested" $values -}}
{{- $sections := dict -}}
{{- range $key := list "proxy" "cluster" "global" -}}
  {{- $section := index $values $key -}}
  {{- include "proxykit.resolve.section" (dict "value" $section "key" $key) -}}
  {{- $_ := set $sections $key ($section | default dict) -}}
{{- end -}}
{{- $clusterProxy := index $sections.cluster "proxy" -}}
{{- include "proxykit.resolve.section" (dict "value" $clusterProxy "key" "cluster.proxy") -}}
{{- $globalProxy := index $sections.global "proxy" -}}
{{- include "proxykit.resolve.section" (dict "value" $globalProxy "key" "global.proxy") -}}
{{- $strict := dict "proxy" $sections.proxy "cluster" $sections.cluster "cluster.proxy" ($clusterProxy | default dict) "global.proxy" ($globalProxy | default dict) -}}
{{- range $key, $known := include "proxykit.keys.known" . | fromJson -}}
  {{- include "proxykit.keys.check" (dict "section" (index $strict $key) "key" $key "known" $known) -}}
{{- end -}}
{{- $tiers := list (list "proxy" $sections.proxy) (list "cluster.proxy" ($clusterProxy | default dict)) (list "global.proxy" ($globalProxy | default dict)) -}}

{{- /* pick each key from the first tier that sets it */ -}}
{{- $picked := dict -}}
{{- $from := dict "http" "proxy.http" "https" "proxy.https" "noProxy" "proxy.noProxy" "trustedCA" "proxy.trustedCA" "trustBundle" "proxy.trustBundle" "runtimes" "proxy.runtimes" "relay" "proxy.relay" -}}
{{- range $name := list "http" "https" "noProxy" "trustedCA" "trustBundle" "runtimes" "relay" -}}
  {{- range $tier := $tiers -}}
    {{- $key := printf "%s.%s" (index $tier 0) $name -}}
    {{- $value := index (index $tier 1) $name -}}
    {{- if not (hasKey $picked $name) -}}
      {{- if kindIs "string" $value -}}
        {{- /* before trim, which would quietly drop a trailing U+0085 */ -}}
        {{- include "proxykit.validate.controlChars" (dict "value" $value "key" $key "multiline" true) -}}
        {{- if trim $value -}}
          {{- $_ := set $picked $name (trim $value) -}}
          {{- $_ := set $from $name $key -}}
        {{- end -}}
      {{- else if and (has $name (list "noProxy" "runtimes")) (kindIs "slice" $value) -}}
        {{- if $value -}}
          {{- $_ := set $picked $name $value -}}
          {{- $_ := set $from $name $key -}}
        {{- end -}}
      {{- else if not (kindIs "invalid" $value) -}}
        {{- fail (printf "proxykit: %s must be a %s, got %s" $key (ternary "list or a comma-separated string" "string" (has $name (list "noProxy" "runtimes"))) (kindOf $value)) -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
{{- end -}}

{{- $relay := index $picked "relay" | default "" -}}
{{- if $relay -}}
  {{- if include "proxykit.validate.proxyURL" (dict "value" $relay "key" (index $from "relay")) -}}
    {{- fail (printf "proxykit: %s carries user-info: the relay holds the corporate proxy's credentials itself and Pods use it with none; give its URL without a user or password (the URL is not shown)" (index $from "relay")) -}}
  {{- end -}}
  {{- range $name := list "http" "https" -}}
    {{- $_ := set $picked $name $relay -}}
    {{- $_ := set $from $name (index $from "relay") -}}
  {{- end -}}
{{- end -}}
{{- $trustedCA := index $picked "trustedCA" | default "" -}}
{{- if $trustedCA -}}
  {{- include "proxykit.validate.certificates" (dict "value" $trustedCA "key" (index $from "trustedCA")) -}}
  {{- $trustedCA = printf "%s\n" $trustedCA -}}
{{- end -}}
{{- $trustBundle := index $picked "trustBundle" | default "configMap" -}}
{{- if not (has $trustBundle (list "configMap" "clusterTrustBundle")) -}}
  {{- fail (printf "proxykit: %s: unknown bundle %q; the bundles are: configMap (trust-manager's ConfigMap proxykit-ca-bundle), clusterTrustBundle (the ClusterTrustBundles of signer proxykit.io/trusted-ca)" (index $from "trustBundle") (include "proxykit.validate.redact" $trustBundle)) -}}
{{- end -}}
{{- $http := index $picked "http" | default "" -}}
{{- $https := index $picked "https" | default "" -}}
{{- $credentials := false -}}
{{- range $name, $url := dict "http" $http "https" $https -}}
  {{- if $url -}}
    {{- if include "proxykit.validate.proxyURL" (dict "value" $url "key" (index $from $name)) -}}
      {{- $credentials = true -}}
    {{- end -}}
  {{- end -}}
{{- end -}}

{{- $existingSecret := index $sections.proxy "existingSecret" | default "" -}}
{{- if not (kindIs "string" $existingSecret) -}}
  {{- fail (printf "proxykit: proxy.existingSecret must be a string, got %s" (kindOf $existingSecret)) -}}
{{- end -}}
{{- $existingSecret = trim $existingSecret -}}
{{- if and $relay $existingSecret -}}
  {{- fail (printf "proxykit: proxy.existingSecret and %s are both set: with the relay Pods carry no credentials and read no Secret; remove proxy.existingSecret" (index $from "relay")) -}}
{{- end -}}
{{- $secretName := $existingSecret -}}
{{- if $secretName -}}
  {{- include "proxykit.validate.secretName" (dict "value" $secretName "key" "proxy.existingSecret") -}}
{{- else -}}
  {{- $release := "proxykit" -}}
  {{- if and $ctx.Release $ctx.Release.Name -}}{{- $release = $ctx.Release.Name -}}{{- end -}}
  {{- $secretName = printf "%s-proxy-credentials" ($release | trunc 44 | trimSuffix "-") -}}
{{- end -}}

{{- $lowercase := true -}}
{{- if hasKey $sections.proxy "lowercase" -}}
  {{- $lowercase = index $sections.proxy "lowercase" -}}
  {{- if not (kindIs "bool" $lowercase) -}}
    {{- fail (printf "proxykit: proxy.lowercase must be true or false, got %s" (kindOf $lowercase)) -}}
  {{- end -}}
{{- end -}}

{{- $requireNetworks := true -}}
{{- if hasKey $sections.cluster "requireNetworks" -}}
  {{- $requireNetworks = index $sections.cluster "requireNetworks" -}}
  {{- if not (kindIs "bool" $requireNetworks) -}}
    {{- fail (printf "proxykit: cluster.requireNetworks must be true or false, got %s" (kindOf $requireNetworks)) -}}
  {{- end -}}
{{- end -}}

{{- $enabled := or (ne $http "") (ne $https "") (ne $existingSecret "") -}}
{{- /* composed even when the proxy is off, so bad CIDRs fail early */ -}}
{{- $composed := include "proxykit.noProxy.compose" (dict "cluster" $sections.cluster "entries" (index $picked "noProxy") "entriesKey" (index $from "noProxy")) | fromJson -}}
{{- if and (or $http $https) $requireNetworks (not $composed.networks) -}}
  {{- fail (printf "proxykit: the proxy is on (%s) but NO_PROXY would cover no pod or service network, so in-cluster traffic to Pod and Service IPs would go through the proxy; set cluster.podCIDRs and cluster.serviceCIDRs (or put the CIDRs in %s), or set cluster.requireNetworks: false to accept that" (ternary (index $from "http") (index $from "https") (ne $http "")) (index $from "noProxy")) -}}
{{- end -}}
{{- if and (or $http $https) $requireNetworks $composed.networks (not $composed.services) -}}
  {{- fail (printf "proxykit: the proxy is on (%s) and cluster.podCIDRs is set, but NO_PROXY would not cover the API server: its ClusterIP would go through the proxy; set cluster.serviceCIDRs or cluster.apiServer (or put the service CIDR in %s), or set cluster.requireNetworks: false to accept that" (ternary (index $from "http") (index $from "https") (ne $http "")) (index $from "noProxy")) -}}
{{- end -}}
{{- $runtimes := list -}}
{{- range $runtime := include "proxykit.validate.list" (dict "value" (index $picked "runtimes") "key" (index $from "runtimes")) | fromJsonArray -}}
  {{- if not (has $runtime (list "java" "node")) -}}
    {{- fail (printf "proxykit: %s: unknown runtime %q; the known runtimes are: java, node" (index $from "runtimes") (include "proxykit.validate.redact" (toString $runtime))) -}}
  {{- end -}}
  {{- if not (has $runtime $runtimes) }}{{ $runtimes = append $runtimes $runtime }}{{ end -}}
{{- end -}}
{{- $noProxy := ternary $composed.noProxy "" $enabled -}}
{{- if and $noProxy (has "node" $runtimes) -}}
  {{- $noProxy = include "proxykit.noProxy.forNode" $noProxy -}}
{{- end -}}
{{- if and $trustedCA (eq $trustBundle "clusterTrustBundle") (has "java" $runtimes) -}}
  {{- fail (printf "proxykit: %s is clusterTrustBundle and %s has java: a ClusterTrustBundle holds PEM only and the JVM reads a PKCS#12 trust store, which trust-manager's bundle carries; use the configMap bundle for a chart that runs the JVM" (index $from "trustBundle") (index $from "runtimes")) -}}
{{- end -}}
{{- $javaMachineOptions := "" -}}
{{- $javaOptions := "" -}}
{{- if and $enabled (has "java" $runtimes) -}}
  {{- $javaMachineOptions = include "proxykit.java.flags" (dict "http" $http "https" $https "httpKey" (index $from "http") "httpsKey" (index $from "https") "runtimesKey" (index $from "runtimes") "noProxy" $noProxy "existingSecret" (ne $existingSecret "")) -}}
  {{- $javaOptions = join " " (compact (list $javaMachineOptions (include "proxykit.java.trustFlags" $trustedCA))) -}}
{{- end -}}

{{- $settings := dict
    "enabled" $enabled
    "http" $http
    "https" $https
    "relay" $relay
    "noProxy" $noProxy
    "credentials" (or $credentials (ne $existingSecret ""))
    "existingSecret" $existingSecret
    "secretName" $secretName
    "lowercase" $lowercase
    "trustedCA" $trustedCA
    "trustBundle" $trustBundle
    "runtimes" $runtimes
    "javaOptions" $javaOptions
    "javaMachineOptions" $javaMachineOptions
    "from" $from
    "networksKnown" (or (not $requireNetworks) (and $composed.networks $composed.services))
    "cluster" $composed.cluster -}}
{{- $_ := set $settings "env" (include "proxykit.resolve.env" $settings | fromJsonArray) -}}
{{- $_ := set $ctx "proxykitSettings" $settings -}}
{{- $_ := set $ctx "proxykitSettingsOf" $ctx.Values -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.resolve.env — the proxy EnvVar list for resolved settings.
Input:  the settings map of proxykit.resolve.settings (without "env").
Output: JSON list: HTTP_PROXY, HTTPS_PROXY, NO_PROXY, then the lower-case twins
        unless lowercase is false; a variable whose URL is empty is left out. Then,
        for the runtimes: JAVA_TOOL_OPTIONS (java; a plain value: it never holds a
        credential) and NODE_USE_ENV_PROXY=1 (node).
        With credentials every entry is a secretKeyRef into secretName (upper-case
        keys for both cases), never a value; except NO_PROXY and no_proxy when the
        settings carry "plainNoProxy" (proxykit.resolve.envWithNoProxy): NO_PROXY never
        holds a credential. "[]" when the proxy is off.
*/}}
{{- define "proxykit.resolve.env" -}}
{{- $s := . -}}
{{- $env := list -}}
{{- if $s.enabled -}}
  {{- $values := dict "HTTP_PROXY" $s.http "HTTPS_PROXY" $s.https "NO_PROXY" $s.noProxy -}}
  {{- $cases := list "" -}}
  {{- if $s.lowercase }}{{ $cases = append $cases "lower" }}{{ end -}}
  {{- range $case := $cases -}}
    {{- range $key := list "HTTP_PROXY" "HTTPS_PROXY" "NO_PROXY" -}}
      {{- /* with an existing Secret the URLs live there, so every key is referenced */ -}}
      {{- if or (index $values $key) $s.existingSecret -}}
        {{- $name := ternary (lower $key) $key (eq $case "lower") -}}
        {{- if and $s.credentials (not (and $s.plainNoProxy (eq $key "NO_PROXY"))) -}}
          {{- $env = append $env (dict "name" $name "valueFrom" (dict "secretKeyRef" (dict "name" $s.secretName "key" $key))) -}}
        {{- else -}}
          {{- $env = append $env (dict "name" $name "value" (index $values $key)) -}}
        {{- end -}}
      {{- end -}}
    {{- end -}}
  {{- end -}}
  {{- if $s.javaOptions }}{{ $env = append $env (dict "name" "JAVA_TOOL_OPTIONS" "value" $s.javaOptions) }}{{ end -}}
  {{- if has "node" $s.runtimes }}{{ $env = append $env (dict "name" "NODE_USE_ENV_PROXY" "value" "1") }}{{ end -}}
  {{- include "proxykit.resolve.envLength" (dict "env" $env "settings" $s) -}}
{{- end -}}
{{- toJson $env -}}
{{- end -}}

{{/*
proxykit.resolve.envStringLimit — the kernel's limit for one "NAME=value" environment
string with its NUL (MAX_ARG_STRLEN, 128 KiB), which envLength enforces and the
no-proxy-too-long rule of proxytest and `proxykit check` judges against by default.
Input: anything. Output: "131072".
*/}}
{{- define "proxykit.resolve.envStringLimit" -}}131072{{- end -}}

{{/*
proxykit.resolve.envLength — fails when a variable would not fit one environment string.
Input:  dict "env" <EnvVar list> "settings" <resolved settings>
Output: nothing; fails naming the values keys that made the variable that long.
The kernel refuses to start a process (execve fails with E2BIG) when one
"NAME=value" string is longer than 128 KiB with its NUL (MAX_ARG_STRLEN): a container,
or containerd and the kubelet under the drop-in, would not start. This one rule
covers every variable the library writes, in every form (the node ranges, the
JVM's patterns).
*/}}
{{- define "proxykit.resolve.envLength" -}}
{{- $limit := include "proxykit.resolve.envStringLimit" . | atoi -}}
{{- $s := .settings -}}
{{- range $e := .env -}}
  {{- if hasKey $e "value" -}}
    {{- $length := add (len $e.name) 1 (len $e.value) 1 -}}
    {{- if gt $length $limit -}}
      {{- $keys := $s.noProxyKey | default (index $s.from "noProxy") -}}
      {{- $why := "" -}}
      {{- if eq $e.name "JAVA_TOOL_OPTIONS" -}}
        {{- $keys = printf "%s and %s" $keys (index $s.from "runtimes") -}}
        {{- $why = " (the JVM's http.nonProxyHosts writes a name twice, an IPv4 CIDR as a pattern per /16 or /24 it spans)" -}}
      {{- else if has "node" $s.runtimes -}}
        {{- $keys = printf "%s and %s" $keys (index $s.from "runtimes") -}}
        {{- $why = " (with the node runtime every name is written twice, as name and .name)" -}}
      {{- end -}}
      {{- fail (printf "proxykit: %s: %s would be %d bytes with its NUL%s, over the kernel's limit of %d for one environment string (MAX_ARG_STRLEN): the container would not start; use fewer, wider entries (a domain suffix such as .corp.example for many names, a CIDR for many addresses)" $keys $e.name $length $why $limit) -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
proxykit.resolve.envWithNoProxy — the proxy EnvVar list with NO_PROXY entries of one call.
Input:  dict "context" $ "noProxy" <list or comma-separated string> "key" <how messages name it>
        (proxykit.resolve.settings has run)
Output: JSON list, as proxykit.resolve.env, with the entries checked and written like
        proxy.noProxy entries and appended to NO_PROXY and no_proxy (each once; with
        proxy.runtimes node in their ".name" form too, and in the JVM's
        http.nonProxyHosts with java). NO_PROXY and no_proxy are plain values then,
        also with credentials: NO_PROXY never holds one, and the proxy Secret's NO_PROXY
        is the same for every container. With proxy.existingSecret the NO_PROXY is the
        one the library composes from the values, not the Secret's, so it must cover
        the cluster's networks (see cluster.requireNetworks) as with a proxy URL.
*/}}
{{- define "proxykit.resolve.envWithNoProxy" -}}
{{- $s := .context.proxykitSettings -}}
{{- if not $s.enabled -}}
[]
{{- else -}}
  {{- $noProxy := include "proxykit.proxy.noProxy" (dict "context" .context "extra" .noProxy "extraKey" .key) -}}
  {{- if has "node" $s.runtimes }}{{ $noProxy = include "proxykit.noProxy.forNode" $noProxy }}{{ end -}}
  {{- if and $s.existingSecret (not $s.networksKnown) -}}
    {{- fail (printf "proxykit: %s: with proxy.existingSecret, NO_PROXY then comes from the values, not from the Secret, and they name no pod or service network and no API server; set cluster.podCIDRs and cluster.serviceCIDRs (or cluster.apiServer), or set cluster.requireNetworks: false to accept that" .key) -}}
  {{- end -}}
  {{- $javaOptions := "" -}}
  {{- if $s.javaOptions -}}
    {{- $javaOptions = include "proxykit.java.flags" (dict "http" $s.http "https" $s.https "httpKey" (index $s.from "http") "httpsKey" (index $s.from "https") "runtimesKey" (index $s.from "runtimes") "noProxy" $noProxy "existingSecret" (ne $s.existingSecret "")) -}}
    {{- $javaOptions = join " " (compact (list $javaOptions (include "proxykit.java.trustFlags" $s.trustedCA))) -}}
  {{- end -}}
  {{- include "proxykit.resolve.env" (merge (dict "noProxy" $noProxy "javaOptions" $javaOptions "plainNoProxy" true "noProxyKey" (printf "%s and %s" (index $s.from "noProxy") .key)) $s) -}}
{{- end -}}
{{- end -}}
