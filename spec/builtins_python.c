/* builtins_python.c — the host side a kernel file may use at compile time:
 * triton.Config, filter, get_current_target, jit as a value, and the Python
 * builtins (range, tl.range, static_range, float, int, bool, min, max, len,
 * abs, print, tuple, list, isinstance). */
#include "spec/builtins.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

SVal *b_config(Spec *s, SVal **v, CallArgs *a) {
  if (v[0]->kind != SV_DICT) {
    spec_error(s, bi_argloc(a, 0), "triton.Config takes a dict of constexpr values, not a %s", sv_kind_name(v[0]));
    return s->poison;
  }
  for (int i = 0; i < v[0]->n; i++)
    if (v[0]->items[i]->kind != SV_STR) {
      spec_error(s, bi_argloc(a, 0), "triton.Config keys must be parameter names (strings)");
      return s->poison;
    }
  int64_t nw = 4, ns = 3; /* triton.Config's own defaults */
  if (v[1] && v[1]->kind != SV_NONE && !sv_const_int(s, v[1], bi_argloc(a, 1), "num_warps", &nw)) return s->poison;
  if (v[2] && v[2]->kind != SV_NONE && !sv_const_int(s, v[2], bi_argloc(a, 2), "num_stages", &ns)) return s->poison;
  if (nw < 1 || nw > SPEC_MAX_WARPS || (nw & (nw - 1))) {
    spec_error(s, bi_argloc(a, 1), "num_warps must be a power of two from 1 to %d, not %lld", SPEC_MAX_WARPS,
               (long long)nw);
    return s->poison;
  }
  if (ns < 1 || ns > SPEC_MAX_STAGES) {
    spec_error(s, bi_argloc(a, 2), "num_stages must be from 1 to %d, not %lld", SPEC_MAX_STAGES, (long long)ns);
    return s->poison;
  }
  SVal *c = sv_new(s, SV_CONFIG);
  c->self = v[0];
  c->i = nw;
  c->n = (int)ns;
  return c;
}

/* filter(fn, seq): fn a module function (called at compile time) or None. */
SVal *py_filter(Spec *s, SVal **v, CallArgs *a) {
  SVal *fn = v[0], *seq = v[1];
  if (seq->kind != SV_TUPLE) {
    spec_error(s, bi_argloc(a, 1), "filter() needs a constexpr list or tuple, not a %s", sv_kind_name(seq));
    return s->poison;
  }
  VEC(SVal *) out = {0};
  for (int i = 0; i < seq->n; i++) {
    SVal *keep = seq->items[i];
    if (fn->kind == SV_FUNC) {
      SVal *arg[1] = {seq->items[i]};
      keep = spec_call_function(s, fn->fn, arg, 1, NULL, NULL, 0, a->loc);
    } else if (fn->kind != SV_NONE) {
      spec_error(s, bi_argloc(a, 0), "filter() needs a function defined in this file or None");
      VEC_FREE(out);
      return s->poison;
    }
    bool t;
    if (is_poison(keep) || !sv_truthy(s, keep, a->loc, &t)) {
      if (!is_poison(keep)) spec_error(s, a->loc, "the filter function must return a constexpr");
      VEC_FREE(out);
      return s->poison;
    }
    if (t) VEC_PUSH(out, seq->items[i]);
  }
  SVal *r = sv_tuple(s, out.data, out.len, true);
  VEC_FREE(out);
  return r;
}

/* triton.runtime.driver.active.get_current_target(): the device tlc compiles
 * for, as host code like `is_hip()` asks it. */
SVal *b_current_target(Spec *s, SVal **v, CallArgs *a) {
  (void)v, (void)a;
  SVal *m = sv_new(s, SV_MODULE);
  m->s = "triton.target";
  return m;
}

SVal *b_jit_value(Spec *s, SVal **v, CallArgs *a) {
  (void)v;
  spec_error(s, a->loc, "this decorator or host API cannot be called inside a kernel");
  return s->poison;
}


/* ---- Python builtins ------------------------------------------------------------------------- */

SVal *py_float(Spec *s, SVal **v, CallArgs *a) {
  SVal *x = v[0];
  if (!x) return sv_float(s, 0);
  if (is_poison(x)) return x;
  if (x->kind == SV_STR) {
    const char *t = x->s;
    while (*t == ' ') t++;
    int neg = 0;
    if (*t == '-' || *t == '+') neg = *t++ == '-';
    double r;
    if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity")) r = INFINITY;
    else if (!strcasecmp(t, "nan")) r = NAN;
    else {
      char *end;
      r = strtod(t, &end);
      if (end == t || *end) {
        spec_error(s, bi_argloc(a, 0), "could not convert string to float: '%s'", x->s);
        return s->poison;
      }
    }
    return sv_float(s, neg ? -r : r);
  }
  if (sv_is_number(x)) return sv_float(s, x->kind == SV_FLOAT ? x->f : (double)x->i);
  if (x->kind == SV_TENSOR) {
    Value *c = spec_cast(s, x->v, ty_scalar(bi_ctx(s), DT_F32), a->loc);
    return c ? sv_tensor(s, c) : s->poison;
  }
  spec_error(s, bi_argloc(a, 0), "float() of a %s", sv_kind_name(x));
  return s->poison;
}

