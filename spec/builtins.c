/* builtins.c — calling a builtin: the table (builtins.def) looked up by
 * name, positional and keyword arguments bound to the builtin's parameter
 * list in Python form, and the argument helpers every handler shares.
 *
 * Binding the same way for every builtin is what gives unknown keywords,
 * missing or repeated arguments their precise messages; a handler receives
 * the bound arguments in parameter order (NULL where an optional one was not
 * given) and never sees a poison argument.  The handlers live in
 * builtins_tensor.c, builtins_memory.c, builtins_compute.c and
 * builtins_python.c; attributes.c resolves names to builtins. */
#include "spec/builtins.h"

#include <string.h>

typedef struct Builtin {
  const char *name;    /* name in messages and lookups ("load", "math.exp", "py.range") */
  const char *params;  /* "pointer,mask=,other=": '=' optional, '*' varargs */
  BuiltinFn fn;
} Builtin;

/* ---- helpers ---------------------------------------------------------------- */

Value *bi_need_tensor(Spec *s, SVal *v, Loc loc, const char *what) {
  if (is_poison(v)) return NULL;
  return sv_to_value(s, v, loc, what);
}

bool bi_const_ints(Spec *s, SVal *v, Loc loc, const char *what, int64_t *out, int *n, int max) {
  if (is_poison(v)) return false;
  if (v->kind == SV_INT || v->kind == SV_BOOL) {
    out[0] = v->i;
    *n = 1;
    return true;
  }
  if (v->kind != SV_TUPLE) {
    return sv_const_int(s, v, loc, what, out);
  }
  if (v->n > max) {
    spec_error(s, loc, "%s has %d entries; at most %d are supported", what, v->n, max);
    return false;
  }
  for (int i = 0; i < v->n; i++)
    if (!sv_const_int(s, v->items[i], loc, what, &out[i])) return false;
  *n = v->n;
  return true;
}

const char *bi_str_arg(Spec *s, SVal *v, Loc loc, const char *what) {
  if (!v || v->kind == SV_NONE) return "";
  if (v->kind != SV_STR) {
    spec_error(s, loc, "%s must be a string, not a %s", what, sv_kind_name(v));
    return NULL;
  }
  return v->s;
}

const Type *bi_dtype_arg(Spec *s, SVal *v, Loc loc, const char *what) {
  if (is_poison(v)) return NULL;
  if (v->kind == SV_DTYPE) return v->type;
  if (v->kind == SV_TYPEOBJ) return ty_elem(s->m->ctx, v->type);
  spec_error(s, loc, "%s must be a dtype such as tl.float32, not a %s", what, sv_kind_name(v));
  return NULL;
}

int bi_norm_axis(Spec *s, int64_t axis, int rank, Loc loc) {
  if (axis < -rank || axis >= rank) {
    spec_error(s, loc, "axis %lld is out of range for a tensor of rank %d", (long long)axis, rank);
    return -1;
  }
  return (int)(axis < 0 ? axis + rank : axis);
}

/* ---- the table ------------------------------------------------------------------------------- */

static const Builtin builtins[] = {
#define BUILTIN(name, params, fn) {name, params, fn},
#include "spec/builtins.def"
#undef BUILTIN
};
enum { NBUILTINS = sizeof builtins / sizeof builtins[0] };

int spec_builtin_index(const char *name) {
  for (int i = 0; i < NBUILTINS; i++)
    if (!strcmp(builtins[i].name, name)) return i;
  return -1;
}

const char *spec_builtin_name(int id) { return builtins[id].name; }
int spec_builtin_count(void) { return NBUILTINS; }

SVal *spec_builtin_val(Spec *s, const char *name) {
  int i = spec_builtin_index(name);
  if (i < 0) return NULL;
  SVal *v = sv_new(s, SV_BUILTIN);
  v->builtin = i;
  return v;
}

