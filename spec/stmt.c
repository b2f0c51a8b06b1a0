/* stmt.c — executing statements: assignment, constexpr and runtime
 * control flow, and inlining of helper functions.
 *
 * Runtime `if` becomes an IF op whose results are the variables the
 * branches change; runtime `for`/`while` become FOR/WHILE ops carrying the
 * variables that exist before the loop and are assigned in its body (the
 * same rule Triton uses).  Values cross those region boundaries "flattened":
 * a tensor is one IR value, a block pointer its base/shape/strides/offsets,
 * a tensor descriptor its base/shape/strides.
 * `if` on a constexpr and `tl.static_range` loops are evaluated at compile
 * time, so only the branch taken and the unrolled copies produce IR. */
#include "spec/spec_internal.h"

#include <string.h>

typedef VEC(Value *) ValueVec;
typedef VEC(const char *) NameVec;

static Frame *frame(Spec *s) { return s->frames[s->depth - 1]; }

/* ---- flattening values across region boundaries ------------------------- */

/* Append the IR values that represent v.  Constexpr numbers materialize
 * (with element type `as` when given).  Reports and returns false for kinds
 * that cannot cross a runtime boundary. */
static bool flatten(Spec *s, SVal *v, ValueVec *out, const char *name, Loc loc) {
  switch (v->kind) {
  case SV_TENSOR:
    VEC_PUSH(*out, v->v);
    return true;
  case SV_BOOL: case SV_INT: case SV_FLOAT: {
    Value *x = sv_to_value(s, v, loc, name);
    if (!x) return false;
    VEC_PUSH(*out, x);
    return true;
  }
  case SV_BLOCKPTR: {
    BlockPtr *bp = v->bp;
    VEC_PUSH(*out, bp->base);
    for (int i = 0; i < bp->rank; i++) VEC_PUSH(*out, bp->shape[i]);
    for (int i = 0; i < bp->rank; i++) VEC_PUSH(*out, bp->strides[i]);
    for (int i = 0; i < bp->rank; i++) VEC_PUSH(*out, bp->offsets[i]);
    return true;
  }
  case SV_TENSORDESC: {
    TensorDesc *td = v->td;
    VEC_PUSH(*out, td->base);
    for (int i = 0; i < td->rank; i++) VEC_PUSH(*out, td->shape[i]);
    for (int i = 0; i < td->rank; i++) VEC_PUSH(*out, td->strides[i]);
    return true;
  }
  case SV_TUPLE:
    for (int i = 0; i < v->n; i++)
      if (!flatten(s, v->items[i], out, name, loc)) return false;
    return true;
  default:
    spec_error(s, loc, "'%s' is a %s, which cannot change inside a runtime if/for/while "
               "(only tensors, numbers, block pointers and tensor descriptors can)", name, sv_kind_name(v));
    return false;
  }
}

/* Rebuild a value shaped like `tmpl` from values[*pos...]. */
static SVal *unflatten(Spec *s, SVal *tmpl, Value **values, int *pos) {
  switch (tmpl->kind) {
  case SV_TENSOR: case SV_BOOL: case SV_INT: case SV_FLOAT:
    return sv_tensor(s, values[(*pos)++]);
  case SV_BLOCKPTR: {
    BlockPtr *bp = ARENA_NEW(s->arena, BlockPtr);
    *bp = *tmpl->bp;
    bp->base = values[(*pos)++];
    for (int i = 0; i < bp->rank; i++) bp->shape[i] = values[(*pos)++];
    for (int i = 0; i < bp->rank; i++) bp->strides[i] = values[(*pos)++];
    for (int i = 0; i < bp->rank; i++) bp->offsets[i] = values[(*pos)++];
    SVal *r = sv_new(s, SV_BLOCKPTR);
    r->bp = bp;
    return r;
  }
  case SV_TENSORDESC: {
    TensorDesc *td = ARENA_NEW(s->arena, TensorDesc);
    *td = *tmpl->td;
    td->base = values[(*pos)++];
    for (int i = 0; i < td->rank; i++) td->shape[i] = values[(*pos)++];
    for (int i = 0; i < td->rank; i++) td->strides[i] = values[(*pos)++];
    SVal *r = sv_new(s, SV_TENSORDESC);
    r->td = td;
    return r;
  }
  case SV_TUPLE: {
    SVal **items = ARENA_ARRAY(s->arena, SVal *, tmpl->n + 1);
    for (int i = 0; i < tmpl->n; i++) items[i] = unflatten(s, tmpl->items[i], values, pos);
    return sv_tuple(s, items, tmpl->n, tmpl->is_list);
  }
  default:
    return tmpl;
  }
}

static bool carriable(const SVal *v) {
  switch (v->kind) {
  case SV_TENSOR: case SV_BOOL: case SV_INT: case SV_FLOAT: case SV_BLOCKPTR: case SV_TENSORDESC: return true;
  case SV_TUPLE:
    for (int i = 0; i < v->n; i++)
      if (!carriable(v->items[i])) return false;
    return true;
  default: return false;
  }
}

static bool same_structure(const SVal *a, const SVal *b) {
  bool an = a->kind == SV_TENSOR || sv_is_number(a), bn = b->kind == SV_TENSOR || sv_is_number(b);
  if (an || bn) return an && bn;
  if (a->kind != b->kind) return false;
  if (a->kind == SV_BLOCKPTR) return a->bp->rank == b->bp->rank;
  if (a->kind == SV_TENSORDESC) {
    /* the block and padding are the descriptor's type: they cannot change */
    const TensorDesc *x = a->td, *y = b->td;
    bool same = x->rank == y->rank && x->pad_nan == y->pad_nan && x->base->type == y->base->type;
    for (int i = 0; same && i < x->rank; i++) same = x->block[i] == y->block[i];
    return same;
  }
  if (a->kind == SV_TUPLE) {
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
      if (!same_structure(a->items[i], b->items[i])) return false;
  }
  return true;
}

