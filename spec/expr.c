/* expr.c — evaluating expressions to abstract values.
 *
 * Names resolve through the function scope, then the module scope (imports,
 * defs, and module-level assignments evaluated on first use), then Python's
 * builtins.  Calls dispatch on what the callee evaluated to: a module def is
 * inlined, a builtin runs its handler in builtins.c. */
#include "spec/spec_internal.h"

#include <string.h>

SVal *scope_lookup(Scope *sc, const char *name) {
  for (; sc; sc = sc->parent)
    for (int i = sc->vars.len - 1; i >= 0; i--)
      if (strcmp(sc->vars.data[i].name, name) == 0) return sc->vars.data[i].val;
  return NULL;
}

void scope_set(Spec *s, Scope *sc, const char *name, SVal *v) {
  (void)s;
  for (int i = sc->vars.len - 1; i >= 0; i--)
    if (strcmp(sc->vars.data[i].name, name) == 0) {
      sc->vars.data[i].val = v;
      return;
    }
  Binding b = {name, v};
  VEC_PUSH(sc->vars, b);
}

/* Levenshtein distance, for "did you mean" notes on unknown names. */
int spec_edit_distance(const char *a, const char *b) {
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 40 || lb > 40) return 99;
  int d[41][41];
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
      d[i][j] = c;
    }
  return d[la][lb];
}

static const char *closest_name(Scope *sc, const char *name) {
  const char *best = NULL;
  int bestd = (int)(strlen(name) + 2) / 3 + 1; /* close enough to be a typo */
  if (bestd > 3) bestd = 3;
  for (; sc; sc = sc->parent)
    for (int i = 0; i < sc->vars.len; i++) {
      if (spec_is_hidden_name(sc->vars.data[i].name)) continue;
      int dd = spec_edit_distance(name, sc->vars.data[i].name);
      if (dd < bestd) bestd = dd, best = sc->vars.data[i].name;
    }
  return best;
}

static SVal *eval_name(Spec *s, Scope *sc, const Expr *e) {
  SVal *v = scope_lookup(sc, e->name);
  if (v && v->kind == SV_UNAVAILABLE) return spec_report_unavailable(s, v, e->name, e->loc);
  if (v) return v;
  v = spec_global_lazy(s, e->name, e->loc);
  if (v) return v;
  v = spec_python_builtin(s, e->name);
  if (v) return v;
  spec_error(s, e->loc, "unknown name '%s'", e->name);
  const char *near = closest_name(sc, e->name);
  if (near) spec_note(s, e->loc, "did you mean '%s'?", near);
  return s->poison;
}

/* `tl` or `triton.language` as written, for messages; NULL for other shapes. */
static const char *dotted_name(Spec *s, const Expr *e) {
  if (e->kind == EX_NAME) return e->name;
  if (e->kind != EX_ATTR) return NULL;
  const char *base = dotted_name(s, e->value);
  return base ? arena_printf(s->arena, "%s.%s", base, e->name) : NULL;
}

static SVal *eval_attr(Spec *s, Scope *sc, const Expr *e) {
  SVal *base = spec_eval(s, sc, e->value);
  if (is_poison(base)) return base;
  if (base->kind == SV_MODULE) {
    SVal *v = spec_module_attr(s, base->s, e->name);
    if (v) return v;
    spec_report_missing_attr(s, base, e->name, dotted_name(s, e->value), e->loc);
    return s->poison;
  }
  return spec_value_attr(s, base, e->name, e->loc);
}

/* A lambda of host code, called: its parameters bound in a scope of its
 * own over the module's (a lambda at module level sees only globals). */
