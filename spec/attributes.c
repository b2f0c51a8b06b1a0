/* attributes.c — names reached through a dot: the attributes of modules
 * (triton, triton.language, tl.math, dtypes, the classes tl.tensor and
 * tl.tensor_descriptor), of values (x.dtype, x.shape, x.T, x.to,
 * ptr.advance, block_ptr.type.element_ty, desc.load (tensordesc.c),
 * config.kwargs), and the "did you mean" suggestion for an unknown one. */
#include "spec/builtins.h"

#include <string.h>

/* ---- module attributes -------------------------------------------------------------------------- */

static const struct {
  const char *name;
  DType dt;
} dtype_names[] = {
    {"float16", DT_F16},   {"bfloat16", DT_BF16}, {"float32", DT_F32},  {"float64", DT_F64},
    {"int1", DT_I1},       {"int8", DT_I8},       {"int16", DT_I16},    {"int32", DT_I32},
    {"int64", DT_I64},     {"uint8", DT_U8},      {"uint16", DT_U16},   {"uint32", DT_U32},
    {"uint64", DT_U64},    {"float8e4nv", DT_F8E4M3}, {"float8e5", DT_F8E5M2},
    {"float8_e4m3fn", DT_F8E4M3}, {"float8_e5m2", DT_F8E5M2}, {"bool", DT_I1},
};

static bool is_lang_module(const char *mod) {
  return !strcmp(mod, "triton.language") || !strcmp(mod, "triton.language.core") ||
         !strcmp(mod, "tl");
}

static bool is_libdevice_module(const char *mod) {
  return !strcmp(mod, "triton.language.extra.cuda.libdevice") || !strcmp(mod, "triton.language.extra.libdevice");
}

static bool is_math_module(const char *mod) {
  return !strcmp(mod, "triton.language.math") || is_libdevice_module(mod);
}

/* isinstance's classes of triton.language (builtins_python.c decides). */
static const char *const lang_classes[] = {"tensor", "tensor_descriptor", "tensor_descriptor_base", "dtype", NULL};

static SVal *module_val(Spec *s, const char *name) {
  SVal *m = sv_new(s, SV_MODULE);
  m->s = arena_strdup(s->arena, name);
  return m;
}

SVal *spec_module_attr(Spec *s, const char *mod, const char *name) {
  if (!strcmp(mod, "triton")) {
    if (!strcmp(name, "language")) return module_val(s, "triton.language");
    if (!strcmp(name, "cdiv")) return spec_builtin_val(s, "cdiv");
    if (!strcmp(name, "next_power_of_2")) return spec_builtin_val(s, "next_power_of_2");
    if (!strcmp(name, "Config")) return spec_builtin_val(s, "Config");
    if (!strcmp(name, "runtime")) return module_val(s, "triton.runtime");
    if (!strcmp(name, "jit") || !strcmp(name, "autotune") || !strcmp(name, "heuristics"))
      return spec_builtin_val(s, "jit");
    return NULL;
  }
  if (is_libdevice_module(mod)) return spec_math_attr(s, mod, name); /* builtins_math.c */
  if (is_lang_module(mod) || is_math_module(mod)) {
    if (is_lang_module(mod)) {
      if (!strcmp(name, "math")) return module_val(s, "triton.language.math");
      if (!strcmp(name, "extra")) return module_val(s, "triton.language.extra");
      if (!strcmp(name, "constexpr")) return sv_new(s, SV_CONSTEXPR_T);
      if (!strcmp(name, "PropagateNan")) return module_val(s, "triton.language.PropagateNan");
      for (int i = 0; lang_classes[i]; i++)
        if (!strcmp(name, lang_classes[i])) {
          SVal *c = sv_new(s, SV_CLASS);
          c->s = !strcmp(name, "tensor_descriptor_base") ? "tensor_descriptor" : lang_classes[i];
          return c;
        }
      for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (!strcmp(dtype_names[i].name, name)) return sv_dtype(s, ty_scalar(bi_ctx(s), dtype_names[i].dt));
      if (!strcmp(name, "range")) return spec_builtin_val(s, "tl.range");
      if (!strcmp(name, "static_range")) return spec_builtin_val(s, "static_range");
      if (!strcmp(name, "max")) return spec_builtin_val(s, "max");
      if (!strcmp(name, "min")) return spec_builtin_val(s, "min");
      if (!strcmp(name, "abs")) return spec_builtin_val(s, "abs");
    }
    if (!strncmp(name, "py.", 3) || !strcmp(name, "float") || !strcmp(name, "int") || !strcmp(name, "len") ||
        !strcmp(name, "isinstance"))
      return NULL;
    SVal *b = spec_builtin_val(s, name);
    if (b || is_lang_module(mod)) return b;
    return spec_math_attr(s, mod, name); /* tl.math.tanh: older Triton's libdevice spelling */
  }
  if (!strcmp(mod, "triton.runtime") && !strcmp(name, "driver")) return module_val(s, "triton.runtime.driver");
  if (!strcmp(mod, "triton.runtime.driver") && !strcmp(name, "active"))
    return module_val(s, "triton.runtime.driver.active");
  if (!strcmp(mod, "triton.runtime.driver.active") && !strcmp(name, "get_current_target"))
    return spec_builtin_val(s, "get_current_target");
  if (!strcmp(mod, "triton.target")) {
    if (!strcmp(name, "backend")) return sv_str(s, "cuda");
    if (!strcmp(name, "arch")) return sv_int(s, s->m->capability);
    if (!strcmp(name, "warp_size")) return sv_int(s, 32);
    return NULL;
  }
  if (!strcmp(mod, "triton.language.PropagateNan")) {
    /* Triton's enum; tl.maximum/minimum/clamp read its members by name */
    if (!strcmp(name, "ALL")) return sv_str(s, "all");
    if (!strcmp(name, "NONE")) return sv_str(s, "none");
    return NULL;
  }
  if (!strcmp(mod, "triton.language.extra")) {
    if (!strcmp(name, "cuda")) return module_val(s, "triton.language.extra.cuda");
    if (!strcmp(name, "libdevice")) return module_val(s, "triton.language.extra.libdevice");
  }
  if (!strcmp(mod, "triton.language.extra.cuda") && !strcmp(name, "libdevice"))
    return module_val(s, "triton.language.extra.cuda.libdevice");
  return NULL;
}

