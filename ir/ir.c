/* ir.c — creating, linking and rewriting ops, blocks and values; the
 * builder; walking; cloning.
 *
 * The op table (ir_op_info) is generated from ops.def.  Nothing here knows
 * what an op means beyond its arity: type rules live in the builders'
 * callers (specialization) and in verifier.c. */
#include "ir/ir_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const OpInfo ir_op_info[OP__COUNT] = {
#define OP(e, nm, nops, nres, traits) [OP_##e] = {nm, nops, nres, traits},
#include "ops.def"
#undef OP
};

const MathFnInfo ir_mathfn_info[MF__COUNT] = {
#define MATHFN(e, nm, nargs, kind, libclc) [MF_##e] = {nm, nargs, kind, libclc},
#include "mathfns.def"
#undef MATHFN
};

static const struct {
  MathFn first; /* the family's _rn row; _rz, _rd, _ru follow */
  DType from, computed, result;
  const char *nvvm;
} mathcvt[] = {
#define MATHFN(e, nm, nargs, kind, libclc)
#define MATHCVT(e, nm, from, computed, result, nvvm) {MF_##e##_RN, from, computed, result, nvvm},
#include "mathfns.def"
#undef MATHCVT
#undef MATHFN
};

bool ir_mathfn_cvt(MathFn fn, DType *from, DType *computed, DType *result, const char **nvvm, int *rm) {
  for (size_t i = 0; i < sizeof mathcvt / sizeof mathcvt[0]; i++)
    if (fn >= mathcvt[i].first && fn < mathcvt[i].first + 4) {
      *from = mathcvt[i].from, *computed = mathcvt[i].computed, *result = mathcvt[i].result;
      *nvvm = mathcvt[i].nvvm, *rm = (int)(fn - mathcvt[i].first);
      return true;
    }
  return false;
}

int ir_mathfn_lookup(const char *name) {
  for (int i = 0; i < MF__COUNT; i++)
    if (!strcmp(ir_mathfn_info[i].name, name)) return i;
  return -1;
}

IrModule *ir_module_new(Arena *arena) {
  IrModule *m = ARENA_NEW(arena, IrModule);
  m->arena = arena;
  m->ctx = ir_context_new(arena);
  m->num_warps = 4;
  m->num_stages = 3;
  m->threads_per_warp = 32;
  m->capability = 90;
  m->arch = "sm_90a";
  return m;
}

IrFunc *ir_func_new(IrModule *m, const char *name, Loc loc) {
  IrFunc *f = ARENA_NEW(m->arena, IrFunc);
  f->name = arena_strdup(m->arena, name);
  f->loc = loc;
  f->body = ir_block_new(m, NULL);
  m->func = f;
  return f;
}

static Value *new_value(IrModule *m, IrFunc *f, const Type *t) {
  Value *v = ARENA_NEW(m->arena, Value);
  v->type = t;
  v->id = f->nvalues++;
  return v;
}

int ir_func_add_tma(IrModule *m, IrFunc *f, const IrTmaDesc *d) {
  IrTmaDesc *t = ARENA_ARRAY(m->arena, IrTmaDesc, f->ntma + 1);
  if (f->ntma) memcpy(t, f->tma, sizeof(IrTmaDesc) * (size_t)f->ntma);
  t[f->ntma] = *d;
  t[f->ntma].param = ir_block_add_arg(m, f, f->body, ty_ptr(m->ctx, ty_scalar(m->ctx, DT_I8)));
  char name[16];
  snprintf(name, sizeof name, "tma%d", f->ntma);
  t[f->ntma].param->name = arena_strdup(m->arena, name);
  f->tma = t;
  return f->ntma++;
}

IrBlock *ir_block_new(IrModule *m, Op *parent) {
  IrBlock *b = ARENA_NEW(m->arena, IrBlock);
  b->parent = parent;
  return b;
}

Value *ir_block_add_arg(IrModule *m, IrFunc *f, IrBlock *b, const Type *t) {
  Value *v = new_value(m, f, t);
  v->block = b;
  v->index = b->nargs;
  Value **args = ARENA_ARRAY(m->arena, Value *, b->nargs + 1);
  if (b->nargs) memcpy(args, b->args, sizeof(Value *) * (size_t)b->nargs);
  args[b->nargs++] = v;
  b->args = args;
  return v;
}