/* Display name in messages: tl.load, float, desc.load, ... */
static const char *display_name(Spec *s, int id, bool self_bound) {
  const char *n = builtins[id].name;
  if (!strncmp(n, "py.", 3)) return n + 3;
  static const char *const python[] = {"range", "float", "int", "bool", "len", "print", "tuple", "list",
                                       "isinstance"};
  for (size_t i = 0; i < sizeof python / sizeof python[0]; i++)
    if (!strcmp(n, python[i])) return n;
  if (!strncmp(n, "tl.", 3)) return n;
  if (!strcmp(n, "load_tensor_descriptor") && self_bound) return "desc.load";
  if (!strcmp(n, "store_tensor_descriptor") && self_bound) return "desc.store";
  return arena_printf(s->arena, "tl.%s", n);
}

/* Bind positional and keyword arguments to the builtin's parameter list. */
static bool bind(Spec *s, const Builtin *b, int id, SVal *self, CallArgs *a, SVal **argv) {
  char names[BI_MAXP][32];
  bool optional[BI_MAXP], vararg[BI_MAXP];
  int np = 0;
  const char *p = b->params;
  while (*p && np < BI_MAXP) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    vararg[np] = p[0] == '*';
    if (vararg[np]) p++, len--;
    optional[np] = len && p[len - 1] == '=';
    if (optional[np]) len--;
    memcpy(names[np], p, len);
    names[np][len] = 0;
    np++;
    p += len + (optional[np - 1] ? 1 : 0);
    if (*p == ',') p++;
  }
  const char *fname = display_name(s, id, self != NULL);
  for (int i = 0; i < BI_MAXP; i++) argv[i] = NULL, a->plocs[i] = (Loc){0};
  int pi = 0;
  if (self) argv[pi++] = self;
  VEC(SVal *) rest = {0};
  int varidx = -1;
  for (int i = 0; i < np; i++)
    if (vararg[i]) varidx = i;
  for (int i = 0; i < a->npos; i++) {
    if (varidx >= 0 && pi >= varidx) {
      VEC_PUSH(rest, a->pos[i]);
      continue;
    }
    if (pi >= np) {
      spec_error(s, a->poslocs[i], "%s() takes at most %d positional argument%s but %d were given",
                 fname, np - (self ? 1 : 0), np - (self ? 1 : 0) == 1 ? "" : "s", a->npos);
      VEC_FREE(rest);
      return false;
    }
    a->plocs[pi] = a->poslocs[i];
    argv[pi++] = a->pos[i];
  }
  if (varidx >= 0) {
    argv[varidx] = sv_tuple(s, rest.data, rest.len, false);
    VEC_FREE(rest);
  }
  for (int k = 0; k < a->nkw; k++) {
    int idx = -1;
    for (int i = 0; i < np; i++)
      if (!vararg[i] && !strcmp(names[i], a->kwnames[k])) idx = i;
    if (idx < 0) {
      spec_error(s, a->kwlocs[k], "%s() got an unexpected keyword argument '%s'", fname, a->kwnames[k]);
      const char *best = NULL;
      int bestd = 3;
      for (int i = 0; i < np; i++) {
        int dd = spec_edit_distance(a->kwnames[k], names[i]);
        if (!vararg[i] && dd < bestd) bestd = dd, best = names[i];
      }
      if (best) spec_note(s, a->kwlocs[k], "did you mean '%s'?", best);
      return false;
    }
    if (argv[idx]) {
      spec_error(s, a->kwlocs[k], "%s() got multiple values for argument '%s'", fname, names[idx]);
      return false;
    }
    argv[idx] = a->kw[k];
    a->plocs[idx] = a->kwlocs[k];
  }
  for (int i = 0; i < np; i++)
    if (!argv[i] && !optional[i] && !vararg[i]) {
      spec_error(s, a->loc, "%s() missing required argument '%s'", fname, names[i]);
      return false;
    }
  return true;
}

SVal *spec_call_builtin(Spec *s, int id, SVal *self, CallArgs *a) {
  SVal *argv[BI_MAXP];
  if (!bind(s, &builtins[id], id, self, a, argv)) return s->poison;
  for (int i = 0; i < BI_MAXP; i++)
    if (argv[i] && is_poison(argv[i])) return s->poison;
  SVal *r = builtins[id].fn(s, argv, a);
  return r ? r : s->poison;
}
