{{/*
The opt-out vocabulary: a Pod (or pod template) says once what must not get the
proxy, and every part of proxykit honours it: proxy-policies' engines, proxytest's
Check, `proxykit check`, `audit` and `inject` (which read it from here).
*/}}

{{/*
proxykit.optOut.annotations — the annotations that opt a Pod, or some of its containers, out.
Input:  none (any value).
Output: JSON {"pod": {ANNOTATION: VALUE, ...}, "skipContainers": ANNOTATION}:
  pod             a Pod carrying one of these with that value is left alone: proxykit's
                  own, Giant Swarm's and AKS's
  skipContainers  the annotation that lists containers (of any list) left alone: "metrics,envoy"
*/}}
{{- define "proxykit.optOut.annotations" -}}
{{- toJson (dict
    "pod" (dict "proxykit.io/inject" "false" "policies.kyverno.io/inject-proxy-env" "exclude" "kubernetes.azure.com/no-http-proxy-vars" "true")
    "skipContainers" "proxykit.io/skip-containers") -}}
{{- end -}}