Value *ir_func_add_arg(IrModule *m, IrFunc *f, const char *name, const Type *t, int div) {
  Value *v = ir_block_add_arg(m, f, f->body, t);
  v->name = arena_strdup(m->arena, name);
  KernelArg *args = ARENA_ARRAY(m->arena, KernelArg, f->nargs + 1);
  if (f->nargs) memcpy(args, f->args, sizeof(KernelArg) * (size_t)f->nargs);
  args[f->nargs++] = (KernelArg){v->name, v, div > 0 ? div : 1};
  f->args = args;
  return v;
}

Op *ir_op_new(IrModule *m, IrFunc *f, OpKind k, Loc loc, Value **operands, int noperands,
              const Type **result_types, int nresults, int nregions) {
  Op *op = ARENA_NEW(m->arena, Op);
  op->kind = k;
  op->loc = loc;
  op->id = f->nops++;
  op->noperands = noperands;
  op->operands = ARENA_ARRAY(m->arena, Value *, noperands ? noperands : 1);
  for (int i = 0; i < noperands; i++) op->operands[i] = operands ? operands[i] : NULL;
  op->nresults = nresults;
  op->results = ARENA_ARRAY(m->arena, Value *, nresults ? nresults : 1);
  for (int i = 0; i < nresults; i++) {
    Value *v = new_value(m, f, result_types[i]);
    v->def = op;
    v->index = i;
    op->results[i] = v;
  }
  op->nregions = nregions;
  op->regions = ARENA_ARRAY(m->arena, IrBlock *, nregions ? nregions : 1);
  for (int i = 0; i < nregions; i++) op->regions[i] = ir_block_new(m, op);
  return op;
}

void ir_append(IrBlock *b, Op *op) {
  op->parent = b;
  op->prev = b->last, op->next = NULL;
  if (b->last) b->last->next = op;
  else b->first = op;
  b->last = op;
}

void ir_insert_before(Op *pos, Op *op) {
  IrBlock *b = pos->parent;
  op->parent = b;
  op->next = pos, op->prev = pos->prev;
  if (pos->prev) pos->prev->next = op;
  else b->first = op;
  pos->prev = op;
}

void ir_insert_after(Op *pos, Op *op) {
  if (pos->next) ir_insert_before(pos->next, op);
  else ir_append(pos->parent, op);
}

void ir_remove(Op *op) {
  IrBlock *b = op->parent;
  if (!b) return;
  if (op->prev) op->prev->next = op->next;
  else b->first = op->next;
  if (op->next) op->next->prev = op->prev;
  else b->last = op->prev;
  op->prev = op->next = NULL;
  op->parent = NULL;
}

void ir_set_operand(Op *op, int i, Value *v) { op->operands[i] = v; }

void ir_add_operands(IrModule *m, Op *op, Value **vals, int n) {
  Value **ops = ARENA_ARRAY(m->arena, Value *, op->noperands + n);
  if (op->noperands) memcpy(ops, op->operands, sizeof(Value *) * (size_t)op->noperands);
  memcpy(ops + op->noperands, vals, sizeof(Value *) * (size_t)n);
  op->operands = ops;
  op->noperands += n;
}

Op *ir_for_add_iter_args(IrModule *m, IrFunc *f, Op *loop, Value **inits, int n) {
  int nops = loop->noperands + n, nres = loop->nresults + n;
  Value **operands = xcalloc((size_t)nops, sizeof(Value *));
  const Type **rts = xcalloc((size_t)nres + 1, sizeof(Type *));
  memcpy(operands, loop->operands, sizeof(Value *) * (size_t)loop->noperands);
  for (int i = 0; i < n; i++) operands[loop->noperands + i] = inits[i];
  for (int i = 0; i < loop->nresults; i++) rts[i] = loop->results[i]->type;
  for (int i = 0; i < n; i++) rts[loop->nresults + i] = inits[i]->type;
  Op *nl = ir_op_new(m, f, OP_FOR, loop->loc, operands, nops, rts, nres, 0);
  free(operands), free(rts);
  nl->attr = loop->attr;
  nl->nregions = 1;
  nl->regions = ARENA_ARRAY(m->arena, IrBlock *, 1);
  nl->regions[0] = loop->regions[0];
  nl->regions[0]->parent = nl;
  for (int i = 0; i < n; i++) ir_block_add_arg(m, f, nl->regions[0], inits[i]->type);
  ir_insert_before(loop, nl);
  ir_remove(loop);
  for (int i = 0; i < loop->nresults; i++) ir_replace_uses(f->body, loop->results[i], nl->results[i]);
  return nl;
}