/* The kind of v for a message about structure: a descriptor with its block. */
static const char *kind_text(Spec *s, const SVal *v) {
  return v->kind == SV_TENSORDESC ? sv_text(s, v) : sv_kind_name(v);
}

/* Coerce `v` to type `want` for a yield: constexpr numbers materialize in
 * that type; tensors must already have it. */
static Value *coerce_for_yield(Spec *s, Value *v, const Type *want, const char *name, Loc loc,
                               const char *where_want, const char *where_got) {
  if (v->type == want) return v;
  if (v->def && v->def->kind == OP_CONSTANT && v->type->rank == 0 && want->rank == 0) {
    spec_at(s, loc);
    return dt_is_float(want->dtype) ? irb_const_float(&s->b, want, v->def->attr.fval)
                                    : irb_const_int(&s->b, want, v->def->attr.ival);
  }
  StrBuf a, b;
  sb_init(&a), sb_init(&b);
  ty_print(&a, want), ty_print(&b, v->type);
  spec_error(s, loc, "'%s' is %s %s but %s %s; a variable must keep its type", name, a.data,
             where_want, b.data, where_got);
  sb_free(&a), sb_free(&b);
  return NULL;
}

/* ---- assigned-name scan ------------------------------------------------------- */

static void add_name(NameVec *v, const char *n) {
  for (int i = 0; i < v->len; i++)
    if (!strcmp(v->data[i], n)) return;
  VEC_PUSH(*v, n);
}

static void target_names(const Expr *t, NameVec *out) {
  if (t->kind == EX_NAME) add_name(out, t->name);
  else if (t->kind == EX_TUPLE || t->kind == EX_LIST)
    for (int i = 0; i < t->nitems; i++) target_names(t->items[i], out);
}

static void assigned_names(const Block *b, NameVec *out) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->stmts[i];
    switch (st->kind) {
    case ST_ASSIGN:
      for (int k = 0; k < st->ntargets; k++) target_names(st->targets[k], out);
      break;
    case ST_AUGASSIGN: case ST_ANNASSIGN:
      target_names(st->target, out);
      break;
    case ST_FOR:
      target_names(st->target, out);
      assigned_names(&st->body, out);
      assigned_names(&st->orelse, out);
      break;
    case ST_IF: case ST_WHILE:
      assigned_names(&st->body, out);
      assigned_names(&st->orelse, out);
      break;
    default:
      break;
    }
  }
}

/* ---- scope snapshots ------------------------------------------------------------ */

static Scope scope_copy(const Scope *sc) {
  Scope c = {.parent = sc->parent};
  for (int i = 0; i < sc->vars.len; i++) VEC_PUSH(c.vars, sc->vars.data[i]);
  return c;
}

static SVal *scope_get_local(const Scope *sc, const char *name) {
  for (int i = sc->vars.len - 1; i >= 0; i--)
    if (!strcmp(sc->vars.data[i].name, name)) return sc->vars.data[i].val;
  return NULL;
}

static void scope_remove(Scope *sc, const char *name) {
  for (int i = sc->vars.len - 1; i >= 0; i--)
    if (!strcmp(sc->vars.data[i].name, name)) {
      memmove(&sc->vars.data[i], &sc->vars.data[i + 1], sizeof(Binding) * (size_t)(sc->vars.len - i - 1));
      sc->vars.len--;
    }
}

/* ---- assignment -------------------------------------------------------------------- */

static void assign(Spec *s, Scope *sc, const Expr *t, SVal *v) {
  if (t->kind == EX_NAME) {
    scope_set(s, sc, t->name, v);
    return;
  }
  if (t->kind == EX_TUPLE || t->kind == EX_LIST) {
    if (is_poison(v)) {
      for (int i = 0; i < t->nitems; i++) assign(s, sc, t->items[i], v);
      return;
    }
    if (v->kind != SV_TUPLE) {
      spec_error(s, t->loc, "cannot unpack a %s into %d names", sv_kind_name(v), t->nitems);
      for (int i = 0; i < t->nitems; i++) assign(s, sc, t->items[i], s->poison);
      return;
    }
    if (v->n != t->nitems) {
      spec_error(s, t->loc, "cannot unpack %d values into %d names", v->n, t->nitems);
      for (int i = 0; i < t->nitems; i++) assign(s, sc, t->items[i], s->poison);
      return;
    }
    for (int i = 0; i < t->nitems; i++) assign(s, sc, t->items[i], v->items[i]);
    return;
  }
  if (t->kind == EX_SUBSCRIPT || t->kind == EX_ATTR)
    spec_error(s, t->loc, "assigning to %s is not supported in tile kernels (tensors are immutable; "
               "use tl.where or tl.store)", t->kind == EX_SUBSCRIPT ? "an element" : "an attribute");
  else
    spec_error(s, t->loc, "cannot assign to this expression");
}

/* ---- runtime if ------------------------------------------------------------------------ */