static SVal *call_lambda(Spec *s, const Expr *lam, SVal **args, int nargs, Loc loc) {
  int npos = 0;
  bool va = false;
  for (int i = 0; i < lam->nparams; i++) {
    if (lam->params[i].star == 1) va = true;
    else if (!lam->params[i].star && !va) npos++;
  }
  if (nargs > npos && !va) {
    spec_error(s, loc, "the lambda takes %d argument%s but %d were given", lam->nparams,
               lam->nparams == 1 ? "" : "s", nargs);
    spec_note(s, lam->loc, "the lambda is defined here");
    return s->poison;
  }
  Scope sc = {.parent = s->globals};
  SVal *r = NULL;
  for (int i = 0; i < lam->nparams && !r; i++) {
    const Param *p = &lam->params[i];
    SVal *v;
    if (p->star == 1) v = sv_tuple(s, nargs > npos ? args + npos : NULL, nargs > npos ? nargs - npos : 0, false);
    else if (p->star == 2) v = sv_new(s, SV_DICT); /* no keywords reach a lambda */
    else v = i < nargs && i < npos ? args[i] : p->default_ ? spec_eval(s, s->globals, p->default_) : NULL;
    if (!v) {
      spec_error(s, loc, "missing argument '%s' of the lambda", p->name);
      spec_note(s, lam->loc, "the lambda is defined here");
      r = s->poison;
    } else {
      scope_set(s, &sc, p->name, v);
    }
  }
  if (!r) r = spec_eval(s, &sc, lam->body);
  VEC_FREE(sc.vars);
  return r;
}

SVal *spec_call_value(Spec *s, SVal *fn, SVal **args, int nargs, Loc loc) {
  if (is_poison(fn)) return fn;
  if (fn->kind == SV_LAMBDA) return call_lambda(s, fn->lambda_, args, nargs, loc);
  if (fn->kind == SV_FUNC) return spec_call_function(s, fn->fn, args, nargs, NULL, NULL, 0, loc);
  spec_error(s, loc, "a %s is not callable", sv_kind_name(fn));
  return s->poison;
}

static SVal *eval_call(Spec *s, Scope *sc, const Expr *e) {
  SVal *fn = spec_eval(s, sc, e->value);
  VEC(SVal *) pos = {0};
  VEC(Loc) poslocs = {0};
  bool bad = is_poison(fn);
  for (int i = 0; i < e->nitems; i++) {
    const Expr *a = e->items[i];
    if (a->kind == EX_STARRED) {
      SVal *t = spec_eval(s, sc, a->value);
      if (is_poison(t)) {
        bad = true;
        continue;
      }
      if (t->kind != SV_TUPLE) {
        spec_error(s, a->loc, "'*' needs a constexpr tuple or list, not a %s", sv_kind_name(t));
        bad = true;
        continue;
      }
      for (int k = 0; k < t->n; k++) {
        VEC_PUSH(pos, t->items[k]);
        VEC_PUSH(poslocs, a->loc);
      }
      continue;
    }
    SVal *v = spec_eval(s, sc, a);
    bad |= is_poison(v);
    VEC_PUSH(pos, v);
    VEC_PUSH(poslocs, a->loc);
  }
  SVal **kw = ARENA_ARRAY(s->arena, SVal *, e->nkwargs + 1);
  const char **kwnames = ARENA_ARRAY(s->arena, const char *, e->nkwargs + 1);
  Loc *kwlocs = ARENA_ARRAY(s->arena, Loc, e->nkwargs + 1);
  for (int i = 0; i < e->nkwargs; i++) {
    if (!e->kwargs[i].name) {
      spec_error(s, e->kwargs[i].loc, "'**' arguments are not supported");
      bad = true;
      continue;
    }
    kw[i] = spec_eval(s, sc, e->kwargs[i].value);
    kwnames[i] = e->kwargs[i].name;
    kwlocs[i] = e->kwargs[i].loc;
    bad |= is_poison(kw[i]);
    for (int j = 0; j < i; j++)
      if (kwnames[j] && !strcmp(kwnames[j], kwnames[i])) {
        spec_error(s, kwlocs[i], "keyword argument '%s' given twice", kwnames[i]);
        bad = true;
      }
  }
  SVal *r = s->poison;
  if (!bad) {
    SVal **posv = ARENA_ARRAY(s->arena, SVal *, pos.len + 1);
    Loc *posl = ARENA_ARRAY(s->arena, Loc, pos.len + 1);
    for (int i = 0; i < pos.len; i++) posv[i] = pos.data[i], posl[i] = poslocs.data[i];
    CallArgs ca = {posv, pos.len, kwnames, kw, kwlocs, e->nkwargs, e->loc, posl};
    switch (fn->kind) {
    case SV_FUNC:
      r = spec_call_function(s, fn->fn, posv, pos.len, e->kwargs, kw, e->nkwargs, e->loc);
      break;
    case SV_BUILTIN:
      r = spec_call_builtin(s, fn->builtin, NULL, &ca);
      break;
    case SV_METHOD:
      r = spec_call_builtin(s, fn->builtin, fn->self, &ca);
      break;
    case SV_LAMBDA:
      if (e->nkwargs) spec_error(s, e->kwargs[0].loc, "keyword arguments to a lambda are not supported");
      else r = call_lambda(s, fn->lambda_, posv, pos.len, e->loc);
      break;
    case SV_MATHFN:
      r = spec_call_mathfn(s, fn, &ca);
      break;
    case SV_CONSTEXPR_T:
      if (pos.len == 1 && e->nkwargs == 0) r = posv[0];
      else spec_error(s, e->loc, "tl.constexpr() takes exactly one argument");
      break;
    case SV_DTYPE:
      if (pos.len == 1 && e->nkwargs == 0) {
        Value *v = sv_to_value(s, posv[0], e->loc, "argument");
        if (v) r = sv_tensor(s, spec_cast(s, v, fn->type, e->loc));
      } else {
        spec_error(s, e->loc, "a dtype call takes exactly one argument");
      }
      break;
    default:
      spec_error(s, e->value->loc, "a %s is not callable", sv_kind_name(fn));
      break;
    }
  }
  VEC_FREE(pos);
  VEC_FREE(poslocs);
  return r ? r : s->poison;
}