bool ir_is_zero_const(const Value *v) {
  return v && v->def && v->def->kind == OP_CONSTANT && v->def->attr.ival == 0 && v->def->attr.fval == 0;
}

int ir_replace_uses(IrBlock *scope, Value *from, Value *to) {
  int n = 0;
  for (Op *op = scope->first; op; op = op->next) {
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i] == from) op->operands[i] = to, n++;
    for (int r = 0; r < op->nregions; r++) n += ir_replace_uses(op->regions[r], from, to);
  }
  return n;
}

void ir_walk(IrBlock *b, OpVisitor fn, void *ud) {
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    fn(op, ud);
    for (int r = 0; r < op->nregions; r++) ir_walk(op->regions[r], fn, ud);
  }
}

static void count_uses(Op *op, void *ud) {
  int *counts = ud;
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i]) counts[op->operands[i]->id]++;
}

int *ir_use_counts(IrFunc *f) {
  int *counts = xcalloc(f->nvalues ? f->nvalues : 1, sizeof(int));
  ir_walk(f->body, count_uses, counts);
  return counts;
}

typedef struct {
  VEC(Op *) ops;
} Collect;
static void collect_op(Op *op, void *ud) { VEC_PUSH(((Collect *)ud)->ops, op); }

int64_t ir_carried_regs(const IrBlock *body, int64_t threads) {
  int64_t regs = 0;
  for (int i = 1; i < body->nargs; i++) regs += ty_thread_regs(body->args[i]->type, threads);
  return regs;
}

/* Does the body's yield carry v, directly or through the dot_wait that
 * completes it? */
static bool yielded(const IrBlock *body, const Value *v) {
  if (ir_op_uses(body->last, v)) return true;
  for (const Op *op = body->first; op; op = op->next)
    if (op->kind == OP_DOT_WAIT && op->nresults && ir_op_uses(op, v) && ir_op_uses(body->last, op->results[0]))
      return true;
  return false;
}

/* The largest result of a dot from zero in the body, in registers a thread
 * (attention's S = q @ k^T beside the carried acc). */
static int64_t widest_fresh_dot(const IrBlock *body, int64_t threads) {
  int64_t widest = 0;
  for (const Op *op = body->first; op; op = op->next) {
    /* a dot from zero (an accumulating one's result is the carried value it
     * replaces; one yielded, dot-ahead's S, is carried already) */
    const Value *acc = op->kind == OP_DOT && op->noperands > 2 ? op->operands[2] : NULL;
    if (!acc || !acc->def || acc->def->kind != OP_CONSTANT || yielded(body, op->results[0])) continue;
    int64_t r = ty_thread_regs(op->results[0]->type, threads);
    if (r > widest) widest = r;
  }
  return widest;
}

int64_t ir_loop_regs(const IrBlock *body, int64_t threads) {
  return ir_carried_regs(body, threads) + widest_fresh_dot(body, threads);
}

int64_t ir_loop_data_regs(const IrBlock *body, int64_t threads) {
  return ir_carried_data_regs(body, threads) + widest_fresh_dot(body, threads);
}

int ir_ws_entry_regs(int ctas, int64_t launch_threads) {
  int64_t r = IR_SM_REGS / (ctas * launch_threads) & ~7;
  return r > 256 ? 256 : (int)r;
}

int ir_ws_consumer_regs(int ctas, int64_t consumer_threads, int64_t producer_threads) {
  int64_t pool = (int64_t)ir_ws_entry_regs(ctas, consumer_threads + producer_threads) *
                 (consumer_threads + producer_threads);
  int64_t r = (pool - IR_WS_PRODUCER_REGS * producer_threads) / consumer_threads & ~7;
  return r > 256 ? 256 : (int)r;
}

bool ir_ws_loop_fits_2_ctas(int64_t loop_regs, int64_t consumer_threads) {
  if (consumer_threads <= IR_WARPGROUP_THREADS) return loop_regs <= IR_WS_CARRIED_REGS_AT_2_CTAS;
  if (consumer_threads > 2 * IR_WARPGROUP_THREADS) return false;
  return loop_regs + IR_WS_SPLIT_HEADROOM_REGS <= ir_ws_consumer_regs(2, consumer_threads, IR_WARPGROUP_THREADS);
}