static Value *scalar_condition(Spec *s, SVal *c, Loc loc, const char *stmt) {
  if (c->kind != SV_TENSOR) {
    spec_error(s, loc, "the condition of '%s' must be a constexpr or a runtime scalar, not a %s",
               stmt, sv_kind_name(c));
    return NULL;
  }
  if (c->v->type->rank) {
    spec_error(s, loc, "the condition of '%s' is a tensor; use a scalar (e.g. tl.sum, tl.max) or "
               "tl.where for elementwise choices", stmt);
    return NULL;
  }
  return spec_to_bool(s, c->v, loc);
}

static void exec_if_runtime(Spec *s, Scope *sc, const Stmt *st, Value *cond) {
  IrBuilder saved = s->b;
  Value *ops[1] = {cond};
  Op *tmp = ir_op_new(s->m, s->f, OP_IF, st->loc, ops, 1, NULL, 0, 2);
  irb_insert(&s->b, tmp);
  frame(s)->runtime_depth++;
  Scope br[2] = {scope_copy(sc), scope_copy(sc)};
  const Block *blocks[2] = {&st->body, &st->orelse};
  IrBuilder ends[2];
  for (int r = 0; r < 2; r++) {
    irb_init(&s->b, s->m, s->f, tmp->regions[r]);
    s->b.loc = st->loc;
    spec_exec_block(s, &br[r], blocks[r]);
    ends[r] = s->b;
  }
  frame(s)->runtime_depth--;

  /* Which names differ between the branches (or from before)? */
  NameVec names = {0};
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < br[r].vars.len; i++) add_name(&names, br[r].vars.data[i].name);
  NameVec merged = {0};
  VEC(SVal *) tmpl = {0};
  ValueVec yv[2] = {{0}, {0}};
  bool ok = true;
  for (int i = 0; i < names.len; i++) {
    const char *n = names.data[i];
    SVal *tv = scope_get_local(&br[0], n), *ev = scope_get_local(&br[1], n);
    SVal *ov = scope_get_local(sc, n);
    if (tv == ev) {
      if (tv != ov) scope_set(s, sc, n, tv);
      continue;
    }
    if (!tv || !ev) {
      /* defined in one branch only: not visible after the if */
      if (ov) scope_set(s, sc, n, tv ? tv : ev);
      continue;
    }
    if (is_poison(tv) || is_poison(ev)) {
      scope_set(s, sc, n, s->poison);
      continue;
    }
    if (sv_is_constexpr(tv) && sv_is_constexpr(ev)) {
      SVal *eq = spec_compare(s, AOP_EQ, tv, ev, st->loc);
      if (eq->kind == SV_BOOL && eq->i) {
        scope_set(s, sc, n, tv);
        continue;
      }
    }
    if (!carriable(tv) || !carriable(ev) || !same_structure(tv, ev)) {
      spec_error(s, st->loc, "'%s' is a %s in one branch and a %s in the other; after a runtime "
                 "'if' it must be the same kind of value", n, kind_text(s, tv), kind_text(s, ev));
      ok = false;
      continue;
    }
    int before[2] = {yv[0].len, yv[1].len};
    for (int r = 0; r < 2; r++) {
      s->b = ends[r];
      if (!flatten(s, r ? ev : tv, &yv[r], n, st->loc)) ok = false;
    }
    if (!ok) continue;
    /* types must agree; constexpr numbers adapt to the other branch */
    for (int k = 0; k < yv[0].len - before[0]; k++) {
      Value **a = &yv[0].data[before[0] + k], **b = &yv[1].data[before[1] + k];
      if ((*a)->type == (*b)->type) continue;
      bool a_lit = (*a)->def && (*a)->def->kind == OP_CONSTANT && !(*a)->type->rank;
      s->b = ends[a_lit ? 0 : 1];
      Value *fixed = coerce_for_yield(s, a_lit ? *a : *b, a_lit ? (*b)->type : (*a)->type, n, st->loc,
                                      a_lit ? "in the else branch" : "in the then branch",
                                      a_lit ? "in the then branch" : "in the else branch");
      if (!fixed) { ok = false; break; }
      if (a_lit) *a = fixed; else *b = fixed;
    }
    VEC_PUSH(merged, n);
    VEC_PUSH(tmpl, tv);
  }
  if (ok) {
    int nres = yv[0].len;
    const Type **rts = ARENA_ARRAY(s->arena, const Type *, nres + 1);
    for (int i = 0; i < nres; i++) rts[i] = yv[0].data[i]->type;
    for (int r = 0; r < 2; r++) {
      s->b = ends[r];
      irb_op(&s->b, OP_YIELD, yv[r].data, nres, NULL);
    }
    s->b = saved;
    Op *op = ir_op_new(s->m, s->f, OP_IF, st->loc, ops, 1, rts, nres, 0);
    op->regions = tmp->regions;
    op->nregions = 2;
    for (int r = 0; r < 2; r++) op->regions[r]->parent = op;
    ir_insert_before(tmp, op);
    ir_remove(tmp);
    int pos = 0;
    for (int i = 0; i < merged.len; i++)
      scope_set(s, sc, merged.data[i], unflatten(s, tmpl.data[i], op->results, &pos));
  } else {
    s->b = saved;
    for (int i = 0; i < merged.len; i++) scope_set(s, sc, merged.data[i], s->poison);
  }
  VEC_FREE(names), VEC_FREE(merged), VEC_FREE(tmpl);
  VEC_FREE(yv[0]), VEC_FREE(yv[1]);
  VEC_FREE(br[0].vars), VEC_FREE(br[1].vars);
}

