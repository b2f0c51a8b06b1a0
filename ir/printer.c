/* printer.c — the text form of the tile IR, read by people and FileCheck.
 *
 *   #blocked0 = #blocked<{spt=[4], tpw=[32], wpc=[4], order=[0]}>
 *   func @add_kernel(%a_ptr: ptr<f32> {div=16}, %n: i32) {num_warps=4} {
 *     %0 = program_id {axis=0} : i32
 *     %1 = arange {start=0, end=1024} : tensor<1024xi32, #blocked0>
 *     %5 = load %4, mask=%3 {vec=4} : tensor<1024xf32, #blocked0>
 *     %7:2 = for %iv = %lb to %ub step %st iter_args(%a = %x, %b = %y) -> (f32, f32) {
 *       yield %8, %9
 *     }
 *   }
 *
 * Values are renumbered in print order so the output is stable; kernel
 * arguments print with their source names.  Blocked, mma and shared
 * layouts get aliases listed before the function (first use first); slice
 * and dot-operand layouts print inline around their parent's alias. */
#include "ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Printer {
  StrBuf *sb;
  const Layout **aliases; /* layouts with an alias, in order */
  int naliases, cap;
  uint32_t *num;          /* Value.id -> printed number + 1 (0 = unnumbered) */
  uint32_t nnum, next;
} Printer;

static _Thread_local Printer *current;

static const char *alias_kind(const Layout *l) {
  switch (l->kind) {
  case LAY_BLOCKED: return "blocked";
  case LAY_MMA: return "mma";
  case LAY_SHARED: return "shared";
  default: return NULL;
  }
}

static int alias_index(Printer *p, const Layout *l) {
  int same_kind = 0;
  for (int i = 0; i < p->naliases; i++) {
    if (p->aliases[i] == l) return same_kind;
    if (p->aliases[i]->kind == l->kind) same_kind++;
  }
  return -1;
}

void ir_print_layout_ref(StrBuf *sb, const Layout *l) {
  int i = -1;
  if (current && l->kind != LAY_SLICE && l->kind != LAY_DOT_OPERAND) i = alias_index(current, l);
  if (i < 0) lay_print(sb, l);
  else sb_printf(sb, "#%s%d", alias_kind(l), i);
}

static void note_layout(Printer *p, const Layout *l) {
  if (!l) return;
  if (l->kind == LAY_SLICE || l->kind == LAY_DOT_OPERAND) {
    note_layout(p, l->parent);
    return;
  }
  for (int i = 0; i < p->naliases; i++)
    if (p->aliases[i] == l) return;
  if (p->naliases == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 8;
    p->aliases = xrealloc(p->aliases, sizeof(Layout *) * (size_t)p->cap);
  }
  p->aliases[p->naliases++] = l;
}

static void note_value(Printer *p, const Value *v) {
  if (v && v->type->rank) note_layout(p, v->type->layout);
}

static void collect_layouts(Printer *p, const IrBlock *b) {
  for (int i = 0; i < b->nargs; i++) note_value(p, b->args[i]);
  for (const Op *op = b->first; op; op = op->next) {
    for (int i = 0; i < op->nresults; i++) note_value(p, op->results[i]);
    for (int r = 0; r < op->nregions; r++) collect_layouts(p, op->regions[r]);
  }
}

static void put_value(Printer *p, const Value *v) {
  if (!v) {
    sb_puts(p->sb, "_");
    return;
  }
  if (v->block && !v->block->parent && v->name) {
    sb_printf(p->sb, "%%%s", v->name);
    return;
  }
  if (v->id >= p->nnum) {
    uint32_t n = p->nnum ? p->nnum : 64;
    while (n <= v->id) n *= 2;
    p->num = xrealloc(p->num, sizeof(uint32_t) * n);
    memset(p->num + p->nnum, 0, sizeof(uint32_t) * (n - p->nnum));
    p->nnum = n;
  }
  if (!p->num[v->id]) p->num[v->id] = ++p->next;
  sb_printf(p->sb, "%%%u", p->num[v->id] - 1);
}

