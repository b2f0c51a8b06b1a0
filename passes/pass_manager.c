/* pass_manager.c — the pass table and the default pipeline.
 *
 * Owns the list of passes ({name, fn, summary}: the one place a pass is
 * registered), the order they run in, the lists `tlc opt --pass` runs, and
 * the debugging hooks around each run: --verify-each (ir_verify after every
 * pass; a failure is an internal error naming the pass) and --dump-after
 * NAME (the module after every run of pass NAME, appended to opt->dump).
 * Every failure is reported through opt->diag: a pass that returns nonzero
 * becomes an internal error with what it wrote as the note, and a pass may
 * report located errors itself (pass_error, pass_internal_error).  Owns no
 * transformation itself.
 *
 * The IR is verified once more at the end, with layouts, whatever the
 * options: codegen relies on the output contract of passes.h and a broken
 * contract is better reported here, as an internal error, than as a crash
 * in lowering. */
#include "passes/pass_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const PassInfo pass_table[] = {
    {"canonicalize", pass_canonicalize,
     "fold constants and identities, CSE, DCE, drop unchanged loop-carried values", false},
    {"consumer-warpgroups", pass_consumer_warpgroups,
     "sm_90: an attention-like loop whose carried tiles overflow one warpgroup runs on two "
     "consumer warpgroups (num_warps 4 -> 8) beside the producer warp-specialize adds", true},
    {"program-order", pass_program_order,
     "a kernel whose loops run longer as program_id(0) grows (causal attention) gets its blocks "
     "heaviest first, a few rows of the grid at a time (codegen maps the block ids)", true},
    {"hoist-invariants", pass_hoist_invariants,
     "a dot operand computed in a loop from values the loop does not change (tl.trans(k), "
     "v.to(tl.float32)) is computed, and staged, once before the loop", true},
    {"coalesce", pass_coalesce,
     "choose the vector width (attr.vec) and anchor layout of every load/store from AxisInfo", false},
    {"assign-layouts", pass_assign_layouts,
     "give every tensor a layout by propagation from the anchors (dots first: mma on tensor "
     "cores); insert convert_layout and the shared-memory staging of mma operands", false},
    {"pipeline", pass_pipeline,
     "software pipelining: loads feeding dots become a num_stages ring of shared buffers filled "
     "by cp.async; wgmma dots in those loops go asynchronous", true},
    {"dot-ahead", pass_dot_ahead,
     "sm_90: in a TMA-pipelined loop, the wgmma dot of a ring slot and invariants (attention's "
     "q @ k) is issued one iteration early, overlapping the next S with this softmax (not in kernels "
     "split onto two consumer warpgroups)", true},
    {"dot-early", pass_dot_early,
     "sm_90: a synchronous wgmma dot whose operands are ready at an earlier one is issued beside it, "
     "both asynchronous (attention backward's dP = v @ do^T under the softmax of S = k @ q^T)", true},
    {"warp-specialize", pass_warp_specialize,
     "sm_90: a TMA-pipelined loop's copies move to a producer warp (tl.range(warp_specialize=True) or "
     "the compile option); the warps wait for the slots and hand each back when done", true},
    {"tma-store", pass_tma_store,
     "sm_90: tile stores outside loops, masked by the array's extents, go out through shared memory "
     "and one bulk tensor copy", true},
    {"sink-stagings", pass_sink_stagings,
     "a dot operand's staging into shared memory moves below the global loads after it, so they "
     "issue together (loops the pipeliner left alone: num_stages=1)", true},
    {"sink-local-loads", pass_sink_local_loads,
     "in a loop body, a shared-memory read into registers (a dot operand) moves down to just before "
     "its first use, past register arithmetic (attention's V operand no longer lives through the softmax)", true},
    {"allocate-shared", pass_allocate_shared,
     "give every local_alloc buffer its offset in shared memory", false},
};
const int pass_count = (int)(sizeof pass_table / sizeof pass_table[0]);

bool pass_exists(const char *name) {
  for (int i = 0; i < pass_count; i++)
    if (name && !strcmp(pass_table[i].name, name)) return true;
  return false;
}

typedef struct Runner {
  IrModule *m;
  const PassOptions *opt;
  bool layouts;   /* has assign-layouts run (the verifier then checks layouts) */
  bool failed;
  bool reported;  /* pass_error / pass_internal_error during the pass in progress */
} Runner;

/* The run in progress on this thread, for pass_error (a pass's signature
 * carries no DiagEngine). */
static _Thread_local Runner *current_run;

static const PassInfo *find_pass(const char *name, size_t len) {
  for (int i = 0; i < pass_count; i++)
    if (strlen(pass_table[i].name) == len && !strncmp(pass_table[i].name, name, len)) return &pass_table[i];
  return NULL;
}

const char *pass_not_skippable(const char *list, size_t *len) {
  for (const char *p = list; p && *p;) {
    size_t n = strcspn(p, ",");
    const PassInfo *info = find_pass(p, n);
    if (!info || !info->optional) return *len = n, p;
    p += n + (p[n] == ',');
  }
  return NULL;
}

void pass_optional_names(char *buf, size_t size) {
  size_t used = 0;
  if (size) buf[0] = 0;
  for (int i = 0; i < pass_count; i++) {
    if (!pass_table[i].optional) continue;
    int n = snprintf(buf + used, size > used ? size - used : 0, "%s%s", used ? ", " : "", pass_table[i].name);
    if (n > 0) used += (size_t)n;
  }
}