static void exec_if(Spec *s, Scope *sc, const Stmt *st) {
  SVal *c = spec_eval(s, sc, st->cond);
  if (is_poison(c)) return;
  bool t;
  if (sv_truthy(s, c, st->cond->loc, &t)) {
    spec_exec_block(s, sc, t ? &st->body : &st->orelse);
    return;
  }
  Value *cond = scalar_condition(s, c, st->cond->loc, "if");
  if (cond) exec_if_runtime(s, sc, st, cond);
}

/* ---- loops -------------------------------------------------------------------------- */

typedef struct Carried {
  NameVec names;
  VEC(SVal *) tmpl;   /* value before the loop (structure template) */
  ValueVec inits;
  VEC(int) counts;    /* flattened values per name */
} Carried;

static void carried_free(Carried *c) {
  VEC_FREE(c->names), VEC_FREE(c->tmpl), VEC_FREE(c->inits), VEC_FREE(c->counts);
}

/* Names assigned in `body` that exist before the loop become loop-carried;
 * those whose value cannot be carried are checked after the body instead. */
static bool collect_carried(Spec *s, Scope *sc, const Block *body, const char *skip, Carried *c,
                            NameVec *fixed, Loc loc) {
  NameVec names = {0};
  assigned_names(body, &names);
  bool ok = true;
  for (int i = 0; i < names.len; i++) {
    const char *n = names.data[i];
    if (skip && !strcmp(n, skip)) continue;
    SVal *v = scope_get_local(sc, n);
    if (!v) continue;
    if (is_poison(v)) { ok = false; continue; }
    if (!carriable(v)) {
      VEC_PUSH(*fixed, n);
      continue;
    }
    int before = c->inits.len;
    if (!flatten(s, v, &c->inits, n, loc)) { ok = false; continue; }
    VEC_PUSH(c->names, n);
    VEC_PUSH(c->tmpl, v);
    VEC_PUSH(c->counts, c->inits.len - before);
  }
  VEC_FREE(names);
  return ok;
}

/* After the body: flatten each carried name's new value, check types, and
 * return the yield operands (heap array, c->inits.len long). */
static Value **carried_yields(Spec *s, Scope *sc, Carried *c, Value **args, Loc loc, bool *ok) {
  Value **ys = xcalloc((size_t)c->inits.len + 1, sizeof(Value *));
  int pos = 0;
  for (int i = 0; i < c->names.len; i++) {
    const char *n = c->names.data[i];
    SVal *v = scope_get_local(sc, n);
    int cnt = c->counts.data[i];
    if (!v || is_poison(v)) {
      *ok = false;
      pos += cnt;
      continue;
    }
    if (!same_structure(v, c->tmpl.data[i])) {
      spec_error(s, loc, "'%s' is a %s before the loop but a %s at the end of its body", n,
                 kind_text(s, c->tmpl.data[i]), kind_text(s, v));
      *ok = false;
      pos += cnt;
      continue;
    }
    ValueVec fl = {0};
    if (!flatten(s, v, &fl, n, loc) || fl.len != cnt) {
      *ok = false;
    } else {
      for (int k = 0; k < cnt; k++) {
        Value *y = coerce_for_yield(s, fl.data[k], args[pos + k]->type, n, loc, "before the loop",
                                    "at the end of its body");
        if (!y) *ok = false;
        ys[pos + k] = y;
      }
    }
    VEC_FREE(fl);
    pos += cnt;
  }
  return ys;
}

static void check_fixed(Spec *s, Scope *sc, NameVec *fixed, Scope *before, Loc loc) {
  for (int i = 0; i < fixed->len; i++) {
    SVal *a = scope_get_local(before, fixed->data[i]), *b = scope_get_local(sc, fixed->data[i]);
    if (a == b || is_poison(b)) continue;
    SVal *eq = sv_is_constexpr(a) && sv_is_constexpr(b) ? spec_compare(s, AOP_EQ, a, b, loc) : NULL;
    if (eq && eq->kind == SV_BOOL && eq->i) continue;
    spec_error(s, loc, "'%s' (a %s) is reassigned inside a runtime loop; only tensors, numbers, "
               "block pointers and tensor descriptors can change from one iteration to the next", fixed->data[i],
               sv_kind_name(a));
  }
}

/* Restore the scope after a loop: names carried take the loop's results,
 * names first defined inside the body disappear (as in Triton). */
static void finish_loop_scope(Spec *s, Scope *sc, Scope *before, Carried *c, Value **results) {
  Scope out = scope_copy(before);
  int pos = 0;
  for (int i = 0; i < c->names.len; i++) {
    SVal *v = results ? unflatten(s, c->tmpl.data[i], results, &pos) : s->poison;
    scope_set(s, &out, c->names.data[i], v);
  }
  VEC_FREE(sc->vars);
  *sc = out;
}

typedef struct RangeArgs {
  SVal *lb, *ub, *step;
  LoopAttrs attrs;     /* tl.range's keyword arguments */
  bool is_static;
  bool ok;
} RangeArgs;

static bool is_range_builtin(Spec *s, SVal *fn, bool *is_static) {
  if (fn->kind != SV_BUILTIN) return false;
  const char *n = spec_builtin_name(fn->builtin);
  *is_static = !strcmp(n, "static_range");
  return !strcmp(n, "range") || !strcmp(n, "tl.range") || *is_static;
  (void)s;
}

/* One keyword argument of tl.range, a constexpr: num_stages (0 to
 * SPEC_MAX_STAGES; 0
 * and 1 both mean no pipelining, as in Triton) and
 * loop_unroll_factor (0 to 64) are integers, the rest truth values. */
