#!/usr/bin/env bash
# Reads `go test -bench -count N` output and checks that generateEnv grows linearly:
# 1000 entries per tier may cost at most 11x what 100 entries cost.
set -euo pipefail
file=${1:?usage: bench-ratio.sh bench.txt}
# the fastest of the repeated runs: this machine's noise only ever adds time
ns() { awk -v name="$1" '$1 ~ name {for (i = 2; i <= NF; i++) if ($(i+1) == "ns/op") print $i}' "$file" | sort -n | head -n1; }
n10=$(ns 'GenerateEnv/entries=10-'); n100=$(ns 'GenerateEnv/entries=100-'); n1000=$(ns 'GenerateEnv/entries=1000-')
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
