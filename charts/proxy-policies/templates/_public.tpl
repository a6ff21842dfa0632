{{- /*
What "this entry sends public hosts around the proxy" is, for the policies' two
languages: CEL (the native policy and Kyverno's MutatingPolicy) and JMESPath
(the ClusterPolicy). Go's cluster.Public and cluster.PublicJavaPattern are the
same predicate (inject drops what they judge); TestOwnSettingsAreOneBehaviour
holds every engine to inject's output. With policy.mergeNoProxy the CEL engines
leave such entries out in the merge itself, reading the public suffix table (75,000
characters; CEL parses at most 100,000 per expression) from the policy's variable psl
(proxy-policies.cel.variables); the ClusterPolicy drops them from the end of the merged
values in rules of their own after the merge.
*/ -}}

{{/*
proxy-policies.public.cidrs — the networks that hold public addresses and are wider than one
holder's block, as RE2 patterns over a lower-case entry (the same in CEL's matches and
Kyverno's regex_match): IPv4 wider than /8, IPv4-mapped IPv6 wider than /104, and IPv6
wider than /32 except inside fc00::/7 (unique local) and fe80::/10 (link-local).
Input: none. Output: JSON {wide: [patterns], private: [patterns]}; an entry is wide when it
matches one of wide and none of private.
*/}}
{{- define "proxy-policies.public.cidrs" -}}
{{- $v6 := "^[0-9a-f:]+/([0-9]|[12][0-9]|3[01])$" -}}
{{- toJson (dict
  "wide" (list "^[0-9]+([.][0-9]+){3}/[0-7]$" "^::ffff:[0-9a-f.:]*/([0-9]|[1-9][0-9]|10[0-3])$" $v6)
  "private" (list "^f[cd][0-9a-f]{2}:[0-9a-f:]*/([7-9]|[12][0-9]|3[01])$" "^fe[89ab][0-9a-f]:[0-9a-f:]*/(1[0-9]|2[0-9]|3[01])$")) -}}
{{- end -}}

{{/*
proxy-policies.cel.publicSuffix — whether a host name (lower case, no dots at its ends) is
a public suffix of the ICANN section, looked up in proxykit.noProxy.icannSuffixes.
Input: dict "name" <CEL string expression> "table" <CEL name bound to the table>.
Output: a CEL bool expression.
*/}}
{{- define "proxy-policies.cel.publicSuffix" -}}
[{{ .name }}].map(n, n != "" && ({{ .table }}.contains("|" + n + "|") || (n.contains(".") ? {{ .table }}.contains("|*." + n.substring(n.indexOf(".") + 1) + "|") && !{{ .table }}.contains("|!" + n + "|") : {{ .table }}.contains("|*." + n + "|"))))[0]
{{- end -}}

{{/*
proxy-policies.cel.labels — a name with its empty labels dropped (dots at its ends and
doubled ones), lower case. Input: a CEL string expression. Output: a CEL string expression.
*/}}
{{- define "proxy-policies.cel.labels" -}}
{{ . }}.lowerAscii().split(".").filter(x, x != "").join(".")
{{- end -}}

{{/*
proxy-policies.cel.publicEntry — whether a NO_PROXY entry (trimmed) sends public hosts around
the proxy, or holds a password: "*", a URL with user-info, a wide public network
(proxy-policies.public.cidrs), or a host (a "*" and a :port cut off) that is a public
suffix of the ICANN section.
Input: dict "entry" <CEL string expression> "table" <CEL name bound to the table>.
Output: a CEL bool expression.
*/}}
{{- define "proxy-policies.cel.publicEntry" -}}
{{- $cidrs := include "proxy-policies.public.cidrs" . | fromJson -}}
{{- $wide := list -}}{{ range $p := $cidrs.wide }}{{ $wide = append $wide (printf "l.matches(%s)" (toJson $p)) }}{{ end -}}
{{- $private := list -}}{{ range $p := $cidrs.private }}{{ $private = append $private (printf "l.matches(%s)" (toJson $p)) }}{{ end -}}
[{{ .entry }}.lowerAscii()].map(l, l == "*" || l.contains("@") || ({{ join " || " $wide }}) && !({{ join " || " $private }}) || !l.contains("/") && !l.startsWith("[") && [l.startsWith("*") ? l.substring(1) : l].map(h, h.split(":").size() == 1 ? h : h.split(":").size() == 2 ? h.split(":")[0] : "").map(h, {{ include "proxy-policies.cel.publicSuffix" (dict "name" (include "proxy-policies.cel.labels" "h") "table" .table) }})[0])[0]
{{- end -}}