static SVal *eval_subscript(Spec *s, Scope *sc, const Expr *e) {
  SVal *base = spec_eval(s, sc, e->value);
  if (is_poison(base)) return base;
  if (base->kind == SV_TENSOR) {
    int kinds[16];
    if (e->nitems > 16) {
      spec_error(s, e->loc, "too many indices");
      return s->poison;
    }
    for (int i = 0; i < e->nitems; i++) {
      const Expr *it = e->items[i];
      if (it->kind == EX_NONE) {
        kinds[i] = IDX_NEWAXIS;
      } else if (it->kind == EX_SLICE && !it->lo && !it->hi && !it->step) {
        kinds[i] = IDX_ALL;
      } else {
        spec_error(s, it->loc, "tensors can only be indexed with None and ':' (integer indices "
                   "and partial slices are not supported)");
        return s->poison;
      }
    }
    if (base->v->type->rank == 0) {
      /* scalar[None] -> a one-element tensor */
      int64_t one = 1;
      Value *v = base->v;
      int n = 0;
      for (int i = 0; i < e->nitems; i++) n += kinds[i] == IDX_NEWAXIS;
      if (n == 0) return base;
      if (n > IR_MAX_RANK) {
        spec_error(s, e->loc, "indexing gives a rank-%d tensor; at most %d dims are supported", n,
                   IR_MAX_RANK);
        return s->poison;
      }
      spec_at(s, e->loc);
      int64_t shape[IR_MAX_RANK];
      for (int i = 0; i < n && i < IR_MAX_RANK; i++) shape[i] = one;
      return sv_tensor(s, irb_splat(&s->b, v, ty_tensor(s->m->ctx, val_elem(s, v), n, shape, NULL)));
    }
    return spec_index_tensor(s, base->v, kinds, e->nitems, e->loc);
  }
  if (base->kind == SV_TUPLE) {
    if (e->nitems != 1) {
      spec_error(s, e->loc, "a %s takes one index", sv_kind_name(base));
      return s->poison;
    }
    const Expr *it = e->items[0];
    if (it->kind == EX_SLICE) {
      int64_t lo = 0, hi = base->n, st = 1;
      SVal *v;
      if (it->step && !sv_const_int(s, v = spec_eval(s, sc, it->step), it->step->loc, "slice step", &st)) return s->poison;
      if (st == 0) {
        spec_error(s, it->loc, "slice step cannot be zero");
        return s->poison;
      }
      if (st < 0) lo = base->n - 1, hi = -1 - base->n;
      if (it->lo && !sv_const_int(s, v = spec_eval(s, sc, it->lo), it->lo->loc, "slice start", &lo)) return s->poison;
      if (it->hi && !sv_const_int(s, v = spec_eval(s, sc, it->hi), it->hi->loc, "slice end", &hi)) return s->poison;
      /* clamp as CPython's PySlice_AdjustIndices does */
      int64_t n = base->n;
      if (lo < 0) lo = lo + n < 0 ? (st < 0 ? -1 : 0) : lo + n;
      else if (lo >= n) lo = st < 0 ? n - 1 : n;
      if (hi < 0) hi = hi + n < 0 ? (st < 0 ? -1 : 0) : hi + n;
      else if (hi >= n) hi = st < 0 ? n - 1 : n;
      VEC(SVal *) out = {0};
      for (int64_t i = lo; st > 0 ? i < hi : i > hi;) {
        VEC_PUSH(out, base->items[i]);
        if (__builtin_add_overflow(i, st, &i)) break;
      }
      SVal *r = sv_tuple(s, out.data, out.len, base->is_list);
      VEC_FREE(out);
      return r;
    }
    int64_t idx;
    if (!sv_const_int(s, spec_eval(s, sc, it), it->loc, "tuple index", &idx)) return s->poison;
    if (idx < 0) idx += base->n;
    if (idx < 0 || idx >= base->n) {
      spec_error(s, it->loc, "index %lld is out of range for a %s of %d items", (long long)idx,
                 sv_kind_name(base), base->n);
      return s->poison;
    }
    return base->items[idx];
  }
  if (base->kind == SV_DICT && e->nitems == 1) {
    SVal *k = spec_eval(s, sc, e->items[0]);
    if (is_poison(k)) return k;
    for (int i = 0; i < base->n; i++) {
      SVal *eq = spec_compare(s, AOP_EQ, base->items[i], k, e->loc);
      if (eq->kind == SV_BOOL && eq->i) return base->values[i];
    }
    spec_error(s, e->items[0]->loc, "key not found in dict");
    return s->poison;
  }
  spec_error(s, e->loc, "a %s cannot be indexed", sv_kind_name(base));
  return s->poison;
}