static bool range_kwarg(Spec *s, Scope *sc, const Keyword *kw, LoopAttrs *la) {
  SVal *v = spec_eval(s, sc, kw->value);
  if (is_poison(v)) return false;
  if (!strcmp(kw->name, "disable_licm")) return true; /* accepted; tlc's LICM is LLVM's */
  if (!strcmp(kw->name, "num_stages") || !strcmp(kw->name, "loop_unroll_factor")) {
    if (v->kind == SV_NONE) return true;
    int64_t n;
    bool stages = !strcmp(kw->name, "num_stages");
    if (!sv_const_int(s, v, kw->loc, kw->name, &n)) return false;
    int max = stages ? SPEC_MAX_STAGES : 64;
    if (n < 0 || n > max) {
      spec_error(s, kw->loc, "%s must be from 0 to %d, not %lld", kw->name, max, (long long)n);
      return false;
    }
    if (stages) la->num_stages = n < 1 ? 1 : (int)n;
    else la->unroll = (int)n;
    return true;
  }
  bool on;
  if (!sv_truthy(s, v, kw->loc, &on) || v->kind == SV_TENSOR) {
    spec_error(s, kw->loc, "%s must be a constexpr truth value", kw->name);
    return false;
  }
  if (!strcmp(kw->name, "flatten")) la->flatten = on;
  else if (!strcmp(kw->name, "warp_specialize")) la->warp_specialize = on;
  else la->no_acc_multibuf = on;
  return true;
}

static RangeArgs range_args(Spec *s, Scope *sc, const Expr *call, bool is_static) {
  RangeArgs r = {.is_static = is_static, .ok = false};
  SVal *a[3] = {NULL, NULL, NULL};
  /* range(*t) and range(**d): the loop's bounds must be written out */
  for (int i = 0; i < call->nitems; i++)
    if (call->items[i]->kind == EX_STARRED) {
      spec_error(s, call->items[i]->loc, "'*' arguments are not supported in range; write start, stop and step out");
      return r;
    }
  for (int i = 0; i < call->nkwargs; i++)
    if (!call->kwargs[i].name) {
      spec_error(s, call->kwargs[i].loc, "'**' arguments are not supported");
      return r;
    }
  if (call->nitems < 1 || call->nitems > 3) {
    spec_error(s, call->loc, "range expects 1 to 3 arguments, got %d", call->nitems);
    return r;
  }
  for (int i = 0; i < call->nitems; i++) {
    a[i] = spec_eval(s, sc, call->items[i]);
    if (is_poison(a[i])) return r;
  }
  static const char *const allowed[] = {"num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
                                        "flatten", "warp_specialize", "disable_licm", NULL};
  for (int i = 0; i < call->nkwargs; i++) {
    bool known = false;
    for (int k = 0; allowed[k]; k++) known |= !strcmp(call->kwargs[i].name, allowed[k]);
    if (!strcmp(call->kwargs[i].name, "start") || !strcmp(call->kwargs[i].name, "end") ||
        !strcmp(call->kwargs[i].name, "step"))
      known = false;
    if (!known) {
      spec_error(s, call->kwargs[i].loc, "unknown keyword argument '%s' for range",
                 call->kwargs[i].name);
      return r;
    }
    if (!range_kwarg(s, sc, &call->kwargs[i], &r.attrs)) return r;
  }
  if (call->nitems == 1) r.lb = sv_int(s, 0), r.ub = a[0], r.step = sv_int(s, 1);
  else r.lb = a[0], r.ub = a[1], r.step = call->nitems == 3 ? a[2] : sv_int(s, 1);
  SVal *parts[3] = {r.lb, r.ub, r.step};
  for (int i = 0; i < 3; i++) {
    bool num = parts[i]->kind == SV_INT || parts[i]->kind == SV_BOOL;
    bool scal = parts[i]->kind == SV_TENSOR && !parts[i]->v->type->rank &&
                dt_is_int(parts[i]->v->type->dtype);
    int arg = call->nitems == 1 ? 0 : i; /* range(n) is range(0, n, 1) */
    Loc at = arg < call->nitems ? call->items[arg]->loc : call->loc; /* a default is an int */
    if (is_static && !num) {
      spec_error(s, at, "tl.static_range needs constexpr bounds, but argument %d is a runtime %s",
                 arg + 1, sv_kind_name(parts[i]));
      if (parts[i]->kind == SV_TENSOR) spec_note_runtime_param(s, parts[i]->v);
      return r;
    }
    if (!num && !scal) {
      spec_error(s, at, "range bounds must be integers, not %s", sv_text(s, parts[i]));
      return r;
    }
  }
  if (r.step->kind == SV_INT && r.step->i == 0) {
    spec_error(s, call->loc, "range step must not be zero");
    return r;
  }
  r.ok = true;
  return r;
}

static void exec_unrolled(Spec *s, Scope *sc, const Stmt *st, SVal **values, int n) {
  for (int i = 0; i < n && !frame(s)->returned; i++) {
    assign(s, sc, st->target, values[i]);
    spec_exec_block(s, sc, &st->body);
  }
}

