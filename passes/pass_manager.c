/* pass_manager.c — the pass table and the default pipeline.
 *
 * Owns the list of passes ({name, fn, summary}: the one place a pass is
 * registered), the order they run in, and the debugging hooks around each
 * run: --verify-each (ir_verify after every pass; a failure is an internal
 * error naming the pass) and --dump-after NAME (the module after every run
 * of pass NAME, appended to opt->dump).  Owns no transformation itself.
 *
 * The IR is verified once more at the end, with layouts, whatever the
 * options: codegen relies on the output contract of passes.h and a broken
 * contract is better reported here, as an internal error, than as a crash
 * in lowering. */
#include "passes/pass_internal.h"

#include <string.h>

const PassInfo pass_table[] = {
    {"canonicalize", pass_canonicalize,
     "fold constants and identities, CSE, DCE, drop unchanged loop-carried values"},
    {"coalesce", pass_coalesce,
     "choose the vector width (attr.vec) and anchor layout of every load/store from AxisInfo"},
    {"assign-layouts", pass_assign_layouts,
     "give every tensor a layout by propagation from the anchors (dots first: mma on tensor "
     "cores); insert convert_layout and the shared-memory staging of mma operands"},
    {"pipeline", pass_pipeline,
     "software pipelining: loads feeding dots become a num_stages ring of shared buffers filled "
     "by cp.async; wgmma dots in those loops go asynchronous"},
    {"allocate-shared", pass_allocate_shared,
     "give every local_alloc buffer its offset in shared memory"},
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
} Runner;

static void run(Runner *r, const char *name) {
  if (r->failed) return;
  const PassInfo *p = NULL;
  for (int i = 0; i < pass_count && !p; i++)
    if (!strcmp(pass_table[i].name, name)) p = &pass_table[i];
  StrBuf *errors = r->opt->errors;
  if (!p) {
    if (errors) sb_printf(errors, "internal error: the pipeline names an unknown pass '%s'\n", name);
    r->failed = true;
    return;
  }
  if (p->fn(r->m, errors) != 0) {
    if (errors) sb_printf(errors, "internal error: pass '%s' failed\n", name);
    r->failed = true;
    return;
  }
  if (p->fn == pass_assign_layouts) r->layouts = true;
  if (r->opt->verify_each) {
    StrBuf v;
    sb_init(&v);
    if (ir_verify(r->m, r->layouts, &v)) {
      if (errors) {
        sb_printf(errors, "internal error: the IR is invalid after pass '%s':\n", name);
        sb_putn(errors, v.data, v.len);
      }
      r->failed = true;
    }
    sb_free(&v);
  }
  if (r->opt->dump && r->opt->dump_after && !strcmp(r->opt->dump_after, name)) {
    sb_printf(r->opt->dump, "// -----// IR after %s //----- //\n", name);
    ir_print_module(r->opt->dump, r->m);
  }
}

int pass_run_pipeline(IrModule *m, const PassOptions *opt) {
  Runner r = {m, opt, false, false};
  if (!m->func) return 0;
  run(&r, "canonicalize");   /* fold what specialization left, CSE, DCE */
  run(&r, "coalesce");       /* vector width and anchor layout of each memory op */
  run(&r, "assign-layouts"); /* a layout for every tensor; convert_layout where they meet */
  run(&r, "canonicalize");   /* CSE again now that layouts are in types */
  run(&r, "pipeline");       /* multi-stage rings of async copies; async wgmma */
  run(&r, "canonicalize");   /* the loads' dead address arithmetic */
  run(&r, "allocate-shared"); /* offsets of the shared-memory buffers */
  if (!r.failed && !opt->verify_each) {
    StrBuf v;
    sb_init(&v);
    if (ir_verify(m, true, &v)) {
      if (opt->errors) {
        sb_puts(opt->errors, "internal error: the IR breaks the passes' output contract:\n");
        sb_putn(opt->errors, v.data, v.len);
      }
      r.failed = true;
    }
    sb_free(&v);
  }
  return r.failed ? -1 : 0;
}