static SVal *eval_compare(Spec *s, Scope *sc, const Expr *e) {
  SVal *lhs = spec_eval(s, sc, e->items[0]);
  SVal *result = NULL;
  for (int i = 0; i + 1 < e->nitems; i++) {
    SVal *rhs = spec_eval(s, sc, e->items[i + 1]);
    Loc loc = loc_join(e->items[i]->loc, e->items[i + 1]->loc);
    SVal *r = spec_compare(s, e->cmp_ops[i], lhs, rhs, loc);
    if (is_poison(r)) return r;
    if (!result) {
      result = r;
    } else if (result->kind == SV_BOOL && r->kind == SV_BOOL) {
      result = sv_bool(s, result->i && r->i);
    } else {
      result = spec_logical(s, true, result, r, e->loc);
    }
    if (result->kind == SV_BOOL && !result->i) return result; /* short-circuit */
    lhs = rhs;
  }
  return result;
}

static SVal *eval_boolop(Spec *s, Scope *sc, const Expr *e) {
  bool is_and = e->op == AOP_AND;
  SVal *a = spec_eval(s, sc, e->lhs);
  if (is_poison(a)) return a;
  bool t;
  if (sv_truthy(s, a, e->loc, &t)) {
    /* Python semantics for a constexpr left operand */
    if (is_and ? !t : t) return a;
    return spec_eval(s, sc, e->rhs);
  }
  SVal *b = spec_eval(s, sc, e->rhs);
  if (is_poison(b)) return b;
  if (sv_truthy(s, b, e->loc, &t) && sv_is_constexpr(b)) {
    /* tensor and True -> tensor; tensor and False -> False */
    if (is_and ? t : !t) {
      Value *v = sv_to_value(s, a, e->lhs->loc, "operand");
      return v ? sv_tensor(s, spec_to_bool(s, v, e->loc)) : s->poison;
    }
    return b;
  }
  return spec_logical(s, is_and, a, b, e->loc);
}

