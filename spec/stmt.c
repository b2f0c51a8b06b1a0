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
 * time, so only the branch taken and the unrolled copies produce IR.
 *
 * `return`, `break` and `continue` under runtime control flow set the exit
 * flags of exits.c (hidden variables, merged and carried like the others);
 * the statements after a possible exit run under a guard IF, and a range
 * loop that can break or return is built as a WHILE that tests the flags. */
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
  spec_error(s, loc, "%s is %s %s but %s %s; %s must keep its type", spec_var_label(s, name), a.data,
             where_want, b.data, where_got,
             !strcmp(name, SPEC_EXIT_VALUE) ? "a function's return value" : "a variable");
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

void scope_remove(Scope *sc, const char *name) {
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

/* One branch of a runtime IF: what runs in it, given the branch's scope. */
typedef struct Arm {
  void (*run)(Spec *s, Scope *sc, const void *ctx);
  const void *ctx;
} Arm;

static void run_block(Spec *s, Scope *sc, const void *ctx) { spec_exec_block(s, sc, ctx); }

/* The merge of a runtime IF's two branch scopes into the enclosing one. */
typedef struct Merge {
  Scope *sc, *br;              /* the enclosing scope, the two branches' */
  IrBuilder ends[2];           /* the end of each branch, where its yield goes */
  Loc loc;
  Value *cond;
  NameVec merged;              /* names that become results of the IF ... */
  VEC(SVal *) tmpl;            /* ... shaped like these */
  ValueVec yv[2];              /* each branch's yield operands */
  NameVec by_cond;             /* flags that are exactly cond (or its negation) */
  VEC(bool) negated;
  bool ok;
} Merge;

/* Yield v (of name n) from branch r and its counterpart from the other
 * branch: `other` when it has the same structure and types, else zeros of
 * the same types (a branch whose value does not matter). */
static void merge_one_sided(Spec *s, Merge *M, const char *n, int r, SVal *v, SVal *other) {
  ValueVec fl = {0}, fo = {0};
  s->b = M->ends[r];
  if (!flatten(s, v, &fl, n, M->loc)) {
    M->ok = false;
    VEC_FREE(fl);
    return;
  }
  bool reuse = other && !is_poison(other) && carriable(other) && same_structure(v, other);
  if (reuse) {
    s->b = M->ends[1 - r];
    reuse = flatten(s, other, &fo, n, M->loc) && fo.len == fl.len;
    for (int k = 0; reuse && k < fl.len; k++) reuse = fo.data[k]->type == fl.data[k]->type;
  }
  if (!reuse) {
    fo.len = 0;
    s->b = M->ends[1 - r];
    for (int k = 0; k < fl.len; k++) {
      const Type *t = fl.data[k]->type;
      VEC_PUSH(fo, dt_is_float(t->dtype) ? irb_const_float(&s->b, t, 0) : irb_const_int(&s->b, t, 0));
    }
  }
  for (int k = 0; k < fl.len; k++) {
    VEC_PUSH(M->yv[r], fl.data[k]);
    VEC_PUSH(M->yv[1 - r], fo.data[k]);
  }
  VEC_PUSH(M->merged, n);
  VEC_PUSH(M->tmpl, v);
  VEC_FREE(fl), VEC_FREE(fo);
}

/* Both branches' values of n matter: yield each (constexpr numbers adapt to
 * the other branch's type). */
static void merge_both(Spec *s, Merge *M, const char *n, SVal *tv, SVal *ev) {
  const char *label = spec_var_label(s, n);
  bool is_value = !strcmp(n, SPEC_EXIT_VALUE);
  if (!carriable(tv) || !carriable(ev) || !same_structure(tv, ev)) {
    if (is_value)
      spec_error(s, M->loc, "'%s' returns %s %s on one path and %s %s on another; every path must return "
                 "the same kind of value", frame(s)->fn->name, spec_article(kind_text(s, tv)), kind_text(s, tv),
                 spec_article(kind_text(s, ev)), kind_text(s, ev));
    else
      spec_error(s, M->loc, "%s is %s %s in one branch and %s %s in the other; after a runtime "
                 "'if' it must be the same kind of value", label, spec_article(kind_text(s, tv)), kind_text(s, tv),
                 spec_article(kind_text(s, ev)), kind_text(s, ev));
    M->ok = false;
    return;
  }
  int before[2] = {M->yv[0].len, M->yv[1].len};
  for (int r = 0; r < 2; r++) {
    s->b = M->ends[r];
    if (!flatten(s, r ? ev : tv, &M->yv[r], n, M->loc)) M->ok = false;
  }
  if (!M->ok) return;
  for (int k = 0; k < M->yv[0].len - before[0]; k++) {
    Value **a = &M->yv[0].data[before[0] + k], **b = &M->yv[1].data[before[1] + k];
    if ((*a)->type == (*b)->type) continue;
    bool a_lit = (*a)->def && (*a)->def->kind == OP_CONSTANT && !(*a)->type->rank;
    s->b = M->ends[a_lit ? 0 : 1];
    if (is_value && !(a_lit || ((*b)->def && (*b)->def->kind == OP_CONSTANT && !(*b)->type->rank))) {
      StrBuf ta, tb;
      sb_init(&ta), sb_init(&tb);
      ty_print(&ta, (*a)->type), ty_print(&tb, (*b)->type);
      spec_error(s, M->loc, "'%s' returns %s on one path and %s on another; every path must return one type",
                 frame(s)->fn->name, ta.data, tb.data);
      sb_free(&ta), sb_free(&tb);
      M->ok = false;
      return;
    }
    Value *fixed = coerce_for_yield(s, a_lit ? *a : *b, a_lit ? (*b)->type : (*a)->type, n, M->loc,
                                    a_lit ? "in the else branch" : "in the then branch",
                                    a_lit ? "in the then branch" : "in the else branch");
    if (!fixed) {
      M->ok = false;
      return;
    }
    if (a_lit) *a = fixed; else *b = fixed;
  }
  VEC_PUSH(M->merged, n);
  VEC_PUSH(M->tmpl, tv);
}

/* An exit flag: absent is False; True in one branch and False in the other
 * is the condition itself; False against the value from before the IF keeps
 * it (that only happens in an exit guard, whose running branch starts with
 * every flag False). */
static void merge_flag(Spec *s, Merge *M, const char *n, SVal *tv, SVal *ev, SVal *ov) {
  if (!tv) tv = s->false_;
  if (!ev) ev = s->false_;
  if (tv == ev || is_poison(tv) || is_poison(ev)) {
    scope_set(s, M->sc, n, is_poison(tv) || is_poison(ev) ? s->poison : tv);
    return;
  }
  if (tv->kind == SV_BOOL && ev->kind == SV_BOOL) {
    if (tv->i == ev->i) {
      scope_set(s, M->sc, n, tv);
      return;
    }
    VEC_PUSH(M->by_cond, n);
    VEC_PUSH(M->negated, !tv->i);
    return;
  }
  bool tfalse = tv->kind == SV_BOOL && !tv->i, efalse = ev->kind == SV_BOOL && !ev->i;
  if ((tfalse && ev == ov) || (efalse && tv == ov)) {
    scope_set(s, M->sc, n, ov);
    return;
  }
  merge_both(s, M, n, tv, ev);
}

static void merge_name(Spec *s, Merge *M, const char *n, bool only_existing) {
  SVal *tv = scope_get_local(&M->br[0], n), *ev = scope_get_local(&M->br[1], n);
  SVal *ov = scope_get_local(M->sc, n);
  if (only_existing && !ov && !spec_is_hidden_name(n)) return;
  if (spec_is_exit_flag(n)) {
    merge_flag(s, M, n, tv, ev, ov);
    return;
  }
  /* Whose value does not matter: for a variable, a branch that returned;
   * for the return value, one that cannot have returned. */
  bool is_value = !strcmp(n, SPEC_EXIT_VALUE), dc[2];
  for (int r = 0; r < 2; r++)
    dc[r] = is_value ? !spec_exit_may_return(&M->br[r]) : spec_exit_returned(&M->br[r]);
  if (dc[0] && dc[1]) return; /* what follows is dead: keep the value from before, if any */
  if (dc[0] || dc[1]) {
    int live = dc[0] ? 1 : 0;
    SVal *v = live ? ev : tv, *other = live ? tv : ev;
    if (!v) {
      if (ov) scope_remove(M->sc, n);
      return;
    }
    if (is_poison(v) || sv_is_constexpr(v) || v == ov || !carriable(v)) {
      scope_set(s, M->sc, n, v);
      return;
    }
    merge_one_sided(s, M, n, live, v, other);
    return;
  }
  if (tv == ev) {
    if (tv != ov) scope_set(s, M->sc, n, tv);
    return;
  }
  if (!tv || !ev) {
    if (is_value) {
      /* a bare `return` on one side: reported at the function's end */
      merge_one_sided(s, M, n, tv ? 0 : 1, tv ? tv : ev, NULL);
      return;
    }
    /* defined in one branch only: not visible after the if */
    if (ov) scope_set(s, M->sc, n, tv ? tv : ev);
    return;
  }
  if (is_poison(tv) || is_poison(ev)) {
    scope_set(s, M->sc, n, s->poison);
    return;
  }
  if (sv_is_constexpr(tv) && sv_is_constexpr(ev)) {
    SVal *eq = spec_compare(s, AOP_EQ, tv, ev, M->loc);
    if (eq->kind == SV_BOOL && eq->i) {
      scope_set(s, M->sc, n, tv);
      return;
    }
  }
  merge_both(s, M, n, tv, ev);
}

/* A runtime IF on `cond` (i1) running arms[0] or arms[1], each in a copy of
 * sc; the variables they change become the IF's results.  With
 * only_existing (an exit guard), variables first defined inside are
 * dropped: nothing after the guard in this block can see them. */
static void runtime_if(Spec *s, Scope *sc, Loc loc, Value *cond, const Arm arms[2], bool only_existing) {
  IrBuilder saved = s->b;
  Value *ops[1] = {cond};
  Op *tmp = ir_op_new(s->m, s->f, OP_IF, loc, ops, 1, NULL, 0, 2);
  irb_insert(&s->b, tmp);
  frame(s)->runtime_depth++;
  Scope br[2] = {scope_copy(sc), scope_copy(sc)};
  Merge M = {.sc = sc, .br = br, .loc = loc, .cond = cond, .ok = true};
  for (int r = 0; r < 2; r++) {
    irb_init(&s->b, s->m, s->f, tmp->regions[r]);
    s->b.loc = loc;
    if (arms[r].run) arms[r].run(s, &br[r], arms[r].ctx);
    M.ends[r] = s->b;
  }
  frame(s)->runtime_depth--;

  NameVec names = {0};
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < br[r].vars.len; i++) add_name(&names, br[r].vars.data[i].name);
  for (int i = 0; i < names.len; i++) merge_name(s, &M, names.data[i], only_existing);
  if (M.ok) {
    int nres = M.yv[0].len;
    const Type **rts = ARENA_ARRAY(s->arena, const Type *, nres + 1);
    for (int i = 0; i < nres; i++) rts[i] = M.yv[0].data[i]->type;
    for (int r = 0; r < 2; r++) {
      s->b = M.ends[r];
      irb_op(&s->b, OP_YIELD, M.yv[r].data, nres, NULL);
    }
    s->b = saved;
    Op *op = ir_op_new(s->m, s->f, OP_IF, loc, ops, 1, rts, nres, 0);
    op->regions = tmp->regions;
    op->nregions = 2;
    for (int r = 0; r < 2; r++) op->regions[r]->parent = op;
    ir_insert_before(tmp, op);
    ir_remove(tmp);
    int pos = 0;
    for (int i = 0; i < M.merged.len; i++)
      scope_set(s, sc, M.merged.data[i], unflatten(s, M.tmpl.data[i], op->results, &pos));
    spec_at(s, loc);
    for (int i = 0; i < M.by_cond.len; i++)
      scope_set(s, sc, M.by_cond.data[i], sv_tensor(s, M.negated.data[i] ? irb_unary(&s->b, OP_NOT, cond) : cond));
  } else {
    s->b = saved;
    for (int i = 0; i < M.merged.len; i++) scope_set(s, sc, M.merged.data[i], s->poison);
    for (int i = 0; i < M.by_cond.len; i++) scope_set(s, sc, M.by_cond.data[i], s->poison);
  }
  VEC_FREE(names), VEC_FREE(M.merged), VEC_FREE(M.tmpl), VEC_FREE(M.by_cond), VEC_FREE(M.negated);
  VEC_FREE(M.yv[0]), VEC_FREE(M.yv[1]);
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
  if (!cond) return;
  Arm arms[2] = {{run_block, &st->body}, {run_block, &st->orelse}};
  runtime_if(s, sc, st->loc, cond, arms, false);
}

