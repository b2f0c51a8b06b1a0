/* cg_debug.c — device_print through the PTX system call vprintf, and
 * device_assert through CUDA's __assertfail.
 *
 * One line per element and operand, printed by the element's canonical
 * owner only (replicas stay quiet; a scalar prints from thread 0):
 *
 *   pid (0, 0, 0) idx (3, 17) prefix: 1.250000
 *
 * The arguments travel in a local struct laid out with natural alignment,
 * which is vprintf's convention; floats are promoted to double, narrow ints
 * to 32 bits; with hex, every value prints as its bit pattern (0x%08x).  A
 * print of no value prints its prefix once per program.
 *
 * An ASSERT exists only in debug mode (the specializer emits none without
 * it, as Triton compiles device_assert to nothing): each thread tests the
 * elements it holds and, when one is false, calls
 * __assertfail(message, file, line, kernel, 1), which prints
 * "file:line: kernel: block [..], thread [..] Assertion `message` failed."
 * and stops the kernel. */
#include "codegen/cg_internal.h"

#include <string.h>

static LLVMValueRef vprintf_fn(CgCtx *cg, LLVMTypeRef *fty) {
  LLVMTypeRef gp = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMTypeRef params[2] = {gp, gp};
  *fty = LLVMFunctionType(cg->t_i32, params, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, "vprintf");
  if (!fn) fn = LLVMAddFunction(cg->mod, "vprintf", *fty);
  return fn;
}

/* The value's bits as an unsigned integer for a hex print. */
static LLVMValueRef promote_hex(CgCtx *cg, DType d, LLVMValueRef v, const char **spec) {
  LLVMBuilderRef B = cg->b;
  if (d == DT_PTR) v = LLVMBuildPtrToInt(B, v, cg->t_i64, "");
  int bits = d == DT_PTR ? 64 : dt_bits(d);
  LLVMTypeRef it = LLVMIntTypeInContext(cg->ctx, (unsigned)bits);
  if (dt_is_float(d)) v = LLVMBuildBitCast(B, v, it, "");
  if (bits == 64) {
    *spec = "0x%016llx";
    return v;
  }
  *spec = bits == 32 ? "0x%08x" : bits == 16 ? "0x%04x" : bits == 8 ? "0x%02x" : "0x%x";
  return bits == 32 ? v : LLVMBuildZExt(B, v, cg->t_i32, "");
}

/* The value as vprintf wants it, and its conversion. */
static LLVMValueRef promote(CgCtx *cg, DType d, LLVMValueRef v, const char **spec) {
  LLVMBuilderRef B = cg->b;
  if (d == DT_PTR) {
    *spec = "%p";
    return LLVMBuildAddrSpaceCast(B, v, LLVMPointerTypeInContext(cg->ctx, 0), "");
  }
  if (d == DT_F8E4M3 || d == DT_F8E5M2) {
    *spec = "0x%02x";
    return LLVMBuildZExt(B, v, cg->t_i32, "");
  }
  if (dt_is_float(d)) {
    *spec = "%f";
    return d == DT_F64 ? v : LLVMBuildFPExt(B, v, cg->t_f64, "");
  }
  if (dt_bits(d) == 64) {
    *spec = dt_is_signed(d) ? "%lld" : "%llu";
    return v;
  }
  *spec = dt_is_signed(d) ? "%d" : "%u";
  if (dt_bits(d) == 32) return v;
  return dt_is_signed(d) ? LLVMBuildSExt(B, v, cg->t_i32, "") : LLVMBuildZExt(B, v, cg->t_i32, "");
}