/* Is pass `name` in the comma-separated list? */
static bool listed(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *p = list; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len && !strncmp(p, name, n)) return true;
    p += n + (p[n] == ',');
  }
  return false;
}


static void run_pass(Runner *r, const PassInfo *p) {
  if (r->failed) return;
  DiagEngine *d = r->opt->diag;
  StrBuf errors; /* what the pass wrote: the detail of its failure */
  sb_init(&errors);
  Runner *outer = current_run;
  current_run = r;
  r->reported = false;
  int rc = p->fn(r->m, &errors);
  current_run = outer;
  if (rc != 0 || r->reported) {
    if (rc != 0 && !r->reported) diag_internal(d, (Loc){0}, errors.data, "pass '%s' failed", p->name);
    r->failed = true;
  }
  sb_free(&errors);
  if (r->failed) return;
  if (p->fn == pass_assign_layouts) r->layouts = true;
  char when[96];
  snprintf(when, sizeof when, "after pass '%s'", p->name);
  if (r->opt->verify_each && ir_verify_report(r->m, r->layouts, d, true, when)) r->failed = true;
  if (r->opt->dump && r->opt->dump_after && !strcmp(r->opt->dump_after, p->name)) {
    sb_printf(r->opt->dump, "// -----// IR after %s //----- //\n", p->name);
    ir_print_module(r->opt->dump, r->m);
  }
}

static void run(Runner *r, const char *name) {
  const PassInfo *p = find_pass(name, strlen(name));
  if (p && p->optional && listed(r->opt->skip, name)) {
    return; /* left out (tlc_compile_options.skip_passes) */
  } else if (p) {
    run_pass(r, p);
  } else if (!r->failed) {
    diag_internal(r->opt->diag, (Loc){0}, NULL, "the pipeline names an unknown pass '%s'", name);
    r->failed = true;
  }
}

int pass_run_pipeline(IrModule *m, const PassOptions *opt) {
  Runner r = {m, opt, false, false, false};
  if (!m->func) return 0;
  run(&r, "canonicalize");   /* fold what specialization left, CSE, DCE */
  run(&r, "consumer-warpgroups"); /* sm_90 attention: two consumer warpgroups, before layouts */
  run(&r, "program-order");  /* heaviest programs first when the loops' lengths grow with the id */
  run(&r, "hoist-invariants"); /* invariant dot operands out of their loops */
  run(&r, "coalesce");       /* vector width and anchor layout of each memory op */
  run(&r, "assign-layouts"); /* a layout for every tensor; convert_layout where they meet */
  run(&r, "canonicalize");   /* CSE again now that layouts are in types */
  run(&r, "pipeline");       /* multi-stage rings of async copies; async wgmma */
  run(&r, "dot-ahead");      /* the next iteration's q @ k in flight during this softmax */
  run(&r, "dot-early");      /* independent dots of one iteration issued together */
  run(&r, "tma-store");      /* epilogue tile stores through shared memory and TMA */
  run(&r, "warp-specialize"); /* the copies to a producer warp (when asked) */
  run(&r, "canonicalize");   /* the loads' dead address arithmetic */
  run(&r, "sink-stagings");  /* loads left in registers issue together, then their stagings */
  run(&r, "sink-local-loads"); /* operand reads from shared memory next to their use */
  run(&r, "allocate-shared"); /* offsets of the shared-memory buffers */
  if (!r.failed && !opt->verify_each &&
      ir_verify_report(m, true, opt->diag, true, "at the end of the passes (their output contract)"))
    r.failed = true;
  return r.failed ? -1 : 0;
}

/* Does every tensor of the function have a layout (IR read back after
 * assign-layouts)?  Then the verifier checks layouts from the start. */
static void check_layouts(Op *op, void *ud) {
  bool *all = ud;
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i]->type->rank && !op->results[i]->type->layout) *all = false;
  for (int r = 0; r < op->nregions; r++)
    for (int i = 0; i < op->regions[r]->nargs; i++)
      if (op->regions[r]->args[i]->type->rank && !op->regions[r]->args[i]->type->layout) *all = false;
}

int pass_run_list(IrModule *m, const char *names, const PassOptions *opt) {
  Runner r = {m, opt, true, false, false};
  if (!m->func) return 0;
  ir_walk(m->func->body, check_layouts, &r.layouts);
  if (ir_verify_report(m, r.layouts, opt->diag, false, "as given")) return -1;
  for (const char *p = names; p && *p && !r.failed;) {
    size_t len = strcspn(p, ",");
    const PassInfo *info = find_pass(p, len);
    if (!info) {
      diag_plain(opt->diag, "no pass named '%.*s' (tlc opt --help lists them)", (int)len, p);
      return -1;
    }
    run_pass(&r, info);
    p += len;
    if (*p == ',') p++;
  }
  return r.failed ? -1 : 0;
}

static void report(const IrModule *m, bool internal, const Op *op, const char *fmt, va_list ap) {
  Runner *r = current_run;
  if (!r || r->m != m) return; /* not inside a run of the pass manager: nowhere to report */
  r->reported = true;
  if (internal) ir_vinternal_error(r->opt->diag, op, fmt, ap);
  else diag_verror(r->opt->diag, "error", op ? op->loc : m->func->loc, fmt, ap);
}

void pass_error(const IrModule *m, const Op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(m, false, op, fmt, ap);
  va_end(ap);
}

void pass_internal_error(const IrModule *m, const Op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(m, true, op, fmt, ap);
  va_end(ap);
}
