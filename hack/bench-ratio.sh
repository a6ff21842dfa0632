#!/usr/bin/env bash
# Reads `go test -bench` output and checks that generateEnv grows linearly:
# 1000 entries per tier may cost at most 11x what 100 entries cost.
set -euo pipefail
file=${1:?usage: bench-ratio.sh bench.txt}
ns() { awk -v name="$1" '$1 ~ name {for (i = 2; i <= NF; i++) if ($(i+1) == "ns/op") print $i}' "$file" | head -n1; }
n10=$(ns 'GenerateEnv/entries=10-'); n100=$(ns 'GenerateEnv/entries=100-'); n1000=$(ns 'GenerateEnv/entries=1000-')
awk -v a="$n10" -v b="$n100" -v c="$n1000" 'BEGIN {
  printf "generateEnv growth: 10->100 entries %.1fx, 100->1000 entries %.1fx (limit 11x)\n", b / a, c / b
  if (c / b > 11) { print "FAIL: generateEnv grows faster than linearly"; exit 1 }
}'