/* ---- exit guards ----------------------------------------------------------------------- */

/* After a possible exit (e.g. `if c: return`), what follows runs under
 *   if stop { } else { <every flag False> rest }
 * The skipping branch knows its flag is set when only one flag is live. */
typedef struct Guard {
  const char *only;
  void (*rest)(Spec *s, Scope *sc, const void *ctx);
  const void *ctx;
} Guard;

static void guard_skip(Spec *s, Scope *sc, const void *ctx) {
  const Guard *g = ctx;
  if (g->only) scope_set(s, sc, g->only, s->true_);
}

static void guard_run(Spec *s, Scope *sc, const void *ctx) {
  const Guard *g = ctx;
  spec_exit_clear(s, sc);
  g->rest(s, sc, g->ctx);
}

static void run_guarded(Spec *s, Scope *sc, Loc loc, const SpecExits *ex,
                        void (*rest)(Spec *, Scope *, const void *), const void *ctx) {
  /* guards nest (one per possible exit in a row): they count as evaluation depth */
  if (s->eval_depth >= SPEC_MAX_EVAL_DEPTH) {
    spec_error(s, loc, "too many possible exits in a row (more than %d nested guards)", SPEC_MAX_EVAL_DEPTH);
    s->over_budget = true;
    return;
  }
  Guard g = {ex->only, rest, ctx};
  Arm arms[2] = {{guard_skip, &g}, {guard_run, &g}};
  s->eval_depth++;
  runtime_if(s, sc, loc, ex->stop, arms, true);
  s->eval_depth--;
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

/* A flag present in sc joins the carried values (after collect_carried). */
static bool carry_flag(Spec *s, Scope *sc, Carried *c, const char *n, Loc loc) {
  SVal *v = scope_get_local(sc, n);
  if (!v || is_poison(v)) return false;
  int before = c->inits.len;
  if (!flatten(s, v, &c->inits, n, loc)) return false;
  VEC_PUSH(c->names, n);
  VEC_PUSH(c->tmpl, v);
  VEC_PUSH(c->counts, c->inits.len - before);
  return true;
}

/* The flags a loop's body may set, False before it; true when the loop
 * must be able to stop early (a WHILE that also tests them). */
static bool prepare_exits(Spec *s, Scope *sc, const SpecLoopExits *lx) {
  if (lx->has_break) scope_set(s, sc, SPEC_EXIT_BREAK, s->false_);
  if (lx->has_return) scope_set(s, sc, SPEC_EXIT_RETURN, s->false_);
  return lx->has_break || lx->has_return;
}

static bool carry_exits(Spec *s, Scope *sc, Carried *c, const SpecLoopExits *lx, Loc loc) {
  bool ok = true;
  if (lx->has_break) ok &= carry_flag(s, sc, c, SPEC_EXIT_BREAK, loc);
  if (lx->has_return) ok &= carry_flag(s, sc, c, SPEC_EXIT_RETURN, loc);
  return ok;
}

/* Run a runtime loop's body in sc: the flags are False when it starts (the
 * loop's condition tested them), $continue ends with the iteration. */
static void exec_loop_body(Spec *s, Scope *sc, const Block *body) {
  Frame *fr = frame(s);
  spec_exit_clear(s, sc);
  fr->runtime_depth++, fr->loop_depth++, fr->runtime_loop_depth++;
  spec_exec_block(s, sc, body);
  fr->runtime_depth--, fr->loop_depth--, fr->runtime_loop_depth--;
  scope_remove(sc, SPEC_EXIT_CONTINUE);
}

/* i1: none of the carried flags (values[...] as laid out by c) is set. */
static Value *no_exit(Spec *s, const Carried *c, Value **values, Value *cond) {
  int pos = 0;
  for (int i = 0; i < c->names.len; i++) {
    if (spec_is_exit_flag(c->names.data[i])) {
      Value *go = irb_unary(&s->b, OP_NOT, values[pos]);
      cond = cond ? irb_binary(&s->b, OP_AND, cond, go) : go;
    }
    pos += c->counts.data[i];
  }
  return cond;
}

/* ---- unrolled loops (tl.static_range, constexpr sequences) ------------------------ */

typedef struct Unrolled {
  const Stmt *st;
  SVal **values;
  int n, from;
} Unrolled;

/* Iterations from..n; after one that may have left the loop, the rest run
 * under a guard. */
static void unrolled_from(Spec *s, Scope *sc, const void *ctx) {
  const Unrolled *u = ctx;
  for (int i = u->from; i < u->n && !frame(s)->returned; i++) {
    assign(s, sc, u->st->target, u->values[i]);
    spec_exec_block(s, sc, &u->st->body);
    scope_remove(sc, SPEC_EXIT_CONTINUE);
    SpecExits ex = spec_exit_state(s, sc, u->st->loc);
    if (ex.kind == EXITS_ALWAYS) return;
    if (ex.kind == EXITS_MAYBE) {
      Unrolled next = {u->st, u->values, u->n, i + 1};
      if (i + 1 < u->n) run_guarded(s, sc, u->st->loc, &ex, unrolled_from, &next);
      return;
    }
  }
}

static void exec_unrolled(Spec *s, Scope *sc, const Stmt *st, SVal **values, int n) {
  SpecLoopSave save;
  spec_loop_enter(s, sc, &save);
  frame(s)->loop_depth++;
  Unrolled u = {st, values, n, 0};
  unrolled_from(s, sc, &u);
  frame(s)->loop_depth--;
  spec_loop_leave(s, sc, &save);
}

/* ---- runtime for ------------------------------------------------------------------ */

/* iv has not passed ub, the test cg_control.c makes for a FOR. */
static Value *in_range(Spec *s, Value *iv, Value *ub, SVal *step_sv, Value *step) {
  if (step_sv->kind == SV_INT || step_sv->kind == SV_BOOL)
    return irb_cmp(&s->b, step_sv->i > 0 ? CMP_LT : CMP_GT, iv, ub);
  Value *up = irb_cmp(&s->b, CMP_LT, iv, ub), *down = irb_cmp(&s->b, CMP_GT, iv, ub);
  Value *pos = irb_cmp(&s->b, CMP_GT, step, irb_const_int(&s->b, step->type, 0));
  return irb_select(&s->b, pos, up, down);
}

/* A range loop that can break or return: a WHILE carrying the induction
 * variable and the flags, whose condition is `iv in range and no exit`. */
static void for_as_while(Spec *s, Scope *sc, const Stmt *st, Value **bounds, SVal *step_sv, Carried *car,
                         NameVec *fixed, Scope *before) {
  int n = car->inits.len;
  const Type *it_ty = bounds[0]->type;
  Value **inits = xcalloc((size_t)n + 2, sizeof(Value *));
  const Type **rts = xcalloc((size_t)n + 2, sizeof(Type *));
  inits[0] = bounds[0], rts[0] = it_ty;
  for (int i = 0; i < n; i++) inits[1 + i] = car->inits.data[i], rts[1 + i] = car->inits.data[i]->type;
  Op *loop = ir_op_new(s->m, s->f, OP_WHILE, st->loc, inits, n + 1, rts, n + 1, 2);
  irb_insert(&s->b, loop);
  IrBuilder saved = s->b;
  Value **bargs = xcalloc((size_t)n + 2, sizeof(Value *)), **aargs = xcalloc((size_t)n + 2, sizeof(Value *));
  for (int i = 0; i <= n; i++) {
    bargs[i] = ir_block_add_arg(s->m, s->f, loop->regions[0], rts[i]);
    aargs[i] = ir_block_add_arg(s->m, s->f, loop->regions[1], rts[i]);
  }
  bargs[0]->name = aargs[0]->name = st->target->name;
  irb_init(&s->b, s->m, s->f, loop->regions[0]);
  s->b.loc = st->loc;
  Value *go = no_exit(s, car, bargs + 1, in_range(s, bargs[0], bounds[1], step_sv, bounds[2]));
  Value **cops = xcalloc((size_t)n + 3, sizeof(Value *));
  cops[0] = go;
  for (int i = 0; i <= n; i++) cops[1 + i] = bargs[i];
  irb_op(&s->b, OP_CONDITION, cops, n + 2, NULL);

  irb_init(&s->b, s->m, s->f, loop->regions[1]);
  s->b.loc = st->loc;
  int pos = 0;
  for (int i = 0; i < car->names.len; i++)
    scope_set(s, sc, car->names.data[i], unflatten(s, car->tmpl.data[i], aargs + 1, &pos));
  scope_set(s, sc, st->target->name, sv_tensor(s, aargs[0]));
  exec_loop_body(s, sc, &st->body);
  bool ok = true;
  Value **ys = carried_yields(s, sc, car, aargs + 1, st->loc, &ok);
  check_fixed(s, sc, fixed, before, st->loc);
  Value **yops = xcalloc((size_t)n + 2, sizeof(Value *));
  s->b.loc = st->loc;
  yops[0] = irb_binary(&s->b, OP_ADD, aargs[0], bounds[2]);
  for (int i = 0; i < n; i++) yops[1 + i] = ok ? ys[i] : aargs[1 + i];
  irb_op(&s->b, OP_YIELD, yops, n + 1, NULL);
  s->b = saved;
  finish_loop_scope(s, sc, before, car, ok ? loop->results + 1 : NULL);
  free(inits), free(rts), free(bargs), free(aargs), free(cops), free(ys), free(yops);
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

  SpecLoopExits lx = spec_loop_exits(&st->body);
  SpecLoopSave save;
  spec_loop_enter(s, sc, &save);
  bool as_while = prepare_exits(s, sc, &lx);
  Carried car = {0};
  NameVec fixed = {0};
  Scope before = scope_copy(sc);
  bool ok = collect_carried(s, sc, &st->body, st->target->name, &car, &fixed, st->loc) &&
            carry_exits(s, sc, &car, &lx, st->loc);
  if (!ok) {
    carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
    spec_loop_leave(s, sc, &save);
    return;
  }
  if (as_while) {
    const LoopAttrs *la = &ra.attrs;
    if (la->num_stages > 1 || la->unroll > 1 || la->flatten || la->warp_specialize)
      diag_warning(s->d, it->loc, "this loop can stop early (break or return), so it is not pipelined, "
                   "unrolled or specialized: the options of tl.range are ignored");
    for_as_while(s, sc, st, bounds, ra.step, &car, &fixed, &before);
    carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
    spec_loop_leave(s, sc, &save);
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
  exec_loop_body(s, sc, &st->body);
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
  spec_loop_leave(s, sc, &save);
}

/* ---- while ----------------------------------------------------------------------------- */

/* The condition of `while`, evaluated in sc: a runtime i1, NULL after reporting. */
static Value *while_condition(Spec *s, Scope *sc, const Stmt *st) {
  SVal *c = spec_eval(s, sc, st->cond);
  if (is_poison(c)) return NULL;
  bool t;
  if (sv_truthy(s, c, st->cond->loc, &t)) {
    spec_error(s, st->cond->loc, "the condition of a 'while' loop must be a runtime value "
               "(a constexpr condition would loop forever or never)");
    return NULL;
  }
  return scalar_condition(s, c, st->cond->loc, "while");
}

/* After a break or return the condition is not evaluated again (it may have
 * effects: `while tl.atomic_cas(lock, 0, 1) == 1`):
 *   if stop { False } else { cond }, through the hidden variable $cond. */
static const char COND_VAR[] = "$cond";

static void cond_skip(Spec *s, Scope *sc, const void *ctx) {
  (void)ctx;
  scope_set(s, sc, COND_VAR, s->false_);
}

static void cond_eval(Spec *s, Scope *sc, const void *ctx) {
  Value *c = while_condition(s, sc, ctx);
  scope_set(s, sc, COND_VAR, c ? sv_tensor(s, c) : s->poison);
}

static Value *guarded_while_condition(Spec *s, Scope *sc, const Stmt *st) {
  SpecExits ex = spec_exit_state(s, sc, st->loc);
  if (ex.kind != EXITS_MAYBE) return while_condition(s, sc, st);
  Arm arms[2] = {{cond_skip, NULL}, {cond_eval, st}};
  runtime_if(s, sc, st->cond->loc, ex.stop, arms, false);
  SVal *c = scope_get_local(sc, COND_VAR);
  scope_remove(sc, COND_VAR);
  return c && c->kind == SV_TENSOR ? c->v : NULL;
}

static void exec_while(Spec *s, Scope *sc, const Stmt *st) {
  if (st->orelse.n) {
    spec_error(s, st->loc, "'while ... else' is not supported in tile kernels");
    return;
  }
  SpecLoopExits lx = spec_loop_exits(&st->body);
  SpecLoopSave save;
  spec_loop_enter(s, sc, &save);
  prepare_exits(s, sc, &lx);
  Carried car = {0};
  NameVec fixed = {0};
  Scope before = scope_copy(sc);
  bool ok = collect_carried(s, sc, &st->body, NULL, &car, &fixed, st->loc) &&
            carry_exits(s, sc, &car, &lx, st->loc);
  if (!ok) {
    carried_free(&car), VEC_FREE(fixed), VEC_FREE(before.vars);
    spec_loop_leave(s, sc, &save);
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
  Value *cond = guarded_while_condition(s, sc, st);
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
  exec_loop_body(s, sc, &st->body);
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
  spec_loop_leave(s, sc, &save);
}

/* ---- imports --------------------------------------------------------------------------- */

/* A name an import cannot provide to a kernel: an error on its first use. */
static SVal *unavailable(Spec *s, const Stmt *st, bool unknown_module, const char *name, bool *reported) {
  SVal *v = sv_new(s, SV_UNAVAILABLE);
  Unavailable *u = ARENA_NEW(s->arena, Unavailable);
  u->unknown_module = unknown_module;
  u->module = st->module;
  u->name = name;
  u->import_loc = st->loc;
  u->reported = reported;
  v->un = u;
  return v;
}

/* Bind the names of an import.  Modules tlc knows (spec_module_known) bind
 * as modules; from another module (torch, a package of the project) the
 * names bind as unavailable: accepted at module level, where host code
 * imports freely, and one error at the import when a kernel uses one. */
void spec_bind_import(Spec *s, Scope *sc, const Stmt *st) {
  bool *reported = ARENA_NEW(s->arena, bool);
  bool known = spec_module_known(st->module);
  if (st->kind == ST_IMPORT) {
    const char *dot = strchr(st->module, '.');
    const char *top = dot ? arena_strndup(s->arena, st->module, (size_t)(dot - st->module)) : st->module;
    SVal *m;
    if (known || (!st->asname && spec_module_known(top))) {
      /* `import triton.foo` binds `triton`; what is missing shows on use */
      m = sv_new(s, SV_MODULE);
      m->s = st->asname ? st->module : top;
    } else {
      m = unavailable(s, st, true, NULL, reported);
    }
    scope_set(s, sc, st->asname ? st->asname : top, m);
    return;
  }
  for (int i = 0; i < st->nnames; i++) {
    const char *n = st->names[i];
    const char *as = st->asnames && st->asnames[i] ? st->asnames[i] : n;
    if (!strcmp(n, "*")) continue;
    SVal *v = known ? spec_module_attr(s, st->module, n) : NULL;
    if (!v) {
      const char *sub = arena_printf(s->arena, "%s.%s", st->module, n);
      if (spec_module_known(sub)) {
        /* `from triton.language import math` */
        v = sv_new(s, SV_MODULE);
        v->s = sub;
      } else {
        /* each missing name of a known module is its own error */
        v = unavailable(s, st, !known, n, known ? ARENA_NEW(s->arena, bool) : reported);
      }
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
    if (fr->runtime_depth == 0) {
      fr->ret = v;
      fr->returned = true;
      return;
    }
    /* under runtime control flow: the flags (exits.c) */
    if (v->kind == SV_NONE) {
      if (!fr->none_ret.line) fr->none_ret = st->loc;
    } else if (fr->runtime_loop_depth > 0) {
      spec_error(s, st->value->loc, "returning a value from inside a runtime loop is not supported; "
                 "keep it in a variable, 'break', and return it after the loop");
      v = s->poison;
    } else if (!fr->value_ret.line) {
      fr->value_ret = st->loc;
    }
    if (v->kind != SV_NONE) scope_set(s, sc, SPEC_EXIT_VALUE, v);
    scope_set(s, sc, SPEC_EXIT_RETURN, s->true_);
    return;
  }
  case ST_PASS: return;
  case ST_BREAK: case ST_CONTINUE:
    if (!frame(s)->loop_depth) {
      spec_error(s, st->loc, "'%s' outside a loop", st->kind == ST_BREAK ? "break" : "continue");
      return;
    }
    scope_set(s, sc, st->kind == ST_BREAK ? SPEC_EXIT_BREAK : SPEC_EXIT_CONTINUE, s->true_);
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
      return;
    }
    /* on a runtime value it is tl.device_assert: checked in debug mode only */
    if (s->req->debug && c->kind == SV_TENSOR) {
      SVal *m = st->msg ? spec_eval(s, sc, st->msg) : NULL;
      spec_device_assert(s, c, NULL, m && m->kind == SV_STR ? m->s : "", st->loc, st->cond->loc);
    }
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

typedef struct Rest {
  const Block *b;
  int from;
} Rest;

static void exec_rest(Spec *s, Scope *sc, const void *ctx);

/* Statements from..n of b; after one that may have left (return, break,
 * continue under a runtime condition) the rest run under a guard. */
static void exec_from(Spec *s, Scope *sc, const Block *b, int from) {
  for (int i = from; i < b->n; i++) {
    if (s->depth && frame(s)->returned) return;
    SpecExits ex = spec_exit_state(s, sc, b->stmts[i]->loc);
    if (ex.kind == EXITS_ALWAYS) return;
    if (ex.kind == EXITS_MAYBE) {
      Rest r = {b, i};
      run_guarded(s, sc, b->stmts[i]->loc, &ex, exec_rest, &r);
      return;
    }
    if (!spec_step(s, b->stmts[i]->loc, 1)) return;
    exec_stmt(s, sc, b->stmts[i]);
  }
}

static void exec_rest(Spec *s, Scope *sc, const void *ctx) {
  const Rest *r = ctx;
  exec_from(s, sc, r->b, r->from);
}

void spec_exec_block(Spec *s, Scope *sc, const Block *b) { exec_from(s, sc, b, 0); }

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
  /* host code may have *args (the extra positional arguments, as a tuple)
   * and **kwargs (the extra keywords, as a dict) */
  int va = -1, vk = -1, npos = 0;
  for (int i = 0; i < fn->nparams; i++) {
    if (fn->params[i].star == 1) va = i;
    else if (fn->params[i].star == 2) vk = i;
    else if (va < 0) npos++;
  }
  if (nargs > npos && va < 0) {
    spec_error(s, loc, "'%s' takes %d argument%s but %d were given", fn->name, npos, npos == 1 ? "" : "s", nargs);
    spec_note(s, fn->loc, "'%s' is defined here", fn->name);
    return s->poison;
  }
  Scope sc = {.parent = s->globals};
  SVal **bound = xcalloc((size_t)fn->nparams + 1, sizeof(SVal *));
  bool ok = true;
  for (int i = 0; i < nargs && i < npos; i++) bound[i] = args[i];
  if (va >= 0) bound[va] = sv_tuple(s, nargs > npos ? args + npos : NULL, nargs > npos ? nargs - npos : 0, false);
  SVal *extra_kw = NULL;
  if (vk >= 0) {
    extra_kw = sv_new(s, SV_DICT);
    extra_kw->items = ARENA_ARRAY(s->arena, SVal *, nkw + 1);
    extra_kw->values = ARENA_ARRAY(s->arena, SVal *, nkw + 1);
    bound[vk] = extra_kw;
  }
  for (int k = 0; k < nkw; k++) {
    int idx = -1;
    for (int i = 0; i < fn->nparams; i++)
      if (!fn->params[i].star && !strcmp(fn->params[i].name, kw[k].name)) idx = i;
    if (idx < 0 && extra_kw) {
      extra_kw->items[extra_kw->n] = sv_str(s, kw[k].name);
      extra_kw->values[extra_kw->n++] = kwvals[k];
    } else if (idx < 0) {
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
    if (bound[i] || fn->params[i].star) continue;
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
  int errs = s->d->nerrors;
  spec_exec_block(s, &sc, &fn->body);
  SVal *ret = spec_exit_result(s, &sc, &fr, false);
  /* a body that failed may not have reached its return: what the caller
   * gets is poison, not None (no "a None has no attribute" after it) */
  if (ret->kind == SV_NONE && s->d->nerrors > errs) ret = s->poison;
  s->depth--;
  VEC_FREE(sc.vars);
  return ret;
}