bool spec_module_known(const char *mod) {
  static const char *const known[] = {"triton", "triton.runtime", "triton.runtime.driver",
                                      "triton.runtime.driver.active", "triton.target", "triton.language.extra",
                                      "triton.language.extra.cuda", NULL};
  if (is_lang_module(mod) || is_math_module(mod)) return true;
  for (int i = 0; known[i]; i++)
    if (!strcmp(known[i], mod)) return true;
  return false;
}

/* Which of Triton's lists names the attributes of module mod (-1: none). */
static int module_names(const char *mod) {
  if (!strcmp(mod, "triton")) return TN_TRITON;
  if (is_lang_module(mod)) return TN_LANGUAGE;
  if (!strcmp(mod, "triton.language.math")) return TN_MATH;
  if (is_math_module(mod)) return TN_LIBDEVICE;
  return -1;
}

void spec_report_missing_attr(Spec *s, const SVal *mod, const char *name, const char *written, Loc loc) {
  const char *shown = written ? written : mod->s;
  int ns = module_names(mod->s);
  if (ns >= 0 && spec_triton_name((TritonNames)ns, name)) {
    spec_error(s, loc, "'%s.%s' is not supported by tlc yet", shown, name);
    return;
  }
  spec_error(s, loc, "module '%s' has no attribute '%s'", mod->s, name);
  const char *near = spec_suggest_attr(s, mod, name);
  if (near) spec_note(s, loc, "did you mean '%s.%s'?", shown, near);
}

SVal *spec_report_unavailable(Spec *s, const SVal *v, const char *bound, Loc use) {
  Unavailable *u = v->un;
  if (*u->reported) return s->poison;
  *u->reported = true;
  if (u->unknown_module) {
    spec_error(s, u->import_loc, "module '%s' is not available to tlc (a kernel sees triton, triton.language, "
               "its math and libdevice modules, and the definitions of its own file)", u->module);
    spec_note(s, use, "'%s', imported from it, is used here", bound);
    return s->poison;
  }
  SVal m = {.kind = SV_MODULE, .s = u->module};
  int ns = module_names(u->module);
  if (ns >= 0 && spec_triton_name((TritonNames)ns, u->name)) {
    spec_error(s, use, "'%s.%s' is not supported by tlc yet", u->module, u->name);
    spec_note(s, u->import_loc, "'%s' is imported here", bound);
    return s->poison;
  }
  spec_error(s, u->import_loc, "cannot import name '%s' from '%s'", u->name, u->module);
  const char *near = spec_suggest_attr(s, &m, u->name);
  if (near) spec_note(s, u->import_loc, "did you mean '%s'?", near);
  spec_note(s, use, "'%s' is used here", bound);
  return s->poison;
}

