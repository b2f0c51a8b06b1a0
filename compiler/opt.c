/* opt.c — tlc_opt_ir(): passes run on tile IR given as text, the engine of
 * `tlc opt` and of the passes' lit tests (tests/lit/passes), as
 * triton-opt is Triton's.
 *
 *   read (ir/reader.c) -> verify -> the named passes, verified after each
 *   -> print (ir/printer.c)
 *
 * Owns only the order of those calls and the result; the syntax is the
 * reader's and the printer's, the passes and their checks the pass
 * manager's.  Errors in the text are the user's (located diagnostics), a
 * pass that breaks the IR is an internal error. */
#include "compiler/compiler_internal.h"

#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"

tlc_compile_status tlc_opt_ir(const char *path, const char *text, const char *passes,
                              const tlc_compile_options *opt_in, tlc_compile_result *res) {
  double t0 = clock_ms();
  tlc_compile_options o = compiler_resolve_options(opt_in);
  const tlc_compile_options *opt = &o;
  memset(res, 0, sizeof *res);
  if (!path) path = "<string>";
  if (!text) text = "";
  DiagEngine diag;
  diag_init(&diag);
  diag.color = opt->color;
  diag_add_source(&diag, path, text);
  Arena arena;
  arena_init(&arena);
  StrBuf dump;
  sb_init(&dump);

  tlc_compile_status st = TLC_COMPILE_OK;
  /* as the compiler does: a second try, unsplit, when warp-specialize left a
   * consumer-warpgroups split without its producer */
  for (bool keep_warps = false;; keep_warps = true) {
    double tr = clock_ms();
    IrModule *m = ir_read_module(path, text, &arena, &diag);
    res->stage_ms[TLC_STAGE_FRONTEND] += clock_ms() - tr;
    if (!m) break;
    /* The text does not say the target: the options do (--arch, --num-stages). */
    m->arch = opt->arch;
    m->capability = compiler_capability(opt->arch);
    m->num_stages = opt->num_stages;
    m->keep_warps = keep_warps;
    PassOptions po = {true, opt->dump_after, &dump, &diag};
    double t = clock_ms();
    int rc = pass_run_list(m, passes, &po);
    res->stage_ms[TLC_STAGE_PASSES] += clock_ms() - t;
    if (rc == 0 && !keep_warps && compiler_split_orphaned(m) && strstr(passes, "warp-specialize")) {
      dump.len = 0;
      if (dump.data) dump.data[0] = 0;
      continue;
    }
    if (rc == 0) {
      StrBuf out;
      sb_init(&out);
      ir_print_module(&out, m);
      res->text = sb_take(&out);
      res->num_warps = m->num_warps + m->producer_warps;
    }
    break;
  }
  if (diag.nerrors) st = diag.ninternal ? TLC_COMPILE_INTERNAL : TLC_COMPILE_ERROR;
  else if (!res->text) st = TLC_COMPILE_INTERNAL;
  if (dump.len) res->dump = sb_take(&dump);
  sb_free(&dump);
  arena_free(&arena);
  res->diagnostics = sb_take(&diag.out);
  diag_free(&diag);
  res->compile_ms = clock_ms() - t0;
  return st;
}
