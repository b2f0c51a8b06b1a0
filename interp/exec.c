/* exec.c — running a program: the launch over the grid, the op dispatcher,
 * structured control flow (for, if, while) and located errors.
 *
 * The programs of the grid run one after another, x fastest, on the
 * calling thread; each starts with fresh slots for its values (buffers are
 * kept from program to program).  Loop-carried values are copied at each
 * yield (a yield may pass the loop's own arguments in another order).
 * An op this file does not know (the shared-memory, TMA and async ops that
 * only passes introduce) stops the run with "the interpreter does not
 * support <op> yet". */
#include "interp/interp_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors --------------------------------------------------------------------- */

static bool vfail(Interp *I, const Op *op, tlc_interp_status st, const char *tail, const char *fmt, va_list ap) {
  if (I->error) return false; /* the first error is the one reported */
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  DiagEngine d;
  diag_init(&d);
  diag_add_source(&d, I->p->path, I->p->source);
  Loc loc = op ? op->loc : I->f->loc;
  diag_error(&d, loc, "%s in program (%u, %u, %u)%s", msg, I->pid[0], I->pid[1], I->pid[2], tail);
  I->error = sb_take(&d.out);
  diag_free(&d);
  I->status = st;
  return false;
}

bool ip_fail(Interp *I, const Op *op, tlc_interp_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(I, op, st, "", fmt, ap);
  va_end(ap);
  return false;
}

bool ip_fail_tail(Interp *I, const Op *op, tlc_interp_status st, const char *tail, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(I, op, st, tail, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- slots ---------------------------------------------------------------------- */

unsigned char *ip_def(Interp *I, const Value *v, int64_t n) {
  IVal *s = &I->vals[v->id];
  size_t need = (size_t)(n > 0 ? n : 1) * (size_t)ip_size(ip_dt(v));
  if (need > s->cap) {
    free(s->data);
    s->data = xmalloc(need);
    s->cap = need;
  }
  s->n = n;
  return s->data;
}

static void copy_val(Interp *I, const Value *dst, const Value *src) {
  if (dst == src) return;
  IVal *s = ip_val(I, src);
  int64_t n = s->n;
  unsigned char *d = ip_def(I, dst, n);
  memcpy(d, ip_val(I, src)->data, (size_t)n * (size_t)ip_size(ip_dt(src)));
}

/* dst[i] = src[i] for all i at once: src may name dst's own values. */
static void copy_vals(Interp *I, Value **dst, Value **src, int n) {
  IVal *tmp = xcalloc((size_t)n + 1, sizeof *tmp);
  for (int i = 0; i < n; i++) {
    IVal *s = ip_val(I, src[i]);
    size_t bytes = (size_t)s->n * (size_t)ip_size(ip_dt(src[i]));
    tmp[i].data = xmalloc(bytes ? bytes : 1);
    memcpy(tmp[i].data, s->data, bytes);
    tmp[i].n = s->n;
    tmp[i].cap = bytes ? bytes : 1;
  }
  for (int i = 0; i < n; i++) {
    IVal *d = ip_val(I, dst[i]);
    free(d->data);
    *d = tmp[i];
  }
  free(tmp);
}

static int64_t scalar_i(Interp *I, const Value *v) {
  return ip_get_i(ip_val(I, v)->data, ip_dt(v), 0);
}

/* ---- constants and program ids -------------------------------------------------------- */

static bool exec_source(Interp *I, Op *op) {
  Value *r = op->results[0];
  DType d = ip_dt(r);
  int64_t n = ty_numel(r->type);
  unsigned char *out = ip_def(I, r, n);
  switch (op->kind) {
  case OP_CONSTANT:
    if (dt_is_float(d)) {
      ip_set_f(out, d, 0, op->attr.fval);
    } else {
      ip_set_i(out, d, 0, op->attr.ival);
    }
    for (int64_t i = 1; i < n; i++) memcpy(out + i * ip_size(d), out, (size_t)ip_size(d));
    return true;
  case OP_ARANGE:
    for (int64_t i = 0; i < n; i++) ip_set_i(out, d, i, op->attr.start + i);
    return true;
  case OP_PROGRAM_ID:
  case OP_NUM_PROGRAMS: {
    int a = op->attr.axis < 0 || op->attr.axis > 2 ? 0 : op->attr.axis;
    ip_set_i(out, d, 0, op->kind == OP_PROGRAM_ID ? I->pid[a] : I->grid[a]);
    return true;
  }
  default: return false;
  }
}

/* ---- control flow ------------------------------------------------------------------ */

static bool exec_op(Interp *I, Op *op);

bool ip_exec_block(Interp *I, IrBlock *b, Op **term) {
  *term = NULL;
  for (Op *op = b->first; op; op = op->next) {
    if (op->kind == OP_YIELD || op->kind == OP_CONDITION || op->kind == OP_RETURN) {
      *term = op;
      if (op->kind == OP_RETURN) I->returned = true;
      return true;
    }
    if (!exec_op(I, op)) return false;
    if (I->returned) return true;
  }
  return true;
}

static bool exec_for(Interp *I, Op *op) {
  int64_t lb = scalar_i(I, op->operands[0]), ub = scalar_i(I, op->operands[1]);
  int64_t step = scalar_i(I, op->operands[2]);
  IrBlock *body = op->regions[0];
  int n = op->nresults;
  if (step <= 0 && lb < ub)
    return ip_fail(I, op, TLC_INTERP_FAULT, "a loop from %lld to %lld with step %lld never ends",
                   (long long)lb, (long long)ub, (long long)step);
  copy_vals(I, body->args + 1, op->operands + 3, n);
  for (int64_t iv = lb; iv < ub; iv += step) {
    ip_set_i(ip_def(I, body->args[0], 1), ip_dt(body->args[0]), 0, iv);
    Op *y;
    if (!ip_exec_block(I, body, &y)) return false;
    if (I->returned) return true;
    if (y && y->noperands == n) copy_vals(I, body->args + 1, y->operands, n);
  }
  for (int i = 0; i < n; i++) copy_val(I, op->results[i], body->args[1 + i]);
  return true;
}

static bool exec_if(Interp *I, Op *op) {
  bool c = scalar_i(I, op->operands[0]) != 0;
  IrBlock *b = op->nregions > (c ? 0 : 1) ? op->regions[c ? 0 : 1] : NULL;
  Op *y = NULL;
  if (b && !ip_exec_block(I, b, &y)) return false;
  if (I->returned) return true;
  if (op->nresults && (!y || y->noperands != op->nresults))
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "an if whose branch yields no values");
  if (op->nresults) copy_vals(I, op->results, y->operands, op->nresults);
  return true;
}

static bool exec_while(Interp *I, Op *op) {
  IrBlock *before = op->regions[0], *after = op->regions[1];
  copy_vals(I, before->args, op->operands, op->noperands);
  for (;;) {
    Op *c;
    if (!ip_exec_block(I, before, &c)) return false;
    if (I->returned) return true;
    if (!c || c->kind != OP_CONDITION)
      return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "a while loop without a condition");
    if (scalar_i(I, c->operands[0]) == 0) {
      copy_vals(I, op->results, c->operands + 1, op->nresults);
      return true;
    }
    copy_vals(I, after->args, c->operands + 1, c->noperands - 1);
    Op *y;
    if (!ip_exec_block(I, after, &y)) return false;
    if (I->returned) return true;
    copy_vals(I, before->args, y->operands, y->noperands);
  }
}