static void exec_for(Spec *s, Scope *sc, const Stmt *st) {
  if (st->orelse.n) {
    spec_error(s, st->loc, "'for ... else' is not supported in tile kernels");
    return;
  }
  const Expr *it = st->value;
  bool is_static = false;
  RangeArgs ra = {0};
  if (it->kind == EX_CALL) {
    SVal *fn = spec_eval(s, sc, it->value);
    if (is_poison(fn)) return;
    if (is_range_builtin(s, fn, &is_static)) {
      ra = range_args(s, sc, it, is_static);
      if (!ra.ok) return;
    }
  }
  if (!ra.ok) {
    /* iteration over a constexpr sequence: unrolled */
    SVal *seq = spec_eval(s, sc, it);
    if (is_poison(seq)) return;
    if (seq->kind != SV_TUPLE) {
      spec_error(s, it->loc, "a tile kernel can loop over range(...), tl.range(...), "
                 "tl.static_range(...) or a constexpr tuple, not a %s", sv_kind_name(seq));
      return;
    }
    exec_unrolled(s, sc, st, seq->items, seq->n);
    return;
  }
  if (ra.is_static) {
    int64_t lb = ra.lb->i, ub = ra.ub->i, step = ra.step->i;
    VEC(SVal *) vals = {0};
    for (int64_t i = lb; step > 0 ? i < ub : i > ub;) {
      VEC_PUSH(vals, sv_int(s, i));
      if (vals.len > 4096) {
        spec_error(s, it->loc, "tl.static_range unrolls more than 4096 iterations");
        VEC_FREE(vals);
        return;
      }
      if (__builtin_add_overflow(i, step, &i)) break; /* past INT64_MAX: the range ends */
    }
    exec_unrolled(s, sc, st, vals.data, vals.len);
    VEC_FREE(vals);
    return;
  }
  if (st->target->kind != EX_NAME) {
    spec_error(s, st->target->loc, "the loop variable of a runtime loop must be a single name");
    return;
  }
  /* induction variable type: i64 if any bound is i64, else i32 */
  IrContext *c = s->m->ctx;
  SVal *parts[3] = {ra.lb, ra.ub, ra.step};
  DType ivt = DT_I32;
  for (int i = 0; i < 3; i++) {
    if (parts[i]->kind == SV_TENSOR && dt_bits(parts[i]->v->type->dtype) == 64) ivt = DT_I64;
    if (parts[i]->kind == SV_INT && (parts[i]->i > INT32_MAX || parts[i]->i < INT32_MIN)) ivt = DT_I64;
  }
  const Type *it_ty = ty_scalar(c, ivt);
  Value *bounds[3];
  for (int i = 0; i < 3; i++) {
    bounds[i] = sv_to_value_as(s, parts[i], it_ty, it->loc);
    if (!bounds[i]) return;
  }

  Carried car = {0};
  NameVec fixed = {0};
  Scope before = scope_copy(sc);
  bool ok = collect_carried(s, sc, &st->body, st->target->name, &car, &fixed, st->loc);
  if (!ok) {
    carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
    return;
  }
  int n = car.inits.len;
  Value **operands = xcalloc((size_t)n + 3, sizeof(Value *));
  const Type **rts = xcalloc((size_t)n + 1, sizeof(Type *));
  for (int i = 0; i < 3; i++) operands[i] = bounds[i];
  for (int i = 0; i < n; i++) operands[3 + i] = car.inits.data[i], rts[i] = car.inits.data[i]->type;
  Op *loop = ir_op_new(s->m, s->f, OP_FOR, st->loc, operands, n + 3, rts, n, 1);
  loop->attr.loop = ra.attrs;
  irb_insert(&s->b, loop);
  IrBlock *body = loop->regions[0];
  Value *iv = ir_block_add_arg(s->m, s->f, body, it_ty);
  iv->name = st->target->name;
  Value **args = xcalloc((size_t)n + 1, sizeof(Value *));
  for (int i = 0; i < n; i++) args[i] = ir_block_add_arg(s->m, s->f, body, rts[i]);

  IrBuilder saved = s->b;
  irb_init(&s->b, s->m, s->f, body);
  s->b.loc = st->loc;
  int pos = 0;
  for (int i = 0; i < car.names.len; i++)
    scope_set(s, sc, car.names.data[i], unflatten(s, car.tmpl.data[i], args, &pos));
  scope_set(s, sc, st->target->name, sv_tensor(s, iv));
  frame(s)->runtime_depth++;
  spec_exec_block(s, sc, &st->body);
  frame(s)->runtime_depth--;
  Value **ys = carried_yields(s, sc, &car, args, st->loc, &ok);
  check_fixed(s, sc, &fixed, &before, st->loc);
  if (ok) irb_op(&s->b, OP_YIELD, ys, n, NULL);
  s->b = saved;
  finish_loop_scope(s, sc, &before, &car, ok ? loop->results : NULL);
  if (!ok) {
    /* keep the IR well-formed even after an error */
    Value **fallback = xcalloc((size_t)n + 1, sizeof(Value *));
    for (int i = 0; i < n; i++) fallback[i] = args[i];
    IrBuilder bb;
    irb_init(&bb, s->m, s->f, body);
    irb_op(&bb, OP_YIELD, fallback, n, NULL);
    free(fallback);
  }
  free(ys), free(operands), free(rts), free(args);
  carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
}

