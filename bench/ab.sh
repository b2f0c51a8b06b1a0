#!/usr/bin/env bash
# A/B of one build under several environments (pass skips, experiment switches), on the GPU machine:
# every variant runs each size once a round, variants alternated, each in its own process and with its
# own compile cache (the cache key does not see the environment), and the table of TFLOP/s is printed
# last.
#
#   bash bench/ab.sh BUILD KERNEL CONFIG "SIZE..." ROUNDS NAME=ENV[,ENV] ...
#   e.g. bash bench/ab.sh build-gpu attn_fwd 128,64,4,3 "Z4H32N4096D128 Z4H32N4096D64" 2 \
#          base= nda=TLC_SKIP_PASSES=dot-ahead
#
# KERNEL is tlc_bench_tc's --only prefix, CONFIG its --fwd-config (attention) or '-' for the tuned
# configs. AB_TIMEOUT (default 90 s) bounds each process; AB_REPS (default 30) its repetitions.
set -u
[ $# -ge 6 ] || { sed -n '2,12p' "$0"; exit 2; }
build=$1 kernel=$2 config=$3 sizes=$4 rounds=$5
shift 5
bin=$build/bin/tlc_bench_tc
[ -x "$bin" ] || { echo "ab.sh: $bin not found" >&2; exit 2; }
tmp=$(mktemp -d)
results=$tmp/results
: > "$results"
for r in $(seq 1 "$rounds"); do
  for size in $sizes; do
    for v in "$@"; do
      name=${v%%=*} envs=${v#*=}
      args=(--only "$kernel" --size "$size" --reps "${AB_REPS:-30}")
      [ "$config" = - ] || args+=(--fwd-config "$config")
      envv=(TLC_CACHE_DIR="$tmp/cache-$name")
      if [ -n "$envs" ]; then IFS=, read -r -a extra <<< "$envs"; envv+=("${extra[@]}"); fi
      line=$(env "${envv[@]}" timeout "${AB_TIMEOUT:-90}" "$bin" "${args[@]}" 2>&1 | grep '^BENCH' | head -1)
      tf=$(sed -n 's/.*tlc_tflops=\([0-9.]*\).*/\1/p' <<< "$line")
      st=$(sed -n 's/.*status=\([A-Z]*\).*/\1/p' <<< "$line")
      echo "AB round=$r size=$size variant=$name tflops=${tf:-none} status=${st:-none}"
      echo "$size $name ${tf:-none}${st:+/$st}" >> "$results"
    done
  done
done
echo
printf '%-26s' size; for v in "$@"; do printf ' %22s' "${v%%=*}"; done; echo
for size in $sizes; do
  printf '%-26s' "$size"
  for v in "$@"; do
    printf ' %22s' "$(awk -v s="$size" -v n="${v%%=*}" '$1 == s && $2 == n { sub("/PASS", "", $3); o = o (o ? " / " : "") $3 } END { print o }' "$results")"
  done
  echo
done
rm -rf "$tmp"