{{/*
proxy-policies.cel.publicJavaPattern — whether a -Dhttp.nonProxyHosts pattern matches
public hosts: "*", "*" before nothing or before a public suffix of the ICANN section
(*.com), or a prefix that ends inside a label before its "*" (1*).
Input: dict "pattern" <CEL string expression> "table" <CEL name bound to the table>.
Output: a CEL bool expression.
*/}}
{{- define "proxy-policies.cel.publicJavaPattern" -}}
[{{ .pattern }}.trim()].map(p, p.startsWith("*") ? [{{ include "proxy-policies.cel.labels" "p.substring(1)" }}].map(r, r == "" || !r.contains(":") && {{ include "proxy-policies.cel.publicSuffix" (dict "name" "r" "table" .table) }})[0] : p.endsWith("*") && !p.endsWith(".*"))[0]
{{- end -}}

{{/*
proxy-policies.jmes.publicSuffix — proxy-policies.cel.publicSuffix in JMESPath, over the
fields of the current object: h (the name) and t (the table).
Input: none. Output: a JMESPath expression.
*/}}
{{- define "proxy-policies.jmes.publicSuffix" -}}
(h != '' && (contains(t, join('', ['|', h, '|'])) || (contains(h, '.') && contains(t, join('', ['|*.', join('.', split(h, '.')[1:]), '|'])) && !contains(t, join('', ['|!', h, '|']))) || (!contains(h, '.') && contains(t, join('', ['|*.', h, '|'])))))
{{- end -}}

{{/*
proxy-policies.jmes.keepEntries — the entries of a list (of strings, trimmed) that do not
send public hosts around the proxy (proxy-policies.cel.publicEntry in JMESPath). The table
is written once: each entry becomes an object {e, h, t} (t the table, h the host it names)
that the filter reads, as a JMESPath filter sees no variable.
Input: dict "list" <JMESPath expression of a list of strings> "table" <the table string>.
Output: a JMESPath expression of a list of strings.
*/}}
{{- define "proxy-policies.jmes.keepEntries" -}}
{{- $cidrs := include "proxy-policies.public.cidrs" . | fromJson -}}
{{- $wide := list -}}{{ range $p := $cidrs.wide }}{{ $wide = append $wide (printf "regex_match('%s', l)" $p) }}{{ end -}}
{{- $private := list -}}{{ range $p := $cidrs.private }}{{ $private = append $private (printf "regex_match('%s', l)" $p) }}{{ end -}}
{{- $bare := "trim_prefix(to_lower(@), '*')" -}}
{{- $host := printf "join('.', split((!contains(%s, '/') && !starts_with(%s, '[') && ((length(split(%s, ':')) == `1` && %s) || (length(split(%s, ':')) == `2` && split(%s, ':')[0]))) || '', '.')[?@ != ''])" $bare $bare $bare $bare $bare $bare -}}
map(&e, map(&{e: @, l: to_lower(@), h: {{ $host }}, t: '{{ .table }}'}, {{ .list }})[?!(e == '*' || contains(e, '@') || (({{ join " || " $wide }}) && !({{ join " || " $private }})) || {{ include "proxy-policies.jmes.publicSuffix" . }})])
{{- end -}}

{{/*
proxy-policies.jmes.keepJavaPatterns — the -Dhttp.nonProxyHosts patterns of a list that do
not match public hosts, and are not empty (proxy-policies.cel.publicJavaPattern in JMESPath).
Input: dict "list" <JMESPath expression of a list of strings> "table" <the table string>.
Output: a JMESPath expression of a list of strings.
*/}}
{{- define "proxy-policies.jmes.keepJavaPatterns" -}}
{{- $rest := "trim_prefix(trim(@, ' '), '*')" -}}
map(&p, map(&{p: trim(@, ' '), star: starts_with(trim(@, ' '), '*'), colon: contains(@, ':'), h: join('.', split(to_lower({{ $rest }}), '.')[?@ != '']), t: '{{ .table }}'}, {{ .list }})[?p != '' && !((star && (h == '' || (!colon && {{ include "proxy-policies.jmes.publicSuffix" . }}))) || (!star && ends_with(p, '*') && !ends_with(p, '.*')))])
{{- end -}}