int ir_ws_ctas_per_sm(IrFunc *f, int64_t consumer_threads) {
  if (consumer_threads > 2 * IR_WARPGROUP_THREADS) return 1;
  int entry = ir_ws_entry_regs(2, consumer_threads + IR_WARPGROUP_THREADS);
  int n;
  Op **ops = ir_collect_ops(f, &n);
  int ctas = 2;
  for (int i = 0; i < n; i++) {
    const Op *op = ops[i];
    const Layout *l = op->kind == OP_DOT ? op->results[0]->type->layout : NULL;
    if (l && l->kind == LAY_MMA && l->version == 3 && l->instr[1] > entry) ctas = 1;
    if (op->kind == OP_FOR && !ir_ws_loop_fits_2_ctas(ir_loop_regs(op->regions[0], consumer_threads), consumer_threads))
      ctas = 1;
  }
  free(ops);
  return ctas;
}

bool ir_defined_outside(const IrBlock *block, const Value *v) {
  for (const IrBlock *b = v->block ? v->block : v->def ? v->def->parent : NULL; b;
       b = b->parent ? b->parent->parent : NULL)
    if (b == block) return false;
  return true;
}

bool ir_op_uses(const Op *op, const Value *v) {
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i] == v) return true;
  for (int r = 0; r < op->nregions; r++)
    for (const Op *o = op->regions[r]->first; o; o = o->next)
      if (ir_op_uses(o, v)) return true;
  return false;
}

int64_t ir_smem_align(const Type *t) {
  return t->layout && t->layout->kind == LAY_SHARED && t->layout->block ? 1024 : 128;
}

int64_t ir_smem_limit(int capability) {
  return capability >= 90 ? 232448 : capability >= 80 ? 166912 : 98304;
}

int64_t ir_smem_per_cta(int capability, int ctas) {
  enum { CTA_RESERVED = 1024 };
  int64_t limit = ir_smem_limit(capability);
  return ctas <= 1 ? limit : (limit + CTA_RESERVED) / ctas - CTA_RESERVED;
}

bool ir_is_staging(const Op *op) {
  return op && op->kind == OP_LOCAL_ALLOC && op->noperands && op->operands[0] && op->operands[0]->type->rank;
}

int64_t ir_carried_data_regs(const IrBlock *body, int64_t threads) {
  int64_t regs = 0;
  for (int i = 1; i < body->nargs; i++)
    if (body->args[i]->type->dtype != DT_PTR) regs += ty_thread_regs(body->args[i]->type, threads);
  return regs;
}

Op **ir_collect_ops(IrFunc *f, int *count) {
  Collect c = {0};
  ir_walk(f->body, collect_op, &c);
  *count = c.ops.len;
  return c.ops.data;
}

/* ---- value maps -------------------------------------------------------- */

Value *vmap_get(const ValueMap *vm, Value *v) {
  if (!v || v->id >= vm->cap || !vm->map[v->id]) return v;
  return vm->map[v->id];
}

void vmap_set(ValueMap *vm, Value *from, Value *to) {
  if (from->id >= vm->cap) {
    uint32_t cap = vm->cap ? vm->cap : 64;
    while (cap <= from->id) cap *= 2;
    vm->map = xrealloc(vm->map, sizeof(Value *) * cap);
    memset(vm->map + vm->cap, 0, sizeof(Value *) * (cap - vm->cap));
    vm->cap = cap;
  }
  vm->map[from->id] = to;
}

void vmap_free(ValueMap *vm) { free(vm->map), vm->map = NULL, vm->cap = 0; }

/* ---- builder ------------------------------------------------------------- */

void irb_init(IrBuilder *b, IrModule *m, IrFunc *f, IrBlock *block) {
  memset(b, 0, sizeof *b);
  b->m = m, b->f = f, b->block = block;
}

Op *irb_insert(IrBuilder *b, Op *op) {
  if (b->before) ir_insert_before(b->before, op);
  else ir_append(b->block, op);
  return op;
}

Op *irb_op(IrBuilder *b, OpKind k, Value **operands, int nops, const Type *result) {
  const Type *rt[1] = {result};
  Op *op = ir_op_new(b->m, b->f, k, b->loc, operands, nops, rt, result ? 1 : 0, 0);
  return irb_insert(b, op);
}

Value *irb_const_int(IrBuilder *b, const Type *t, int64_t v) {
  Op *op = irb_op(b, OP_CONSTANT, NULL, 0, t);
  op->attr.ival = v;
  op->attr.fval = (double)v;
  return op->results[0];
}