SVal *py_int(Spec *s, SVal **v, CallArgs *a) {
  SVal *x = v[0];
  if (!x) return sv_int(s, 0);
  if (is_poison(x)) return x;
  if (x->kind == SV_FLOAT) {
    /* the range check also catches NaN; 2^63 itself does not fit */
    if (!(x->f >= -9223372036854775808.0 && x->f < 9223372036854775808.0)) {
      spec_error(s, bi_argloc(a, 0), "cannot convert %g to an integer (it does not fit in 64 bits)", x->f);
      return s->poison;
    }
    return sv_int(s, (int64_t)x->f);
  }
  if (x->kind == SV_INT || x->kind == SV_BOOL) return sv_int(s, x->i);
  if (x->kind == SV_STR) {
    char *end;
    long long r = strtoll(x->s, &end, 10);
    if (end == x->s || *end) {
      spec_error(s, bi_argloc(a, 0), "invalid literal for int(): '%s'", x->s);
      return s->poison;
    }
    return sv_int(s, r);
  }
  if (x->kind == SV_TENSOR) {
    Value *c = spec_cast(s, x->v, ty_scalar(bi_ctx(s), DT_I32), a->loc);
    return c ? sv_tensor(s, c) : s->poison;
  }
  spec_error(s, bi_argloc(a, 0), "int() of a %s", sv_kind_name(x));
  return s->poison;
}

SVal *py_bool(Spec *s, SVal **v, CallArgs *a) {
  if (!v[0]) return sv_bool(s, false);
  bool t;
  if (sv_truthy(s, v[0], a->loc, &t)) return sv_bool(s, t);
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "argument");
  return x ? sv_tensor(s, spec_to_bool(s, x, a->loc)) : s->poison;
}

static SVal *py_minmax(Spec *s, SVal **v, CallArgs *a, bool is_max) {
  SVal *t = v[0];
  if (t && t->n == 1 && t->items[0]->kind == SV_TUPLE) t = t->items[0];
  if (!t || t->n == 0) {
    spec_error(s, a->loc, "%s() needs at least one argument", is_max ? "max" : "min");
    return s->poison;
  }
  SVal *best = t->items[0];
  for (int i = 1; i < t->n; i++) {
    SVal *args[3] = {best, t->items[i], NULL};
    best = bi_minmax(s, args, a, is_max ? OP_MAX : OP_MIN);
    if (is_poison(best)) return best;
  }
  return best;
}
SVal *py_max(Spec *s, SVal **v, CallArgs *a) { return py_minmax(s, v, a, true); }
SVal *py_min(Spec *s, SVal **v, CallArgs *a) { return py_minmax(s, v, a, false); }

SVal *py_len(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return v[0];
  if (v[0]->kind == SV_TUPLE || v[0]->kind == SV_DICT) return sv_int(s, v[0]->n);
  if (v[0]->kind == SV_STR) return sv_int(s, (int64_t)strlen(v[0]->s));
  if (v[0]->kind == SV_TENSOR && v[0]->v->type->rank) return sv_int(s, v[0]->v->type->shape[0]);
  spec_error(s, bi_argloc(a, 0), "len() of a %s", sv_kind_name(v[0]));
  return s->poison;
}

SVal *py_abs(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return v[0];
  if (v[0]->kind == SV_INT) {
    if (v[0]->i == INT64_MIN) {
      spec_error(s, a->loc, "integer overflow in constexpr abs() (values are 64-bit)");
      return s->poison;
    }
    return sv_int(s, v[0]->i < 0 ? -v[0]->i : v[0]->i);
  }
  if (v[0]->kind == SV_FLOAT) return sv_float(s, fabs(v[0]->f));
  return b_abs(s, v, a);
}