SVal *spec_python_builtin(Spec *s, const char *name) {
  static const char *const names[] = {"range", "float", "int", "bool", "len", "print", "tuple", "list",
                                      "isinstance"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(names[i], name)) return spec_builtin_val(s, name);
  if (!strcmp(name, "filter")) return spec_builtin_val(s, "filter");
  if (!strcmp(name, "min")) return spec_builtin_val(s, "py.min");
  if (!strcmp(name, "max")) return spec_builtin_val(s, "py.max");
  if (!strcmp(name, "abs")) return spec_builtin_val(s, "py.abs");
  return NULL;
}

/* ---- attributes of values ------------------------------------------------------------------------- */

static SVal *method(Spec *s, SVal *self, const char *builtin) {
  SVal *m = sv_new(s, SV_METHOD);
  m->builtin = spec_builtin_index(builtin);
  m->self = self;
  return m;
}

static SVal *typeobj(Spec *s, const Type *t, SVal *owner) {
  SVal *v = sv_new(s, SV_TYPEOBJ);
  v->type = t;
  v->self = owner;
  return v;
}

/* Methods of tensors (x.to(...), x.sum(0)), each a builtin of the table. */
static const char *const tensor_methods[] = {
    "to", "trans", "permute", "reshape", "view", "expand_dims", "broadcast_to", "sum", "max",
    "min", "argmax", "argmin", "xor_sum", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs",
    "sin", "cos", "floor", "ceil", "erf", "sigmoid", "softmax", "cast", "advance", "store",
    "load", "fma", "cdiv", "where", "multiple_of", "max_contiguous", "atomic_add", "atomic_max",
    "atomic_min", "cumsum", "cumprod", "associative_scan", "reduce", "flip", "split", "ravel", "gather", "histogram", "sort", NULL};

SVal *spec_value_attr(Spec *s, SVal *v, const char *name, Loc loc) {
  if (is_poison(v)) return v;
  switch (v->kind) {
  case SV_TENSOR: {
    const Type *t = v->v->type;
    if (!strcmp(name, "dtype")) return sv_dtype(s, ty_elem(bi_ctx(s), t));
    if (!strcmp(name, "type")) return typeobj(s, t, v);
    if (!strcmp(name, "shape")) {
      SVal *items[IR_MAX_RANK];
      for (int i = 0; i < t->rank; i++) items[i] = sv_int(s, t->shape[i]);
      return sv_tuple(s, items, t->rank, false);
    }
    if (!strcmp(name, "numel")) return sv_int(s, ty_numel(t));
    if (!strcmp(name, "T")) {
      SVal *argv[2] = {v, NULL};
      CallArgs a = {.loc = loc};
      return b_trans(s, argv, &a);
    }
    for (int i = 0; tensor_methods[i]; i++)
      if (!strcmp(tensor_methods[i], name)) return method(s, v, name);
    break;
  }
  case SV_BLOCKPTR:
    if (!strcmp(name, "advance")) return method(s, v, "advance");
    if (!strcmp(name, "type") || !strcmp(name, "dtype")) {
      const Type *pt = v->bp->base->type;
      return !strcmp(name, "dtype") ? sv_dtype(s, pt) : typeobj(s, pt, v);
    }
    break;
  case SV_TENSORDESC: {
    bool reported;
    SVal *r = spec_desc_attr(s, v, name, loc, &reported);
    if (r || reported) return r ? r : s->poison;
    break;
  }
  case SV_DTYPE:
  case SV_TYPEOBJ: {
    const Type *t = v->type;
    const Type *e = ty_elem(bi_ctx(s), t);
    if (!strcmp(name, "element_ty")) {
      if (e->dtype == DT_PTR) return sv_dtype(s, e->pointee);
      return sv_dtype(s, e);
    }
    if (!strcmp(name, "scalar")) return sv_dtype(s, e);
    if (!strcmp(name, "shape") && v->kind == SV_TYPEOBJ) {
      SVal *items[IR_MAX_RANK];
      for (int i = 0; i < t->rank; i++) items[i] = sv_int(s, t->shape[i]);
      return sv_tuple(s, items, t->rank, false);
    }
    if (!strcmp(name, "primitive_bitwidth")) return sv_int(s, dt_bits(e->dtype));
    break;
  }
  case SV_INT: case SV_FLOAT: case SV_BOOL:
    if (!strcmp(name, "value")) return v;
    if (!strcmp(name, "to")) {
      Value *x = sv_to_value(s, v, loc, "value");
      return x ? method(s, sv_tensor(s, x), "to") : s->poison;
    }
    break;
  case SV_CONFIG:
    if (!strcmp(name, "kwargs")) return v->self;
    if (!strcmp(name, "num_warps")) return sv_int(s, v->i);
    if (!strcmp(name, "num_stages")) return sv_int(s, v->n);
    break;
  case SV_CONSTEXPR_T:
    break;
  default:
    break;
  }
  if (v->kind == SV_TENSOR && spec_triton_name(TN_TENSOR, name)) {
    spec_error(s, loc, "the tensor method '%s' is not supported by tlc yet", name);
    return s->poison;
  }
  spec_error(s, loc, "a %s has no attribute '%s'", sv_kind_name(v), name);
  const char *near = spec_suggest_attr(s, v, name);
  if (near) spec_note(s, loc, "did you mean '%s'?", near);
  return s->poison;
}