static SVal *where_values(Spec *s, Value *c, SVal *a, SVal *b, Loc loc) {
  Value *x, *y;
  if (!spec_arith_operands(s, a, b, false, loc, "if-else", &x, &y)) {
    if (a->kind == SV_TENSOR && b->kind == SV_TENSOR && a->v->type == b->v->type) x = a->v, y = b->v;
    else return s->poison;
  }
  c = spec_to_bool(s, c, loc);
  if (!spec_broadcast_pair(s, &c, &x, loc, "if-else") || !spec_broadcast_pair(s, &c, &y, loc, "if-else") ||
      !spec_broadcast_pair(s, &x, &y, loc, "if-else"))
    return s->poison;
  spec_at(s, loc);
  return sv_tensor(s, irb_select(&s->b, c, x, y));
}

static SVal *eval_comprehension(Spec *s, Scope *sc, const Expr *e) {
  Scope inner = {.parent = sc};
  VEC(SVal *) out = {0};
  /* Iterate the nested for-clauses with an explicit index stack. */
  int nf = e->nfors;
  SVal *seqs[8];
  int idx[8];
  if (nf > 8) {
    spec_error(s, e->loc, "too many 'for' clauses in a comprehension");
    return s->poison;
  }
  int level = 0;
  bool ok = true;
  seqs[0] = NULL;
  while (level >= 0 && ok) {
    if (!spec_step(s, e->loc, 1)) { ok = false; break; }
    if (!seqs[level]) {
      SVal *it = spec_eval(s, &inner, e->fors[level].iter);
      if (is_poison(it)) { ok = false; break; }
      if (it->kind != SV_TUPLE) {
        spec_error(s, e->fors[level].iter->loc, "comprehensions can iterate only over constexpr "
                   "lists, tuples and ranges, not a %s", sv_kind_name(it));
        ok = false;
        break;
      }
      seqs[level] = it;
      idx[level] = 0;
    }
    if (idx[level] >= seqs[level]->n) {
      seqs[level] = NULL;
      level--;
      if (level >= 0) idx[level]++;
      continue;
    }
    const Expr *tgt = e->fors[level].target;
    if (tgt->kind != EX_NAME) {
      spec_error(s, tgt->loc, "comprehension targets must be names");
      ok = false;
      break;
    }
    scope_set(s, &inner, tgt->name, seqs[level]->items[idx[level]]);
    bool keep = true;
    for (int c = 0; c < e->fors[level].nconds && keep; c++) {
      SVal *cv = spec_eval(s, &inner, e->fors[level].conds[c]);
      bool t;
      if (is_poison(cv) || !sv_truthy(s, cv, e->loc, &t)) { ok = false; keep = false; break; }
      keep = t;
    }
    if (!ok) break;
    if (!keep) { idx[level]++; continue; }
    if (level + 1 < nf) {
      level++;
      seqs[level] = NULL;
      continue;
    }
    SVal *v = spec_eval(s, &inner, e->value);
    if (is_poison(v)) { ok = false; break; }
    VEC_PUSH(out, v);
    if (out.len > SPEC_MAX_TUPLE) {
      spec_error(s, e->loc, "the comprehension makes more than %d items", SPEC_MAX_TUPLE);
      ok = false;
      break;
    }
    idx[level]++;
  }
  SVal *r = ok ? sv_tuple(s, out.data, out.len, true) : s->poison;
  VEC_FREE(out);
  VEC_FREE(inner.vars);
  return r;
}

static SVal *eval(Spec *s, Scope *sc, const Expr *e);

SVal *spec_eval(Spec *s, Scope *sc, const Expr *e) {
  if (!spec_step(s, e->loc, 1)) return s->poison;
  if (s->eval_depth >= SPEC_MAX_EVAL_DEPTH) {
    spec_error(s, e->loc, "evaluation nested too deeply (more than %d levels, counting inlined "
               "calls)", SPEC_MAX_EVAL_DEPTH);
    s->over_budget = true;
    return s->poison;
  }
  s->eval_depth++;
  SVal *v = eval(s, sc, e);
  s->eval_depth--;
  return v;
}

