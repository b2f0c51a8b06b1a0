#!/usr/bin/env bash
# compile_time.sh [BUILD_DIR] [REPS] — how long a cold compile to PTX takes,
# whole process (`tlc compile` started, PTX written, process gone), for the
# kernels issue 18's targets name: the fp16 matmul the benchmark times first,
# the fused attention forward and its backward (seed 004) at head dim 64 and
# 128, at the configs the benchmark runs.  Each kernel is compiled REPS times
# (default 11) after one untimed run (the page cache warm, nothing else:
# `tlc compile` keeps no cache of its own), and the line gives the median,
# the fastest and the slowest wall time in ms, the median CPU time (user +
# system: what a virtual machine's stolen time does not inflate), then the
# median of each stage as `tlc --time` reports it.
#
#   bash bench/compile_time.sh build 11
#
# The math library is the machine's default (libdevice where one is found).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../build}
reps=${2:-11}
tlc=$build/bin/tlc
ex=$here/../examples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-ctime.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mm_sig='*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,1,i32:16,1,i32:16,1'
fwd_sig='*fp16:16,*fp16:16,*fp16:16,fp32,*fp32:16,*fp16:16,i32:16,i32:16,i32:16,1,i32:16,i32:16,i32:16,1,i32:16,i32:16,i32:16,1,i32:16,i32:16,i32:16,1,i32,i32:16,i32:16'
bwd_sig='*fp16:16,*fp16:16,*fp16:16,fp32,*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,i32:16,1,i32:16,i32:16,32,128,128,32,2'

# name | tile | kernel | signature | options
kernels=(
  "matmul_fp16_128x128x64_w4s4|matmul/grouped_matmul_1d.tile|grouped_matmul_1d_kernel|$mm_sig,128,128,64,8|--num-warps 4 --num-stages 4"
  "matmul_fp16_128x256x64_w8s3|matmul/grouped_matmul_1d.tile|grouped_matmul_1d_kernel|$mm_sig,128,256,64,8|--num-warps 8 --num-stages 3"
  "attn_fwd_D64_128x64_w4s3|attention/fused_attention.tile|_attn_fwd|$fwd_sig,64,_,_,3|-C BLOCK_M=128 -C BLOCK_N=64 --num-warps 4 --num-stages 3"
  "attn_fwd_D128_128x64_w4s3|attention/fused_attention.tile|_attn_fwd|$fwd_sig,128,_,_,3|-C BLOCK_M=128 -C BLOCK_N=64 --num-warps 4 --num-stages 3"
  "attn_bwd_D64_w4s5|attention/fused_attention.tile|_attn_bwd|$bwd_sig,64|--num-warps 4 --num-stages 5"
  "attn_bwd_D128_w8s5|attention/fused_attention.tile|_attn_bwd|$bwd_sig,128|--num-warps 8 --num-stages 5"
)

TIMEFORMAT='%3R %3U %3S'
median() { sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f", m}'; }

printf '%-30s %8s %8s %8s %8s   %s\n' kernel median min max cpu "stages (median ms): front end, passes, LLVM IR, optimisation, PTX"
for k in "${kernels[@]}"; do
  IFS='|' read -r name tile kernel sig opts <<<"$k"
  # shellcheck disable=SC2086
  cmd=("$tlc" compile "$ex/$tile" --kernel "$kernel" --signature "$sig" $opts --time -o "$tmp/k.ptx")
  "${cmd[@]}" 2>/dev/null || { echo "$name: tlc compile failed"; exit 1; }
  : >"$tmp/wall" ; : >"$tmp/cpu" ; : >"$tmp/stages"
  for _ in $(seq "$reps"); do
    # bash's time: wall seconds, then user and system CPU seconds of the process
    { time "${cmd[@]}" 2>"$tmp/err"; } 2>"$tmp/t"
    awk '{printf "%.1f\n", $1 * 1000}' "$tmp/t" >>"$tmp/wall"
    awk '{printf "%.1f\n", ($2 + $3) * 1000}' "$tmp/t" >>"$tmp/cpu"
    awk '/front end|passes|LLVM IR|optimisation|PTX/ {printf "%s ", $NF} END {print ""}' "$tmp/err" >>"$tmp/stages"
  done
  st=""
  for c in 1 2 3 4 5; do st="$st $(awk -v c=$c '{print $c}' "$tmp/stages" | median)"; done
  printf '%-30s %8s %8s %8s %8s  %s\n' "$name" "$(median <"$tmp/wall")" "$(sort -g "$tmp/wall" | head -1)" \
    "$(sort -g "$tmp/wall" | tail -1)" "$(median <"$tmp/cpu")" "$st"
done