/* ---- "did you mean" for attributes ------------------------------------------------------------- */

typedef struct Nearest {
  const char *name;
  const char *best;
  int bestd;
} Nearest;

static void consider(Nearest *n, const char *cand) {
  if (!cand || !strcmp(cand, n->name)) return;
  int d = spec_edit_distance(n->name, cand);
  if (d < n->bestd) n->bestd = d, n->best = cand;
}
static void consider_cb(void *n, const char *cand) { consider(n, cand); }

const char *spec_suggest_attr(Spec *s, const SVal *base, const char *name) {
  (void)s;
  int limit = (int)(strlen(name) + 2) / 3 + 1; /* close enough to be a typo */
  Nearest n = {name, NULL, limit > 3 ? 3 : limit};
  switch (base->kind) {
  case SV_MODULE:
    if (!strcmp(base->s, "triton")) {
      static const char *const names[] = {"language", "cdiv", "next_power_of_2", "Config", "jit",
                                          "autotune", "heuristics", "runtime", NULL};
      for (int i = 0; names[i]; i++) consider(&n, names[i]);
    } else if (is_libdevice_module(base->s)) {
      spec_math_names(consider_cb, &n);
    } else if (is_lang_module(base->s) || is_math_module(base->s)) {
      if (is_math_module(base->s)) spec_math_names(consider_cb, &n);
      for (int i = 0; i < spec_builtin_count(); i++) {
        const char *b = spec_builtin_name(i);
        if (!strncmp(b, "py.", 3) || !strcmp(b, "float") || !strcmp(b, "int") || !strcmp(b, "bool") ||
            !strcmp(b, "len") || !strcmp(b, "print") || !strcmp(b, "tuple") || !strcmp(b, "list") ||
            !strcmp(b, "filter") || !strcmp(b, "isinstance"))
          continue;
        consider(&n, !strncmp(b, "tl.", 3) ? b + 3 : b);
      }
      if (is_lang_module(base->s)) {
        for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++) consider(&n, dtype_names[i].name);
        consider(&n, "constexpr"), consider(&n, "math"), consider(&n, "extra");
        for (int i = 0; lang_classes[i]; i++) consider(&n, lang_classes[i]);
      }
    }
    break;
  case SV_TENSOR:
    for (int i = 0; tensor_methods[i]; i++) consider(&n, tensor_methods[i]);
    consider(&n, "dtype"), consider(&n, "type"), consider(&n, "shape"), consider(&n, "numel");
    break;
  case SV_BLOCKPTR:
    consider(&n, "advance"), consider(&n, "type"), consider(&n, "dtype");
    break;
  case SV_TENSORDESC:
    for (int i = 0; spec_desc_attr_names[i]; i++) consider(&n, spec_desc_attr_names[i]);
    break;
  case SV_DTYPE: case SV_TYPEOBJ:
    consider(&n, "element_ty"), consider(&n, "scalar"), consider(&n, "primitive_bitwidth");
    if (base->kind == SV_TYPEOBJ) consider(&n, "shape");
    break;
  case SV_CONFIG:
    consider(&n, "kwargs"), consider(&n, "num_warps"), consider(&n, "num_stages");
    break;
  default:
    break;
  }
  return n.best;
}