static SVal *eval(Spec *s, Scope *sc, const Expr *e) {
  switch (e->kind) {
  case EX_NAME: return eval_name(s, sc, e);
  case EX_INT: return sv_int(s, e->ival);
  case EX_FLOAT: return sv_float(s, e->fval);
  case EX_STR: return sv_str(s, e->sval);
  case EX_BOOL: return sv_bool(s, e->ival != 0);
  case EX_NONE: return s->none;
  case EX_ATTR: return eval_attr(s, sc, e);
  case EX_CALL: return eval_call(s, sc, e);
  case EX_SUBSCRIPT: return eval_subscript(s, sc, e);
  case EX_BINOP: {
    SVal *a = spec_eval(s, sc, e->lhs);
    SVal *b = spec_eval(s, sc, e->rhs);
    return spec_binop(s, e->op, a, b, e->loc);
  }
  case EX_UNARY: return spec_unop(s, e->op, spec_eval(s, sc, e->lhs), e->loc);
  case EX_BOOLOP: return eval_boolop(s, sc, e);
  case EX_COMPARE: return eval_compare(s, sc, e);
  case EX_IFEXP: {
    SVal *c = spec_eval(s, sc, e->cond);
    if (is_poison(c)) return c;
    bool t;
    if (sv_truthy(s, c, e->loc, &t)) return spec_eval(s, sc, t ? e->lhs : e->rhs);
    if (c->kind != SV_TENSOR) {
      spec_error(s, e->cond->loc, "condition must be a constexpr or a runtime value");
      return s->poison;
    }
    SVal *a = spec_eval(s, sc, e->lhs), *b = spec_eval(s, sc, e->rhs);
    if (is_poison(a) || is_poison(b)) return s->poison;
    return where_values(s, c->v, a, b, e->loc);
  }
  case EX_TUPLE:
  case EX_LIST: {
    VEC(SVal *) items = {0};
    bool bad = false;
    for (int i = 0; i < e->nitems; i++) {
      if (e->items[i]->kind == EX_STARRED) {
        SVal *t = spec_eval(s, sc, e->items[i]->value);
        if (t->kind == SV_TUPLE)
          for (int k = 0; k < t->n; k++) VEC_PUSH(items, t->items[k]);
        else bad = true;
        continue;
      }
      SVal *v = spec_eval(s, sc, e->items[i]);
      bad |= is_poison(v);
      VEC_PUSH(items, v);
    }
    SVal *r = bad ? s->poison : sv_tuple(s, items.data, items.len, e->kind == EX_LIST);
    VEC_FREE(items);
    return r;
  }
  case EX_DICT: {
    SVal *d = sv_new(s, SV_DICT);
    d->n = e->nitems;
    d->items = ARENA_ARRAY(s->arena, SVal *, e->nitems + 1);
    d->values = ARENA_ARRAY(s->arena, SVal *, e->nitems + 1);
    for (int i = 0; i < e->nitems; i++) {
      d->items[i] = spec_eval(s, sc, e->items[i]);
      d->values[i] = spec_eval(s, sc, e->values[i]);
      if (is_poison(d->items[i]) || is_poison(d->values[i])) return s->poison;
    }
    return d;
  }
  case EX_COMPREHENSION: return eval_comprehension(s, sc, e);
  case EX_ELLIPSIS:
    spec_error(s, e->loc, "'...' is not supported here");
    return s->poison;
  case EX_SLICE:
    spec_error(s, e->loc, "a slice is only allowed inside []");
    return s->poison;
  case EX_LAMBDA:
    if (sc == s->globals) {
      /* host code: triton.heuristics, autotune's prune_configs_by */
      SVal *l = sv_new(s, SV_LAMBDA);
      l->lambda_ = e;
      return l;
    }
    spec_error(s, e->loc, "lambda is not supported inside tile kernels");
    return s->poison;
  case EX_STARRED:
    spec_error(s, e->loc, "'*' is only allowed in calls and tuples");
    return s->poison;
  default:
    spec_error(s, e->loc, "unsupported expression");
    return s->poison;
  }
}