static void exec_while(Spec *s, Scope *sc, const Stmt *st) {
  if (st->orelse.n) {
    spec_error(s, st->loc, "'while ... else' is not supported in tile kernels");
    return;
  }
  Carried car = {0};
  NameVec fixed = {0};
  Scope before = scope_copy(sc);
  bool ok = collect_carried(s, sc, &st->body, NULL, &car, &fixed, st->loc);
  if (!ok) {
    carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
    return;
  }
  int n = car.inits.len;
  const Type **rts = xcalloc((size_t)n + 1, sizeof(Type *));
  for (int i = 0; i < n; i++) rts[i] = car.inits.data[i]->type;
  Op *loop = ir_op_new(s->m, s->f, OP_WHILE, st->loc, car.inits.data, n, rts, n, 2);
  irb_insert(&s->b, loop);
  IrBuilder saved = s->b;
  Value **bargs = xcalloc((size_t)n + 1, sizeof(Value *));
  Value **aargs = xcalloc((size_t)n + 1, sizeof(Value *));
  for (int i = 0; i < n; i++) {
    bargs[i] = ir_block_add_arg(s->m, s->f, loop->regions[0], rts[i]);
    aargs[i] = ir_block_add_arg(s->m, s->f, loop->regions[1], rts[i]);
  }
  /* before region: the condition */
  irb_init(&s->b, s->m, s->f, loop->regions[0]);
  s->b.loc = st->loc;
  int pos = 0;
  for (int i = 0; i < car.names.len; i++)
    scope_set(s, sc, car.names.data[i], unflatten(s, car.tmpl.data[i], bargs, &pos));
  SVal *c = spec_eval(s, sc, st->cond);
  Value *cond = NULL;
  if (!is_poison(c)) {
    bool t;
    if (sv_truthy(s, c, st->cond->loc, &t))
      spec_error(s, st->cond->loc, "the condition of a 'while' loop must be a runtime value "
                 "(a constexpr condition would loop forever or never)");
    else
      cond = scalar_condition(s, c, st->cond->loc, "while");
  }
  Value **cops = xcalloc((size_t)n + 2, sizeof(Value *));
  cops[0] = cond;
  for (int i = 0; i < n; i++) cops[1 + i] = bargs[i];
  if (!cond) {
    ok = false;
    cops[0] = irb_const_int(&s->b, ty_scalar(s->m->ctx, DT_I1), 0);
  }
  irb_op(&s->b, OP_CONDITION, cops, n + 1, NULL);
  /* after region: the body */
  irb_init(&s->b, s->m, s->f, loop->regions[1]);
  s->b.loc = st->loc;
  pos = 0;
  for (int i = 0; i < car.names.len; i++)
    scope_set(s, sc, car.names.data[i], unflatten(s, car.tmpl.data[i], aargs, &pos));
  frame(s)->runtime_depth++;
  spec_exec_block(s, sc, &st->body);
  frame(s)->runtime_depth--;
  bool yok = true;
  Value **ys = carried_yields(s, sc, &car, aargs, st->loc, &yok);
  check_fixed(s, sc, &fixed, &before, st->loc);
  if (!yok) {
    for (int i = 0; i < n; i++) ys[i] = aargs[i];
    ok = false;
  }
  irb_op(&s->b, OP_YIELD, ys, n, NULL);
  s->b = saved;
  finish_loop_scope(s, sc, &before, &car, ok ? loop->results : NULL);
  free(ys), free(cops), free(rts), free(bargs), free(aargs);
  carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
}

/* ---- imports --------------------------------------------------------------------------- */

void spec_bind_import(Spec *s, Scope *sc, const Stmt *st) {
  if (st->kind == ST_IMPORT) {
    SVal *m = sv_new(s, SV_MODULE);
    if (st->asname) {
      m->s = st->module;
      scope_set(s, sc, st->asname, m);
    } else {
      const char *dot = strchr(st->module, '.');
      m->s = dot ? arena_strndup(s->arena, st->module, (size_t)(dot - st->module)) : st->module;
      scope_set(s, sc, m->s, m);
    }
    return;
  }
  for (int i = 0; i < st->nnames; i++) {
    const char *n = st->names[i];
    const char *as = st->asnames && st->asnames[i] ? st->asnames[i] : n;
    if (!strcmp(n, "*")) continue;
    SVal *v = spec_module_attr(s, st->module, n);
    if (!v) {
      /* `from pkg import submodule` */
      v = sv_new(s, SV_MODULE);
      v->s = arena_printf(s->arena, "%s.%s", st->module, n);
    }
    scope_set(s, sc, as, v);
  }
}

/* ---- statements --------------------------------------------------------------------------- */