SVal *py_range(Spec *s, SVal **v, CallArgs *a) {
  /* range() outside a for statement: a constexpr tuple */
  int64_t lo = 0, hi, st = 1;
  if (!v[1] || v[1]->kind == SV_NONE) {
    if (!sv_const_int(s, v[0], bi_argloc(a, 0), "range bound", &hi)) return s->poison;
  } else {
    if (!sv_const_int(s, v[0], bi_argloc(a, 0), "range start", &lo) ||
        !sv_const_int(s, v[1], bi_argloc(a, 1), "range end", &hi))
      return s->poison;
    if (v[2] && v[2]->kind != SV_NONE && !sv_const_int(s, v[2], bi_argloc(a, 2), "range step", &st))
      return s->poison;
  }
  if (st == 0) {
    spec_error(s, a->loc, "range step must not be zero");
    return s->poison;
  }
  VEC(SVal *) items = {0};
  for (int64_t i = lo; st > 0 ? i < hi : i > hi;) {
    if (items.len == SPEC_MAX_TUPLE) {
      spec_error(s, a->loc, "range() evaluated at compile time gives more than %d values",
                 SPEC_MAX_TUPLE);
      VEC_FREE(items);
      return s->poison;
    }
    VEC_PUSH(items, sv_int(s, i));
    if (__builtin_add_overflow(i, st, &i)) break;
  }
  SVal *r = sv_tuple(s, items.data, items.len, true);
  VEC_FREE(items);
  return r;
}

SVal *py_print(Spec *s, SVal **v, CallArgs *a) { return b_static_print(s, v, a); }

SVal *py_tuple(Spec *s, SVal **v, CallArgs *a) {
  if (!v[0]) return sv_tuple(s, NULL, 0, false);
  if (v[0]->kind == SV_TUPLE) return sv_tuple(s, v[0]->items, v[0]->n, false);
  spec_error(s, bi_argloc(a, 0), "tuple() of a %s", sv_kind_name(v[0]));
  return s->poison;
}
SVal *py_list(Spec *s, SVal **v, CallArgs *a) {
  if (!v[0]) return sv_tuple(s, NULL, 0, true);
  if (v[0]->kind == SV_TUPLE) return sv_tuple(s, v[0]->items, v[0]->n, true);
  spec_error(s, bi_argloc(a, 0), "list() of a %s", sv_kind_name(v[0]));
  return s->poison;
}

/* isinstance(obj, classinfo), decided at compile time (the result is a
 * constexpr bool, so `if isinstance(...)` keeps one branch).  Classes:
 * tl.tensor (runtime scalars, tensors and block pointers, which are tensors
 * in Triton), tl.tensor_descriptor, tl.dtype, tl.constexpr (the compile-time
 * scalars: None, bool, int, float, str, dtype), and Python's int (bool
 * included, as in Python), float, bool, tuple and list; or a tuple of
 * classes.  *out is the answer; false after reporting a non-class. */
static bool instance_of(Spec *s, SVal *obj, SVal *cls, Loc loc, bool *out) {
  *out = false;
  switch (cls->kind) {
  case SV_TUPLE:
    for (int i = 0; i < cls->n; i++) {
      bool hit;
      if (!instance_of(s, obj, cls->items[i], loc, &hit)) return false;
      *out |= hit;
    }
    return true;
  case SV_CONSTEXPR_T:
    *out = obj->kind == SV_NONE || obj->kind == SV_BOOL || obj->kind == SV_INT || obj->kind == SV_FLOAT ||
           obj->kind == SV_STR || obj->kind == SV_DTYPE;
    return true;
  case SV_CLASS:
    if (!strcmp(cls->s, "tensor")) *out = obj->kind == SV_TENSOR || obj->kind == SV_BLOCKPTR;
    else if (!strcmp(cls->s, "tensor_descriptor")) *out = obj->kind == SV_TENSORDESC;
    else *out = obj->kind == SV_DTYPE;
    return true;
  case SV_BUILTIN: {
    const char *n = spec_builtin_name(cls->builtin);
    if (!strcmp(n, "int")) *out = obj->kind == SV_INT || obj->kind == SV_BOOL;
    else if (!strcmp(n, "float")) *out = obj->kind == SV_FLOAT;
    else if (!strcmp(n, "bool")) *out = obj->kind == SV_BOOL;
    else if (!strcmp(n, "tuple")) *out = obj->kind == SV_TUPLE && !obj->is_list;
    else if (!strcmp(n, "list")) *out = obj->kind == SV_TUPLE && obj->is_list;
    else break;
    return true;
  }
  default:
    break;
  }
  spec_error(s, loc, "isinstance() arg 2 must be a class (tl.tensor, tl.tensor_descriptor, tl.dtype, "
             "tl.constexpr, int, float, bool, tuple, list) or a tuple of them, not %s", sv_text(s, cls));
  return false;
}

SVal *py_isinstance(Spec *s, SVal **v, CallArgs *a) {
  bool r;
  if (!instance_of(s, v[0], v[1], bi_argloc(a, 1), &r)) return s->poison;
  return sv_bool(s, r);
}