static void print_one(CgCtx *cg, const Op *op, int operand, LLVMValueRef *pid, const CgFrag *f,
                      int i, DType d, LLVMValueRef v) {
  LLVMBuilderRef B = cg->b;
  StrBuf fmt;
  sb_init(&fmt);
  LLVMValueRef vals[IR_MAX_RANK + 4];
  int n = 0;
  sb_puts(&fmt, "pid (%d, %d, %d)");
  for (int k = 0; k < 3; k++) vals[n++] = pid[k];
  if (f) {
    sb_puts(&fmt, " idx (");
    for (int t = 0; t < f->rank; t++) {
      sb_puts(&fmt, t ? ", %d" : "%d");
      vals[n++] = cg_coord(cg, f, i, t);
    }
    sb_putc(&fmt, ')');
  }
  sb_putc(&fmt, ' ');
  for (const char *p = op->attr.str ? op->attr.str : ""; *p; p++) {
    if (*p == '%') sb_putc(&fmt, '%');
    sb_putc(&fmt, *p);
  }
  if (op->noperands > 1) sb_printf(&fmt, " (operand %d)", operand);
  if (v) {
    if (op->attr.str && *op->attr.str) sb_putc(&fmt, ' ');
    const char *spec;
    vals[n++] = op->attr.hex ? promote_hex(cg, d, v, &spec) : promote(cg, d, v, &spec);
    sb_puts(&fmt, spec);
  }
  sb_putc(&fmt, '\n');

  LLVMValueRef str = LLVMBuildGlobalString(B, fmt.data, "fmt");
  sb_free(&fmt);
  LLVMTypeRef et[IR_MAX_RANK + 4];
  for (int k = 0; k < n; k++) et[k] = LLVMTypeOf(vals[k]);
  LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, et, (unsigned)n, 0);
  /* the buffer lives in the entry block so it is allocated once */
  LLVMValueRef buf = LLVMBuildAlloca(cg->pro, st, "printf.args");
  for (int k = 0; k < n; k++)
    LLVMBuildStore(B, vals[k], LLVMBuildStructGEP2(B, st, buf, (unsigned)k, ""));
  LLVMTypeRef fty;
  LLVMValueRef fn = vprintf_fn(cg, &fty);
  LLVMTypeRef gp = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMValueRef args[2] = {LLVMBuildAddrSpaceCast(B, str, gp, ""), buf};
  LLVMBuildCall2(B, fty, fn, args, 2, "");
}

void cg_lower_print(CgCtx *cg, Op *op) {
  LLVMValueRef pid[3] = {cg_program_id(cg, cg->b, 0), cg_program_id(cg, cg->b, 1),
                         cg_program_id(cg, cg->b, 2)};
  if (!op->noperands) {
    /* the prefix alone, once per program */
    LLVMBasicBlockRef cont = cg_begin_guard(cg, cg_owner(cg, ty_scalar(cg->m->ctx, DT_I32)));
    print_one(cg, op, 0, pid, NULL, 0, DT_I32, NULL);
    cg_end_guard(cg, cont);
    return;
  }
  for (int k = 0; k < op->noperands; k++) {
    const Value *x = op->operands[k];
    CgVal *v = cg_get(cg, op, x);
    CgFrag f;
    bool tensor = x->type->rank > 0;
    if (tensor && !cg_frag(cg, op, x->type, &f)) return;
    LLVMValueRef own = cg_owner(cg, x->type);
    LLVMBasicBlockRef cont = cg_begin_guard(cg, own);
    for (int i = 0; i < v->n; i++)
      print_one(cg, op, k, pid, tensor ? &f : NULL, i, x->type->dtype, v->v[i]);
    cg_end_guard(cg, cont);
  }
}

/* ---- device_assert ---------------------------------------------------------- */

static LLVMValueRef generic_string(CgCtx *cg, const char *text) {
  LLVMValueRef g = LLVMBuildGlobalString(cg->b, text, "assert.str");
  return LLVMBuildAddrSpaceCast(cg->b, g, LLVMPointerTypeInContext(cg->ctx, 0), "");
}

void cg_lower_assert(CgCtx *cg, Op *op) {
  CgVal *c = cg_get(cg, op, op->operands[0]);
  LLVMValueRef ok = NULL;
  for (int i = 0; i < c->n; i++) ok = ok ? cg_build_and(cg->b, ok, c->v[i], "") : c->v[i];
  if (!ok) return;
  LLVMBasicBlockRef cont = cg_begin_guard(cg, LLVMBuildNot(cg->b, ok, "assert.fails"));
  LLVMTypeRef gp = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMTypeRef params[5] = {gp, gp, cg->t_i32, gp, cg->t_i64};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx), params, 5, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, "__assertfail");
  if (!fn) fn = LLVMAddFunction(cg->mod, "__assertfail", fty);
  LLVMValueRef args[5] = {generic_string(cg, op->attr.str ? op->attr.str : "device_assert"),
                          generic_string(cg, op->loc.file ? op->loc.file : "<unknown>"),
                          LLVMConstInt(cg->t_i32, (unsigned long long)(op->loc.line > 0 ? op->loc.line : 0), 0),
                          generic_string(cg, cg->m->func ? cg->m->func->name : "kernel"),
                          LLVMConstInt(cg->t_i64, 1, 0)};
  LLVMBuildCall2(cg->b, fty, fn, args, 5, "");
  cg_end_guard(cg, cont);
}