{{/*
proxy-policies.kyverno.dropPublic — the ClusterPolicy's drop of public entries (policy.mergeNoProxy),
foreach entries of its inject rule after the merges: from every merged NO_PROXY and no_proxy (the cluster's entries,
then the own ones it lacked) the own entries that send public hosts around the proxy or hold
a password are dropped, and from a merged JAVA_TOOL_OPTIONS (the proxy's flags, the own
value, then the -Dhttp.nonProxyHosts the merge appended) the patterns of that last flag that
match public hosts, as inject and the CEL engines do (proxy-policies.cel.mutations).
Input: dict "list" <container list> "noProxy" <the cluster's NO_PROXY or ""> "java" <the
proxy's JAVA_TOOL_OPTIONS when its flag is merged, or "": the rule's context binds it as
javaOptions> "fabric8NoProxy" <fabric8's NO_PROXY where it differs, or ""> "flags" <the
proxy's JAVA_TOOL_OPTIONS, or "">. Output: YAML list (foreach entries).
*/}}
{{- define "proxy-policies.kyverno.dropPublic" -}}
{{- $table := include "proxykit.noProxy.icannSuffixes" dict -}}
{{- $flag := "-Dhttp.nonProxyHosts=" -}}
{{- /* the patch is a single-quoted YAML string, its quotes doubled */ -}}
{{- $quote := "`\"'\"`" -}}
{{- $quotes := "`\"''\"`" -}}
{{- if .noProxy }}
{{- /* the cluster's NO_PROXY the container got: with fabric8NoProxy, fabric8's where it may run that client */ -}}
{{- $cluster := printf "'%s'" .noProxy }}
{{- with .fabric8NoProxy }}{{ $cluster = printf "((%s) && '%s' || '%s')" (include "proxy-policies.jmes.mayRunFabric8" (dict "c" "element0" "flags" $.flags)) . $.noProxy }}{{ end }}
- list: request.object.spec.{{ .list }} || `[]`
  foreach:
    - list: "element0.env || `[]`"
      preconditions:
        all:
          # a block scalar: the expression may hold both kinds of quotes
          - key: |-
              {{ "{{" }} contains(['NO_PROXY', 'no_proxy'], element.name) && !contains(keys(element), 'valueFrom') && starts_with(element.value || '', join('', [{{ $cluster }}, ','])) {{ "}}" }}
            operator: Equals
            value: true
          - key: "{{ "{{ element0.name }}" }}"
            operator: AnyNotIn
            value: "{{ "{{ skipContainers }}" }}"
      patchesJson6902: |-
        - op: replace
          path: /spec/{{ .list }}/{{ "{{elementIndex0}}" }}/env/{{ "{{elementIndex1}}" }}/value
          value: '{{ "{{-" }} replace_all(join(',', [[{{ $cluster }}], {{ include "proxy-policies.jmes.keepEntries" (dict "list" (printf "split(trim_prefix(element.value, join('', [%s, ','])), ',')[?@ != '']" $cluster) "table" $table) }}][]), {{ $quote }}, {{ $quotes }}) {{ "}}" }}'
{{- end }}
{{- if .java }}
- list: request.object.spec.{{ .list }} || `[]`
  foreach:
    - list: "element0.env || `[]`"
      preconditions:
        all:
          # JAVA_TOOL_OPTIONS with more -Dhttp.nonProxyHosts flags than the proxy's, and the JVM's other
          # option variables that set the flag: a merge appended a last one to each
          - key: "{{ printf "{{ !contains(keys(element), 'valueFrom') && ((element.name == 'JAVA_TOOL_OPTIONS' && starts_with(element.value || '', javaOptions) && length(split(element.value || '', '%s')) > `%d`)" $flag (len (splitList $flag .java)) }}{{ if .javaVars }}{{ printf " || (contains(%s, element.name) && contains(element.value || '', '%s'))" (printf "['%s']" (join "', '" .javaVars)) $flag }}{{ end }}) {{ "}}" }}"
            operator: Equals
            value: true
          - key: "{{ "{{ element0.name }}" }}"
            operator: AnyNotIn
            value: "{{ "{{ skipContainers }}" }}"
      patchesJson6902: |-
        - op: replace
          path: /spec/{{ .list }}/{{ "{{elementIndex0}}" }}/env/{{ "{{elementIndex1}}" }}/value
          value: '{{ "{{-" }} replace_all(join('', [join('{{ $flag }}', split(element.value, '{{ $flag }}')[:-1]), '{{ $flag }}', join('|', {{ include "proxy-policies.jmes.keepJavaPatterns" (dict "list" (printf "split(split(element.value, '%s')[-1], '|')" $flag) "table" $table) }})]), {{ $quote }}, {{ $quotes }}) {{ "}}" }}'
{{- end }}
{{- end -}}