/* ---- debugging ops ----------------------------------------------------------------- */

static bool exec_assert(Interp *I, Op *op) {
  Value *c = op->operands[0];
  IVal *s = ip_val(I, c);
  for (int64_t i = 0; i < s->n; i++)
    if (ip_get_i(s->data, ip_dt(c), i) == 0)
      return ip_fail(I, op, TLC_INTERP_FAULT, "device assertion failed: %s (element %lld)",
                     op->attr.str ? op->attr.str : "", (long long)i);
  return true;
}

static bool exec_print(Interp *I, Op *op) {
  for (int k = 0; k < op->noperands; k++) {
    Value *v = op->operands[k];
    IVal *s = ip_val(I, v);
    DType d = ip_dt(v);
    for (int64_t i = 0; i < s->n; i++) {
      printf("pid (%u, %u, %u) idx (%lld) %s", I->pid[0], I->pid[1], I->pid[2], (long long)i,
             op->attr.str ? op->attr.str : "");
      if (op->attr.hex) printf("0x%llx\n", (unsigned long long)ip_get_i(s->data, d, i));
      else if (dt_is_float(d)) printf("%.9g\n", ip_get_f(s->data, d, i));
      else if (dt_is_unsigned(d) || d == DT_PTR) printf("%llu\n", (unsigned long long)ip_get_i(s->data, d, i));
      else printf("%lld\n", (long long)ip_get_i(s->data, d, i));
    }
  }
  fflush(stdout);
  return true;
}

/* ---- the dispatcher --------------------------------------------------------------------- */

