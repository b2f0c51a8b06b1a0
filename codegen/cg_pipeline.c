/* cg_pipeline.c — which LLVM pass pipeline optimizes a kernel.
 *
 * Owns the choice of the O-pipeline's text for an arch and optimisation
 * level.  For sm_90a at -O3 (every kernel the benchmark and the GPU suite
 * run) it is a pipeline chosen by measurement: LLVM 19's default<O3>, as
 * `opt -passes='default<O3>' -print-pipeline-passes` writes it for
 * nvptx64/sm_90a (112 passes), less every pass whose absence leaves the PTX
 * of every kernel of bench/ptx_corpus.py's corpus byte for byte what
 * default<O3> makes: the examples, every benchmarked kernel and autotune
 * config, a kernel per math function in fp32 and fp64 with libdevice and
 * with libclc (544 kernels).  bench/pipeline_search.py chose it on
 * 2026-11-28: one pass left out at a time on the examples and benchmarked
 * kernels, then, with the math kernels added, the fewest of the passes left
 * out that had to come back (7: always-inline, globalopt, sccp,
 * correlated-propagation, function-attrs and two simplifycfg).  36 passes
 * remain; the O-pipeline of the fp16 matmul costs a third fewer instructions
 * (callgrind: 359 -> 238 million; the attention forward 420 -> 295, its
 * backward 626 -> 426).
 *
 * Two things of the printed text are not what default<O3> runs and were
 * corrected before the search: the printed loop pipeline holds a second
 * simple-loop-unswitch that default<O3> does not run, and
 * `loop-unroll-full` written as text unrolls with O2's threshold, so the
 * full unrolling is the function pass loop-unroll<O3> restricted to full
 * unrolls.  NVVMReflect, which a text pipeline runs without the target's
 * SM version, has nothing left to answer: cg_libdevice.c answers
 * libdevice's queries when it links it.
 *
 * Every other arch and level keeps LLVM's default<ON>: the search did not
 * cover them (at sm_80 this pipeline changes the PTX of 5 corpus kernels).
 * The ctest pipeline.same_ptx checks the promise on the whole corpus; an
 * LLVM other than 19 must not take the text on trust: search again
 * (docs/development.md, "Compile speed").  TLC_LLVM_PIPELINE replaces the
 * choice (cg_module.c). */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

static const char kSm90aO3[] =
    "function(nvvm-reflect,nvvm-intr-range),"
    "function<eager-inv>(simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;no-switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,"
    "early-cse<>),ipsccp,"
    "function<eager-inv>(instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>,"
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>),"
    "always-inline,cgscc(devirt<4>(inline,function<eager-inv;no-rerun>(early-cse<memssa>,"
    "speculative-execution<only-if-divergent-target>,"
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,"
    "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>,reassociate,"
    "loop-mssa(licm<no-allowspeculation>,loop-rotate<header-duplication;no-prepare-for-lto>,"
    "licm<allowspeculation>),instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>,"
    "loop(indvars,loop-deletion),"
    "loop-unroll<O3;no-partial;no-runtime;no-upperbound;no-profile-peeling>,vector-combine,gvn<>,"
    "sccp,correlated-propagation),function-attrs,"
    "function(require<should-not-run-function-passes>))),globalopt,"
    "function<eager-inv>(simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,"
    "slp-vectorizer,loop-unroll<O3>,infer-alignment,"
    "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>,div-rem-pairs,"
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;speculate-unpredictables>),"
    "globaldce";

const char *cg_pipeline(const char *arch, int opt_level, char *buf, size_t len) {
  if (opt_level == 3 && arch && !strcmp(arch, "sm_90a")) return kSm90aO3;
  snprintf(buf, len, "default<O%d>", opt_level);
  return buf;
}