static void exec_stmt(Spec *s, Scope *sc, const Stmt *st) {
  spec_at(s, st->loc);
  switch (st->kind) {
  case ST_EXPR:
    if (st->value->kind == EX_STR) return; /* docstring */
    (void)spec_eval(s, sc, st->value);
    return;
  case ST_ASSIGN: {
    SVal *v = spec_eval(s, sc, st->value);
    for (int i = 0; i < st->ntargets; i++) assign(s, sc, st->targets[i], v);
    return;
  }
  case ST_AUGASSIGN: {
    if (st->target->kind != EX_NAME) {
      assign(s, sc, st->target, s->poison);
      return;
    }
    SVal *cur = spec_eval(s, sc, st->target);
    SVal *rhs = spec_eval(s, sc, st->value);
    scope_set(s, sc, st->target->name, spec_binop(s, st->op, cur, rhs, st->loc));
    return;
  }
  case ST_ANNASSIGN: {
    if (!st->value) return;
    SVal *v = spec_eval(s, sc, st->value);
    SVal *ann = spec_eval(s, sc, st->annotation);
    if (!is_poison(v) && !is_poison(ann) && ann->kind == SV_CONSTEXPR_T && !sv_is_constexpr(v)) {
      spec_error(s, st->value->loc, "'%s' is declared tl.constexpr but its value is a runtime %s",
                 st->target->kind == EX_NAME ? st->target->name : "target", sv_kind_name(v));
      v = s->poison;
    }
    assign(s, sc, st->target, v);
    return;
  }
  case ST_IF: exec_if(s, sc, st); return;
  case ST_FOR: exec_for(s, sc, st); return;
  case ST_WHILE: exec_while(s, sc, st); return;
  case ST_RETURN: {
    Frame *fr = frame(s);
    SVal *v = st->value ? spec_eval(s, sc, st->value) : s->none;
    if (fr->runtime_depth > 0) {
      spec_error(s, st->loc, "'return' inside a runtime 'if', 'for' or 'while' is not supported; "
                 "return at the end of the function");
      return;
    }
    fr->ret = v;
    fr->returned = true;
    return;
  }
  case ST_PASS: return;
  case ST_BREAK: case ST_CONTINUE:
    spec_error(s, st->loc, "'%s' is not supported in tile kernels (loops must run to their bound)",
               st->kind == ST_BREAK ? "break" : "continue");
    return;
  case ST_ASSERT: {
    SVal *c = spec_eval(s, sc, st->cond);
    if (is_poison(c)) return;
    bool t;
    if (sv_truthy(s, c, st->cond->loc, &t)) {
      if (!t) {
        SVal *m = st->msg ? spec_eval(s, sc, st->msg) : NULL;
        if (m && m->kind == SV_STR) spec_error(s, st->loc, "assertion failed: %s", m->s);
        else spec_error(s, st->loc, "assertion failed");
      }
    }
    /* runtime asserts are device_assert, which is off outside debug mode */
    return;
  }
  case ST_IMPORT: case ST_IMPORTFROM: spec_bind_import(s, sc, st); return;
  case ST_GLOBAL: return;
  case ST_DEF:
    spec_error(s, st->loc, "nested function definitions are not supported; define '%s' at module "
               "level with @triton.jit", st->def->name);
    return;
  case ST_DEL:
    for (int i = 0; i < st->ntargets; i++)
      if (st->targets[i]->kind == EX_NAME) scope_remove(sc, st->targets[i]->name);
    return;
  default:
    spec_error(s, st->loc, "unsupported statement");
    return;
  }
}

void spec_exec_block(Spec *s, Scope *sc, const Block *b) {
  for (int i = 0; i < b->n; i++) {
    if (s->depth && frame(s)->returned) {
      return;
    }
    if (!spec_step(s, b->stmts[i]->loc, 1)) return;
    exec_stmt(s, sc, b->stmts[i]);
  }
}

/* ---- calls of module functions ---------------------------------------------------------------- */

SVal *spec_call_function(Spec *s, FuncDef *fn, SVal **args, int nargs, const Keyword *kw,
                         SVal **kwvals, int nkw, Loc loc) {
  for (int i = 0; i < s->depth; i++)
    if (s->frames[i]->fn == fn) {
      spec_error(s, loc, "recursive call of '%s': tile functions are inlined, so recursion is not "
                 "supported", fn->name);
      spec_note(s, fn->loc, "'%s' is defined here", fn->name);
      return s->poison;
    }
  if (s->depth >= (int)(sizeof s->frames / sizeof s->frames[0])) {
    spec_error(s, loc, "calls nested too deeply");
    return s->poison;
  }
  if (nargs > fn->nparams) {
    spec_error(s, loc, "'%s' takes %d argument%s but %d were given", fn->name, fn->nparams,
               fn->nparams == 1 ? "" : "s", nargs);
    spec_note(s, fn->loc, "'%s' is defined here", fn->name);
    return s->poison;
  }
  Scope sc = {.parent = s->globals};
  SVal **bound = xcalloc((size_t)fn->nparams + 1, sizeof(SVal *));
  bool ok = true;
  for (int i = 0; i < nargs; i++) bound[i] = args[i];
  for (int k = 0; k < nkw; k++) {
    int idx = -1;
    for (int i = 0; i < fn->nparams; i++)
      if (!strcmp(fn->params[i].name, kw[k].name)) idx = i;
    if (idx < 0) {
      spec_error(s, kw[k].loc, "'%s' has no parameter named '%s'", fn->name, kw[k].name);
      spec_note(s, fn->loc, "'%s' is defined here", fn->name);
      ok = false;
    } else if (bound[idx]) {
      spec_error(s, kw[k].loc, "argument '%s' of '%s' is given twice", kw[k].name, fn->name);
      ok = false;
    } else {
      bound[idx] = kwvals[k];
    }
  }
  for (int i = 0; i < fn->nparams && ok; i++) {
    if (bound[i]) continue;
    if (fn->params[i].default_) {
      bound[i] = spec_eval(s, s->globals, fn->params[i].default_);
      continue;
    }
    spec_error(s, loc, "missing argument '%s' in call to '%s'", fn->params[i].name, fn->name);
    spec_note(s, fn->params[i].loc, "parameter '%s' is declared here", fn->params[i].name);
    ok = false;
  }
  if (!ok) {
    free(bound);
    return s->poison;
  }
  for (int i = 0; i < fn->nparams; i++) scope_set(s, &sc, fn->params[i].name, bound[i]);
  free(bound);
  Frame fr = {.fn = fn, .call_loc = loc};
  s->frames[s->depth++] = &fr;
  spec_exec_block(s, &sc, &fn->body);
  s->depth--;
  VEC_FREE(sc.vars);
  return fr.ret ? fr.ret : s->none;
}