static bool exec_op(Interp *I, Op *op) {
  switch (op->kind) {
  case OP_CONSTANT: case OP_ARANGE: case OP_PROGRAM_ID: case OP_NUM_PROGRAMS:
    return exec_source(I, op);
  case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_RESHAPE: case OP_TRANS:
  case OP_CONVERT_LAYOUT: case OP_FLIP: case OP_HISTOGRAM: case OP_SORT: case OP_GATHER:
    return ip_shape_op(I, op);
  case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2: case OP_SQRT: case OP_RSQRT:
  case OP_SIN: case OP_COS: case OP_FLOOR: case OP_CEIL: case OP_ERF: case OP_SIGMOID:
    return ip_unary_math(I, op);
  case OP_MATHFN: return ip_mathfn(I, op);
  case OP_ADDPTR: case OP_LOAD: case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
    return ip_memory_op(I, op);
  case OP_REDUCE: return ip_reduce(I, op);
  case OP_SCAN: return ip_scan(I, op);
  case OP_DOT: return ip_dot(I, op);
  case OP_ASSUME: copy_val(I, op->results[0], op->operands[0]); return true;
  case OP_ASSERT: return exec_assert(I, op);
  case OP_PRINT: return exec_print(I, op);
  case OP_BARRIER: return true; /* one program at a time: every barrier is met */
  case OP_FOR: return exec_for(I, op);
  case OP_IF: return exec_if(I, op);
  case OP_WHILE: return exec_while(I, op);
  default:
    if (ir_op_info[op->kind].traits & TR_ELEMENTWISE) return ip_elementwise(I, op);
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "the interpreter does not support %s yet",
                   ir_op_info[op->kind].name);
  }
}

/* ---- the launch ------------------------------------------------------------------------ */

static int cmp_alloc(const void *a, const void *b) {
  const tlc_interp_alloc *x = a, *y = b;
  return (x->base > y->base) - (x->base < y->base);
}

/* Kernel argument i from its 8-byte slot into its value's slot. */
static void set_arg(Interp *I, int i, const uint64_t *slot) {
  Value *v = I->f->args[i].value;
  DType d = ip_dt(v);
  unsigned char *out = ip_def(I, v, 1);
  memcpy(out, slot, (size_t)ip_size(d)); /* little-endian: the value's low bytes */
  if (d == DT_I1) out[0] &= 1;
}

/* Allocations without a name are named for the first pointer parameter
 * that points into them ("x_ptr"), else by address; returns the buffer
 * holding the names made up. */
static char (*name_allocs(Interp *I, const uint64_t *args))[48] {
  char (*names)[48] = xcalloc((size_t)I->nallocs + 1, sizeof *names);
  for (int k = 0; k < I->nallocs; k++) {
    tlc_interp_alloc *c = &I->allocs[k];
    if (c->name) continue;
    for (int i = 0; i < I->p->nparams && !c->name; i++)
      if (I->p->kinds[i] == TLC_PARAM_PTR && args[i] >= c->base && args[i] - c->base < c->bytes)
        c->name = I->f->args[i].name;
    if (!c->name) {
      snprintf(names[k], sizeof names[k], "the allocation at 0x%llx", (unsigned long long)c->base);
      c->name = names[k];
    }
  }
  return names;
}

tlc_interp_status tlc_interp_launch(tlc_interp_program *p, unsigned gx, unsigned gy, unsigned gz,
                                    const uint64_t *args, const tlc_interp_alloc *allocs,
                                    int nallocs, char **error) {
  *error = NULL;
  Interp I;
  memset(&I, 0, sizeof I);
  I.p = p;
  I.f = p->m->func;
  I.grid[0] = gx, I.grid[1] = gy, I.grid[2] = gz;
  if (!gx || !gy || !gz) {
    ip_fail(&I, NULL, TLC_INTERP_ARGS, "grid (%u, %u, %u) has a zero dimension", gx, gy, gz);
    *error = I.error;
    return TLC_INTERP_ARGS;
  }
  if (p->nparams && !args) {
    ip_fail(&I, NULL, TLC_INTERP_ARGS, "kernel '%s' takes %d arguments but none were given",
            I.f->name, p->nparams);
    *error = I.error;
    return TLC_INTERP_ARGS;
  }
  I.vals = xcalloc((size_t)I.f->nvalues + 1, sizeof *I.vals);
  I.nallocs = nallocs > 0 ? nallocs : 0;
  I.allocs = xcalloc((size_t)I.nallocs + 1, sizeof *I.allocs);
  if (I.nallocs) memcpy(I.allocs, allocs, sizeof *I.allocs * (size_t)I.nallocs);
  qsort(I.allocs, (size_t)I.nallocs, sizeof *I.allocs, cmp_alloc);
  char (*names)[48] = name_allocs(&I, args);
  bool ok = true;
  for (unsigned z = 0; ok && z < gz; z++)
    for (unsigned y = 0; ok && y < gy; y++)
      for (unsigned x = 0; ok && x < gx; x++) {
        I.pid[0] = x, I.pid[1] = y, I.pid[2] = z;
        I.returned = false;
        for (int i = 0; i < p->nparams; i++) set_arg(&I, i, &args[i]);
        Op *term;
        ok = ip_exec_block(&I, I.f->body, &term);
      }
  for (uint32_t i = 0; i < I.f->nvalues; i++) free(I.vals[i].data);
  free(I.vals);
  free(I.allocs);
  free(names);
  *error = I.error;
  return ok ? TLC_INTERP_OK : I.status;
}
