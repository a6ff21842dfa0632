#!/usr/bin/env bash
# Reads `go test -bench -count N` output. generateEnv: its time as a ratio to the
# plain merge baseline measured in the same run (goal: <= 1.0x at 10 and 100
# entries per tier, <= 0.5x at 1000), and linear growth (1000 entries at most
# 11x the cost of 100).
set -euo pipefail
file=${1:?usage: bench-ratio.sh bench.txt}
# the fastest of the repeated runs: this machine's noise only ever adds time
ns() { awk -v name="$1" '$1 ~ name {for (i = 2; i <= NF; i++) if ($(i+1) == "ns/op") print $i}' "$file" | sort -n | head -n1; }
# generateEnv against the plain last-wins merge baseline of the same run, per size
for n in 10 100 1000; do
  ours=$(ns "GenerateEnv/entries=$n/helper=proxykit-"); plain=$(ns "GenerateEnv/entries=$n/helper=plain-")
  goal=$([ "$n" = 1000 ] && echo 0.5 || echo 1.0)
  awk -v n="$n" -v a="$ours" -v b="$plain" -v goal="$goal" 'BEGIN {
    printf "generateEnv at %4d entries per tier: %.2fx the plain merge (%.1f ms vs %.1f ms; goal <= %.1fx)\n", n, a / b, a / 1e6, b / 1e6, goal
    if (a / b > goal) { print "FAIL: generateEnv is slower than its goal against the plain merge"; exit 1 }
  }'
done
n10=$(ns 'GenerateEnv/entries=10/helper=proxykit-'); n100=$(ns 'GenerateEnv/entries=100/helper=proxykit-'); n1000=$(ns 'GenerateEnv/entries=1000/helper=proxykit-')
awk -v a="$n10" -v b="$n100" -v c="$n1000" 'BEGIN {
  printf "generateEnv growth: 10->100 entries %.1fx, 100->1000 entries %.1fx (limit 11x)\n", b / a, c / b
  if (c / b > 11) { print "FAIL: generateEnv grows faster than linearly"; exit 1 }
}'
k1=$(ns 'KyvernoApply/containers=1-'); k20=$(ns 'KyvernoApply/containers=20-'); k200=$(ns 'KyvernoApply/containers=200-')
if [ -n "$k1" ] && [ -n "$k20" ] && [ -n "$k200" ]; then
  # the 1-container run is mostly CLI start-up; the growth above it is the policy's own cost
  awk -v a="$k1" -v b="$k20" -v c="$k200" 'BEGIN {
    printf "kyverno apply: 20 containers %.2fx, 200 containers %.2fx the time of 1 (limit 20x from 1 to 20: linear)\n", b / a, c / a
    printf "kyverno apply above the 1-container run (mostly CLI start-up): 20 containers %+.0f ms, 200 containers %+.0f ms\n", (b - a) / 1e6, (c - a) / 1e6
    if (b / a > 20) { print "FAIL: the policy grows faster than linearly from 1 to 20 containers"; exit 1 }
  }'
fi

# proxytest.Render in-process against `helm template` as a process, same chart and values
pt=$(ns 'ProxytestRender-'); ht=$(ns 'HelmTemplateProcess-')
if [ -n "$pt" ] && [ -n "$ht" ]; then
  awk -v a="$pt" -v b="$ht" 'BEGIN { printf "proxytest.Render: %.1f ms, helm template as a process: %.1f ms: %.1fx faster (goal 10x)\n", a / 1e6, b / 1e6, b / a }'
fi
# proxykit check on 100 and 1,000 Deployments
c1=$(ns 'Check/deployments=100-'); c2=$(ns 'Check/deployments=1000-')
if [ -n "$c1" ] && [ -n "$c2" ]; then
  awk -v a="$c1" -v b="$c2" 'BEGIN {
    printf "proxykit check: 100 Deployments %.0f ms, 1,000 Deployments %.0f ms: %.1fx for 10x the objects (limit 11x)\n", a / 1e6, b / 1e6, b / a
    if (b / a > 11) { print "FAIL: proxykit check grows faster than linearly"; exit 1 }
  }'
fi