static void indent(StrBuf *sb, int depth) {
  for (int i = 0; i < depth; i++) sb_puts(sb, "  ");
}

const char *ir_pred_name(CmpPred pr) {
  static const char *n[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return n[pr];
}
const char *ir_combine_name(CombineKind k) {
  static const char *n[] = {"sum", "max", "min", "argmax", "argmin", "xor", "and", "or", "prod", "region"};
  return n[k];
}
const char *ir_rmw_name(RmwKind k) {
  static const char *n[] = {"add", "fadd", "max", "min", "umax", "umin", "and", "or", "xor", "xchg"};
  return n[k];
}
const char *ir_sem_name(MemSem s) {
  static const char *n[] = {"acq_rel", "acquire", "release", "relaxed"}; /* ORDER MemSem */
  return n[s];
}
const char *ir_scope_name(MemScope s) {
  static const char *n[] = {"gpu", "cta", "sys"}; /* ORDER MemScope */
  return n[s];
}

static void print_attrs(Printer *p, const Op *op) {
  StrBuf *sb = p->sb;
  const OpAttrs *a = &op->attr;
  StrBuf at;
  sb_init(&at);
#define SEP() (at.len ? ", " : "")
  switch (op->kind) {
  case OP_PROGRAM_ID: case OP_NUM_PROGRAMS: case OP_EXPAND_DIMS: case OP_FLIP: case OP_GATHER:
    sb_printf(&at, "axis=%d", a->axis);
    break;
  case OP_REDUCE:
    sb_printf(&at, "axis=%d, combine=%s", a->axis, ir_combine_name(a->combine));
    break;
  case OP_SORT:
    sb_printf(&at, "axis=%d%s", a->axis, a->reverse ? ", descending" : "");
    break;
  case OP_SCAN:
    sb_printf(&at, "axis=%d, combine=%s%s", a->axis, ir_combine_name(a->combine), a->reverse ? ", reverse" : "");
    break;
  case OP_ARANGE:
    sb_printf(&at, "start=%lld, end=%lld", (long long)a->start, (long long)a->end);
    break;
  case OP_TRANS:
    sb_puts(&at, "perm=[");
    for (int i = 0; i < op->results[0]->type->rank; i++) sb_printf(&at, i ? ",%d" : "%d", a->perm[i]);
    sb_putc(&at, ']');
    break;
  case OP_CMP:
    sb_printf(&at, "pred=%s", ir_pred_name(a->pred));
    break;
  case OP_DIV: case OP_SQRT:
    if (a->precise) sb_puts(&at, "precise");
    break;
  case OP_MIN: case OP_MAX: case OP_CLAMP:
    if (a->propagate_nan) sb_puts(&at, "propagate_nan");
    break;
  case OP_CAST:
    if (a->rounding == ROUND_RTZ) sb_puts(&at, "rounding=rtz");
    break;
  case OP_MATHFN:
    sb_printf(&at, "fn=%s", a->fn >= 0 && a->fn < MF__COUNT ? ir_mathfn_info[a->fn].name : "?");
    break;
  case OP_LOAD: case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
    if (op->kind == OP_ATOMIC_RMW) sb_printf(&at, "rmw=%s", ir_rmw_name(a->rmw));
    if (a->vec) sb_printf(&at, "%svec=%d", SEP(), a->vec);
    if (a->cache) sb_printf(&at, "%scache=%d", SEP(), (int)a->cache);
    if (a->evict) sb_printf(&at, "%sevict=%s", SEP(), a->evict == EVICT_FIRST ? "first" : "last");
    if (a->is_volatile) sb_printf(&at, "%svolatile", SEP());
    if (op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS) { /* the defaults (acq_rel, gpu) unsaid */
      if (a->sem) sb_printf(&at, "%ssem=%s", SEP(), ir_sem_name(a->sem));
      if (a->scope) sb_printf(&at, "%sscope=%s", SEP(), ir_scope_name(a->scope));
    }
    break;
  case OP_DOT:
    sb_printf(&at, "precision=%s", a->precision == PREC_IEEE ? "ieee" : a->precision == PREC_TF32 ? "tf32" : "tf32x3");
    if (a->max_imprecise) sb_printf(&at, ", max_imprecise=%d", a->max_imprecise);
    if (a->is_async) sb_puts(&at, ", async");
    break;
  case OP_ASYNC_WAIT: case OP_DOT_WAIT: case OP_MBAR_EXPECT:
    sb_printf(&at, "num=%d", a->num);
    break;
  case OP_MBAR_INIT: case OP_BARRIER: /* arrivals per phase; the join of WARP_ROLES */
    if (a->num) sb_printf(&at, "num=%d", a->num);
    break;
  case OP_ASYNC_COPY:
    if (a->vec) sb_printf(&at, "vec=%d", a->vec);
    break;
  case OP_ASSUME:
    for (int i = 0; i < IR_MAX_RANK; i++) {
      if (a->hint_div[i]) sb_printf(&at, "%sdiv%d=%d", SEP(), i, a->hint_div[i]);
      if (a->hint_contig[i]) sb_printf(&at, "%scontig%d=%d", SEP(), i, a->hint_contig[i]);
    }
    break;
  case OP_FOR:
    if (a->loop.num_stages) sb_printf(&at, "%snum_stages=%d", SEP(), a->loop.num_stages);
    if (a->loop.unroll) sb_printf(&at, "%sunroll=%d", SEP(), a->loop.unroll);
    if (a->loop.flatten) sb_printf(&at, "%sflatten", SEP());
    if (a->loop.warp_specialize) sb_printf(&at, "%swarp_specialize", SEP());
    if (a->loop.no_acc_multibuf) sb_printf(&at, "%sdisallow_acc_multi_buffer", SEP());
    break;
  case OP_ASSERT: case OP_PRINT:
    sb_printf(&at, "msg=\"%s\"", a->str ? a->str : "");
    if (a->hex) sb_puts(&at, ", hex");
    break;
  default:
    break;
  }
  if (a->ring_phase) sb_printf(&at, "%sphase=%d", SEP(), a->ring_phase);
  if (a->smem_offset) sb_printf(&at, "%ssmem=%d", SEP(), a->smem_offset);
#undef SEP
  if (at.len) sb_printf(sb, " {%s}", at.data);
  sb_free(&at);
}

static void print_block(Printer *p, const IrBlock *b, int depth);

static void print_constant(Printer *p, const Op *op) {
  const Type *t = op->results[0]->type;
  if (dt_is_float(t->dtype)) {
    double v = op->attr.fval;
    if (v != v) sb_puts(p->sb, " nan");
    else if (v == 1.0 / 0.0) sb_puts(p->sb, " inf");
    else if (v == -1.0 / 0.0) sb_puts(p->sb, " -inf");
    else sb_printf(p->sb, " %.9g", v);
  } else {
    sb_printf(p->sb, " %lld", (long long)op->attr.ival);
  }
}

static void print_op_at(Printer *p, const Op *op, int depth) {
  StrBuf *sb = p->sb;
  indent(sb, depth);
  for (int i = 0; i < op->nresults; i++) {
    if (i) sb_puts(sb, ", ");
    put_value(p, op->results[i]);
  }
  if (op->nresults) sb_puts(sb, " = ");
  sb_puts(sb, ir_op_info[op->kind].name);
  if (op->kind == OP_FOR) {
    const IrBlock *body = op->regions[0];
    sb_putc(sb, ' ');
    put_value(p, body->args[0]);
    sb_puts(sb, " = ");
    put_value(p, op->operands[0]);
    sb_puts(sb, " to ");
    put_value(p, op->operands[1]);
    sb_puts(sb, " step ");
    put_value(p, op->operands[2]);
    if (op->noperands > 3) {
      sb_puts(sb, " iter_args(");
      for (int i = 3; i < op->noperands; i++) {
        if (i > 3) sb_puts(sb, ", ");
        put_value(p, body->args[i - 2]);
        sb_puts(sb, " = ");
        put_value(p, op->operands[i]);
      }
      sb_putc(sb, ')');
    }
  } else if (op->kind == OP_WHILE) {
    sb_puts(sb, " (");
    for (int i = 0; i < op->noperands; i++) {
      if (i) sb_puts(sb, ", ");
      put_value(p, op->regions[0]->args[i]);
      sb_puts(sb, " = ");
      put_value(p, op->operands[i]);
    }
    sb_putc(sb, ')');
  } else if (op->kind == OP_CONSTANT) {
    print_constant(p, op);
  } else {
    static const char *const load_names[] = {NULL, "mask", "other"};
    static const char *const store_names[] = {NULL, NULL, "mask"};
    static const char *const copy_names[] = {NULL, NULL, "mask", "other"};
    for (int i = 0; i < op->noperands; i++) {
      const char *kw = NULL;
      if (op->kind == OP_LOAD) kw = load_names[i];
      if (op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW) kw = store_names[i];
      if (op->kind == OP_ASYNC_COPY) kw = copy_names[i];
      if (op->kind == OP_LOCAL_ALLOC && !op->operands[i]) continue; /* an empty buffer */
      if (kw && !op->operands[i]) continue;
      sb_puts(sb, i ? ", " : " ");
      if (kw) sb_printf(sb, "%s=", kw);
      put_value(p, op->operands[i]);
    }
  }
  print_attrs(p, op);
  /* Types: results after ':'; casts and conversions show the source too. */
  if (op->kind == OP_CAST || op->kind == OP_BITCAST || op->kind == OP_CONVERT_LAYOUT ||
      op->kind == OP_SPLAT || op->kind == OP_BROADCAST || op->kind == OP_EXPAND_DIMS ||
      op->kind == OP_TRANS || op->kind == OP_RESHAPE || (op->kind == OP_LOCAL_ALLOC && op->operands[0]) ||
      op->kind == OP_LOCAL_LOAD || op->kind == OP_MEMDESC_INDEX || op->kind == OP_MEMDESC_TRANS) {
    sb_puts(sb, " : ");
    ty_print(sb, op->operands[0]->type);
    sb_puts(sb, " -> ");
    ty_print(sb, op->results[0]->type);
  } else if (op->nresults == 1) {
    sb_puts(sb, " : ");
    ty_print(sb, op->results[0]->type);
  } else if (op->nresults > 1) {
    sb_puts(sb, " : (");
    for (int i = 0; i < op->nresults; i++) {
      if (i) sb_puts(sb, ", ");
      ty_print(sb, op->results[i]->type);
    }
    sb_putc(sb, ')');
  } else if ((op->kind == OP_STORE || op->kind == OP_YIELD || op->kind == OP_CONDITION) &&
             op->noperands > 0 && op->operands[0]) {
    sb_puts(sb, " : ");
    ty_print(sb, op->operands[op->kind == OP_STORE ? 1 : 0]->type);
  } else if (op->kind == OP_ASYNC_COPY) {
    sb_puts(sb, " : ");
    ty_print(sb, op->operands[0]->type);
    sb_puts(sb, " -> ");
    ty_print(sb, op->operands[1]->type);
  }
  if (op->nregions) {
    for (int r = 0; r < op->nregions; r++) {
      const IrBlock *b = op->regions[r];
      if (op->kind == OP_IF && r == 1 && !b->first) break;
      if (r) {
        sb_puts(sb, op->kind == OP_IF ? " else" : op->kind == OP_WARP_ROLES ? " consumers" : " do");
        if (op->kind == OP_WHILE && b->nargs) {
          sb_puts(sb, " (");
          for (int i = 0; i < b->nargs; i++) {
            if (i) sb_puts(sb, ", ");
            put_value(p, b->args[i]);
          }
          sb_putc(sb, ')');
        }
      }
      if ((op->kind == OP_SCAN || op->kind == OP_REDUCE) && b->nargs) {
        sb_puts(sb, " combine(");
        for (int i = 0; i < b->nargs; i++) {
          if (i) sb_puts(sb, ", ");
          put_value(p, b->args[i]);
        }
        sb_putc(sb, ')');
      }
      sb_puts(sb, " {\n");
      print_block(p, b, depth + 1);
      indent(sb, depth);
      sb_putc(sb, '}');
    }
  }
  sb_putc(sb, '\n');
}

static void print_tma_value(Printer *p, const IrFunc *f, IrTmaValue v) {
  if (v.arg >= 0 && v.arg < f->nargs) put_value(p, f->args[v.arg].value);
  else sb_printf(p->sb, "%lld", (long long)v.value);
}

/* tma<f16, %a_ptr, dims=[%K, %M], strides=[1, %sam], box=[64, 128], swizzle=128> */
static void print_tma(Printer *p, const IrFunc *f, const IrTmaDesc *d) {
  StrBuf *sb = p->sb;
  sb_printf(sb, "tma<%s, ", dt_name(d->dtype));
  put_value(p, f->args[d->base_arg].value);
  const char *names[2] = {"dims", "strides"};
  for (int k = 0; k < 2; k++) {
    sb_printf(sb, ", %s=[", names[k]);
    for (int i = 0; i < d->rank; i++) {
      if (i) sb_puts(sb, ", ");
      print_tma_value(p, f, k ? d->strides[i] : d->dims[i]);
    }
    sb_putc(sb, ']');
  }
  sb_puts(sb, ", box=[");
  for (int i = 0; i < d->rank; i++) sb_printf(sb, i ? ", %d" : "%d", d->box[i]);
  sb_printf(sb, "], swizzle=%d>", d->swizzle);
}

static void print_block(Printer *p, const IrBlock *b, int depth) {
  for (const Op *op = b->first; op; op = op->next) print_op_at(p, op, depth);
}

void ir_print_op(StrBuf *sb, const Op *op) {
  Printer p = {.sb = sb};
  Printer *saved = current;
  current = NULL;
  print_op_at(&p, op, 0);
  current = saved;
  free(p.num);
}

void ir_print_module(StrBuf *sb, const IrModule *m) {
  Printer p = {.sb = sb};
  const IrFunc *f = m->func;
  if (!f) return;
  collect_layouts(&p, f->body);
  Printer *saved = current;
  current = NULL; /* definitions print in full */
  int counts[5] = {0};
  for (int i = 0; i < p.naliases; i++) {
    const Layout *l = p.aliases[i];
    sb_printf(sb, "#%s%d = ", alias_kind(l), counts[l->kind]++);
    current = &p;
    lay_print(sb, l);
    current = NULL;
    sb_putc(sb, '\n');
  }
  current = &p;
  sb_printf(sb, "func @%s(", f->name);
  for (int i = 0; i < f->nargs; i++) {
    if (i) sb_puts(sb, ", ");
    put_value(&p, f->args[i].value);
    sb_puts(sb, ": ");
    ty_print(sb, f->args[i].value->type);
    if (f->args[i].divisibility > 1) sb_printf(sb, " {div=%d}", f->args[i].divisibility);
  }
  for (int i = 0; i < f->ntma; i++) {
    sb_puts(sb, f->nargs || i ? ", " : "");
    put_value(&p, f->tma[i].param);
    sb_puts(sb, ": ");
    print_tma(&p, f, &f->tma[i]);
  }
  sb_printf(sb, ") {num_warps=%d", m->num_warps);
  if (m->producer_warps) sb_printf(sb, ", producer_warps=%d", m->producer_warps);
  if (m->warps_asked) sb_printf(sb, ", warps_asked=%d", m->warps_asked);
  if (m->warp_specialize) sb_puts(sb, ", warp_specialize=1");
  if (m->program_order) sb_printf(sb, ", program_order=%d", m->program_order);
  if (m->smem_buffers_end) sb_printf(sb, ", smem_buffers=%d", m->smem_buffers_end);
  if (m->shared_bytes) sb_printf(sb, ", shared=%d", m->shared_bytes);
  sb_puts(sb, "} {\n");
  print_block(&p, f->body, 1);
  sb_puts(sb, "}\n");
  current = saved;
  free(p.aliases);
  free(p.num);
}
