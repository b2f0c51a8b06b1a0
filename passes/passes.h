/* passes.h — analyses and rewrites on the tile IR, and the pass pipeline.
 *
 * Sections by file:
 *   pass_manager.c     the pass table {name, fn, summary} and the default list
 *   canonicalize.c constant folding, CSE, DCE, trivial-op removal
 *   axis_info.c    AxisInfo analysis: contiguity, divisibility, constancy
 *   coalesce.c     chooses a coalesced blocked layout and vector width for
 *                  every load/store/atomic from AxisInfo
 *   pipeline.c     software pipelining of loops whose loads feed dots
 *   layouts.c      assigns a layout to every tensor value by propagation from
 *                  the memory-op anchors, inserting convert_layout where two
 *                  requirements meet (and rematerializing cheap producers)
 *
 * Input contract: IR straight from specialization — tensors have no layout.
 * Output contract (what codegen relies on): every tensor-typed value has a
 * distributed layout; elementwise ops, loads and stores see one layout on
 * all operands and results; expand_dims operands are slices of their
 * results' layouts; reduce results are slices of their operands'; LOAD /
 * STORE / ATOMIC ops carry attr.vec (elements per vector access, dividing
 * the layout's size-per-thread along its fastest dim and provably aligned
 * and uniformly masked); convert_layout ops appear exactly where a value
 * changes layout. */
#ifndef TLC_PASSES_H
#define TLC_PASSES_H

#include "ir/ir.h"

/* ---- pass_manager.c ----------------------------------------------------------- */

typedef struct PassOptions {
  bool verify_each;        /* run ir_verify after every pass */
  const char *dump_after;  /* pass name whose output goes to `dump` */
  StrBuf *dump;            /* where --dump-after output goes (may be NULL) */
  DiagEngine *diag;        /* where every failure is reported */
  const char *skip;        /* optional passes the pipeline leaves out, comma-separated (or NULL) */
} PassOptions;

typedef int (*PassFn)(IrModule *m, StrBuf *errors); /* 0 = ok; else what went wrong is in errors */

typedef struct PassInfo {
  const char *name;        /* as given to --dump-after */
  PassFn fn;
  const char *summary;
  bool optional;           /* an optimization the pipeline may leave out (PassOptions.skip) */
} PassInfo;

extern const PassInfo pass_table[];
extern const int pass_count;

/* Run the default pipeline.  Returns 0, or -1 after reporting to opt->diag. */
int pass_run_pipeline(IrModule *m, const PassOptions *opt);
/* Run the passes named in `names` ("coalesce,canonicalize"), in order, as
 * `tlc opt --pass` does: the IR as given is verified first (with layouts
 * when every tensor has one; a problem is the user's error), then after
 * each pass as with verify_each.  An unknown name is an error. */
int pass_run_list(IrModule *m, const char *names, const PassOptions *opt);
/* From inside a pass (PassFn has no DiagEngine): report through the run in
 * progress on m — a located user error (a limit of the target the kernel
 * exceeds) or an internal error with op as a note.  Either fails the run
 * once the pass returns; outside a run of the pass manager they are dropped. */
void pass_error(const IrModule *m, const Op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pass_internal_error(const IrModule *m, const Op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True when `name` is a pass of the table (for option checking). */
bool pass_exists(const char *name);
/* The first name of a comma-separated list that is not an optional pass,
 * as a pointer into the list and its length in *len (NULL: all are). */
const char *pass_not_skippable(const char *list, size_t *len);
/* The optional passes' names, in pipeline order, ", "-separated, into buf. */
void pass_optional_names(char *buf, size_t size);

/* ---- the passes ------------------------------------------------------------ */

int pass_canonicalize(IrModule *m, StrBuf *errors);
int pass_consumer_warpgroups(IrModule *m, StrBuf *errors);
int pass_program_order(IrModule *m, StrBuf *errors);
int pass_hoist_invariants(IrModule *m, StrBuf *errors);
int pass_coalesce(IrModule *m, StrBuf *errors);
int pass_assign_layouts(IrModule *m, StrBuf *errors);
int pass_pipeline(IrModule *m, StrBuf *errors);
int pass_dot_ahead(IrModule *m, StrBuf *errors);
int pass_dot_early(IrModule *m, StrBuf *errors);
int pass_warp_specialize(IrModule *m, StrBuf *errors);
int pass_tma_store(IrModule *m, StrBuf *errors);
int pass_sink_stagings(IrModule *m, StrBuf *errors);
int pass_sink_local_loads(IrModule *m, StrBuf *errors);
int pass_allocate_shared(IrModule *m, StrBuf *errors);

/* ---- axis_info.c ------------------------------------------------------------ */

/* Per value, per dim (scalars use dim 0):
 *   contiguity[d]   longest run of consecutive integers (or addresses in
 *                   elements) along d, aligned to the run length
 *   divisibility[d] largest power of two dividing the first element of each
 *                   run (for pointers: in bytes)
 *   constancy[d]    length of runs of equal values along d
 * plus the value itself when it is a known constant (scalar or splat). */
typedef struct AxisInfo {
  int rank;
  int64_t contiguity[IR_MAX_RANK];
  int64_t divisibility[IR_MAX_RANK];
  int64_t constancy[IR_MAX_RANK];
  bool has_const;
  int64_t const_val;
} AxisInfo;

/* Analyze f; returns a heap array indexed by Value.id (f->nvalues long). */
AxisInfo *axis_analyze(IrModule *m);

#endif