# proxykit inject (a process, as Helm runs a post-renderer) on 100 and 1,000 Deployments,
# beside helm template of the same chart
i1=$(ns 'Inject/deployments=100-'); i2=$(ns 'Inject/deployments=1000-')
h1=$(ns 'InjectHelmTemplate/deployments=100-'); h2=$(ns 'InjectHelmTemplate/deployments=1000-')
if [ -n "$i1" ] && [ -n "$i2" ] && [ -n "$h1" ] && [ -n "$h2" ]; then
  awk -v a="$i1" -v b="$i2" -v c="$h1" -v d="$h2" 'BEGIN {
    printf "proxykit inject: 100 Deployments %.0f ms, 1,000 Deployments %.0f ms: %.1fx for 10x the objects (limit 11x)\n", a / 1e6, b / 1e6, b / a
    printf "proxykit inject beside helm template of the same chart: %.2fx at 100 Deployments (%.0f ms), %.2fx at 1,000 (%.0f ms)\n", a / c, c / 1e6, b / d, d / 1e6
    if (b / a > 11) { print "FAIL: proxykit inject grows faster than linearly"; exit 1 }
  }'
fi

# proxykit audit on 500 and 5,000 Pods in the loopback API server, and its peak memory
a1=$(ns 'Audit/pods=500-'); a2=$(ns 'Audit/pods=5000-')
if [ -n "$a1" ] && [ -n "$a2" ]; then
  m1=$(awk '$1 ~ /Audit\/pods=500-/ {for (i = 2; i <= NF; i++) if ($(i+1) == "peak-MiB") print $i}' "$file" | head -n1)
  m2=$(awk '$1 ~ /Audit\/pods=5000-/ {for (i = 2; i <= NF; i++) if ($(i+1) == "peak-MiB") print $i}' "$file" | head -n1)
  awk -v a="$a1" -v b="$a2" -v m1="$m1" -v m2="$m2" 'BEGIN {
    printf "proxykit audit: 500 Pods %.0f ms, 5,000 Pods %.0f ms: %.1fx for 10x the Pods (limit 11x); peak memory %.0f MiB -> %.0f MiB, %.2fx\n", a / 1e6, b / 1e6, b / a, m1, m2, m2 / m1
    if (b / a > 11) { print "FAIL: proxykit audit grows faster than linearly"; exit 1 }
  }'
fi

# Pod CREATE through the loopback API server: each engine's p50 and p99 as a ratio
# to no policy, all measured in one run (goal: native within 1.5x at p50)
metric() { awk -v name="$1" '$1 ~ /AdmissionLatency/ {for (i = 2; i <= NF; i++) if ($(i+1) == name) print $i}' "$file" | head -n1; }
none50=$(metric none-p50-ms); none99=$(metric none-p99-ms)
if [ -n "$none50" ]; then
  printf "Pod CREATE latency, no policy: p50 %.1f ms, p99 %.1f ms\n" "$none50" "$none99"
  for engine in native MutatingPolicy ClusterPolicy; do
    awk -v e="$engine" -v a="$(metric "$engine-p50-ms")" -v b="$(metric "$engine-p99-ms")" -v n50="$none50" -v n99="$none99" 'BEGIN {
      printf "Pod CREATE latency, %-14s p50 %5.1f ms (%.2fx no policy), p99 %5.1f ms (%.2fx)%s\n", e ":", a, a / n50, b, b / n99, (e == "native" ? " (goal <= 1.5x at p50)" : "")
    }'
  done
fi

# NO_PROXY entries and an unknown key's length: 10x the input, at most 11x the time
for pair in "NoProxyEntries/entries=1000-:NoProxyEntries/entries=10000-:noProxy entries 1,000 -> 10,000" "UnknownKey/length=20000-:UnknownKey/length=200000-:unknown key 20,000 -> 200,000 characters"; do
  IFS=: read -r small large label <<<"$pair"
  a=$(ns "$small"); b=$(ns "$large")
  if [ -n "$a" ] && [ -n "$b" ]; then
    awk -v a="$a" -v b="$b" -v l="$label" 'BEGIN {
      printf "%s: %.0f ms -> %.0f ms, %.1fx (limit 11x)\n", l, a / 1e6, b / 1e6, b / a
      if (b / a > 11) { print "FAIL: " l " grows faster than linearly"; exit 1 }
    }'
  fi
done

# pod CIDRs (a Node each on a large cluster): 4x the CIDRs, at most 5x the time (16x would be quadratic)
p1=$(ns 'PodCIDRs/cidrs=2500-'); p2=$(ns 'PodCIDRs/cidrs=10000-')
if [ -n "$p1" ] && [ -n "$p2" ]; then
  awk -v a="$p1" -v b="$p2" 'BEGIN {
    printf "pod CIDRs 2,500 -> 10,000: %.0f ms -> %.0f ms, %.1fx (limit 5x)\n", a / 1e6, b / 1e6, b / a
    if (b / a > 5) { print "FAIL: pod CIDRs grow faster than linearly"; exit 1 }
  }'
fi