Value *irb_const_float(IrBuilder *b, const Type *t, double v) {
  Op *op = irb_op(b, OP_CONSTANT, NULL, 0, t);
  op->attr.fval = v;
  /* (int64_t) of NaN, an infinity or an out-of-range value is undefined */
  op->attr.ival = v == v && v > -9.2e18 && v < 9.2e18 ? (int64_t)v : 0;
  return op->results[0];
}

Value *irb_unary(IrBuilder *b, OpKind k, Value *x) {
  return irb_op(b, k, &x, 1, x->type)->results[0];
}

Value *irb_binary(IrBuilder *b, OpKind k, Value *x, Value *y) {
  Value *ops[2] = {x, y};
  return irb_op(b, k, ops, 2, x->type)->results[0];
}

Value *irb_cmp(IrBuilder *b, CmpPred p, Value *x, Value *y) {
  Value *ops[2] = {x, y};
  const Type *t = ty_with_elem(b->m->ctx, x->type, ty_scalar(b->m->ctx, DT_I1));
  Op *op = irb_op(b, OP_CMP, ops, 2, t);
  op->attr.pred = p;
  return op->results[0];
}

Value *irb_select(IrBuilder *b, Value *c, Value *x, Value *y) {
  Value *ops[3] = {c, x, y};
  return irb_op(b, OP_SELECT, ops, 3, x->type)->results[0];
}

Value *irb_cast(IrBuilder *b, Value *x, const Type *to) {
  if (x->type == to) return x;
  return irb_op(b, OP_CAST, &x, 1, to)->results[0];
}

Value *irb_splat(IrBuilder *b, Value *x, const Type *to) {
  return irb_op(b, OP_SPLAT, &x, 1, to)->results[0];
}

Value *irb_broadcast(IrBuilder *b, Value *x, const Type *to) {
  if (x->type == to) return x;
  return irb_op(b, OP_BROADCAST, &x, 1, to)->results[0];
}

Value *irb_expand_dims(IrBuilder *b, Value *x, int axis) {
  const Type *t = x->type;
  int64_t shape[IR_MAX_RANK];
  for (int i = 0, j = 0; i < t->rank + 1; i++) shape[i] = i == axis ? 1 : t->shape[j++];
  const Layout *l = t->layout ? lay_unslice(t->layout, axis) : NULL;
  const Type *rt = ty_tensor(b->m->ctx, ty_elem(b->m->ctx, t), t->rank + 1, shape, l);
  Op *op = irb_op(b, OP_EXPAND_DIMS, &x, 1, rt);
  op->attr.axis = axis;
  return op->results[0];
}

Value *irb_arange(IrBuilder *b, int64_t start, int64_t end) {
  int64_t n = end - start;
  const Type *t = ty_tensor(b->m->ctx, ty_scalar(b->m->ctx, DT_I32), 1, &n, NULL);
  Op *op = irb_op(b, OP_ARANGE, NULL, 0, t);
  op->attr.start = start, op->attr.end = end;
  return op->results[0];
}

Value *irb_convert(IrBuilder *b, Value *x, const Layout *to) {
  if (x->type->layout == to) return x;
  const Type *t = ty_with_layout(b->m->ctx, x->type, to);
  return irb_op(b, OP_CONVERT_LAYOUT, &x, 1, t)->results[0];
}

Op *irb_clone(IrBuilder *b, Op *op, ValueMap *vm) {
  Value *operands[op->noperands ? op->noperands : 1];
  for (int i = 0; i < op->noperands; i++) operands[i] = vmap_get(vm, op->operands[i]);
  const Type *rts[op->nresults ? op->nresults : 1];
  for (int i = 0; i < op->nresults; i++) rts[i] = op->results[i]->type;
  Op *c = ir_op_new(b->m, b->f, op->kind, op->loc, operands, op->noperands, rts, op->nresults,
                    op->nregions);
  c->attr = op->attr;
  for (int i = 0; i < op->nresults; i++) {
    c->results[i]->name = op->results[i]->name;
    vmap_set(vm, op->results[i], c->results[i]);
  }
  irb_insert(b, c);
  for (int r = 0; r < op->nregions; r++) {
    IrBlock *src = op->regions[r], *dst = c->regions[r];
    for (int a = 0; a < src->nargs; a++) {
      Value *na = ir_block_add_arg(b->m, b->f, dst, src->args[a]->type);
      na->name = src->args[a]->name;
      vmap_set(vm, src->args[a], na);
    }
    IrBuilder inner;
    irb_init(&inner, b->m, b->f, dst);
    for (Op *o = src->first; o; o = o->next) irb_clone(&inner, o, vm);
  }
  return c;
}
