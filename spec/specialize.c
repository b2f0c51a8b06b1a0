/* specialize.c — the entry of specialization: find the kernel, read the
 * signature and constexprs, make the kernel's IR arguments, run the body.
 *
 * The signature is Triton's AOT form, one entry per parameter in order:
 *   *fp16, *fp32:16   pointer (':16' = 16-byte aligned)
 *   i32, i64:16, fp32 runtime scalar (':16' = divisible by 16)
 *   1024, True, 0.5   a value: the parameter becomes a constexpr
 *   tensordesc<fp16[64, 64]>   a host-made tensor descriptor moving 64x64
 *                     blocks: the kernel takes it as the hidden arguments
 *                     NAME.base, NAME.shape0.., NAME.stride0..NAME.stride{R-2}
 *   _                 given by name (--constexpr) or by its default
 * Trailing parameters may be left out when they have defaults or are given
 * by name (--constexpr NAME=V).  Entries are separated by commas outside
 * brackets.  Signature mistakes are reported with a caret under the entry
 * (or the part of it at fault), as if the signature were a one-line source
 * file. */
#include "spec/spec_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char SIG_FILE[] = "<signature>";

/* ---- module scope -------------------------------------------------------- */

static bool is_jit_decorator(const Expr *d) {
  const Expr *e = d->kind == EX_CALL ? d->value : d;
  const char *name = e->kind == EX_ATTR ? e->name : e->kind == EX_NAME ? e->name : "";
  return !strcmp(name, "jit") || !strcmp(name, "autotune") || !strcmp(name, "heuristics");
}

static bool is_jit(const FuncDef *f) {
  for (int i = 0; i < f->ndecorators; i++)
    if (is_jit_decorator(f->decorators[i])) return true;
  return false;
}

static void build_globals(Spec *s) {
  const Module *m = s->ast;
  for (int i = 0; i < m->body.n; i++) {
    const Stmt *st = m->body.stmts[i];
    if (st->kind == ST_IMPORT || st->kind == ST_IMPORTFROM) {
      spec_bind_import(s, s->globals, st);
    } else if (st->kind == ST_DEF) {
      SVal *f = sv_new(s, SV_FUNC);
      f->fn = st->def;
      scope_set(s, s->globals, st->def->name, f);
    }
  }
}

SVal *spec_global_lazy(Spec *s, const char *name, Loc use) {
  const Module *m = s->ast;
  const Stmt *last = NULL;
  for (int i = 0; i < m->body.n; i++) {
    const Stmt *st = m->body.stmts[i];
    if (st->kind == ST_ASSIGN) {
      for (int k = 0; k < st->ntargets; k++)
        if (st->targets[k]->kind == EX_NAME && !strcmp(st->targets[k]->name, name)) last = st;
    } else if (st->kind == ST_ANNASSIGN && st->value && st->target->kind == EX_NAME &&
               !strcmp(st->target->name, name)) {
      last = st;
    }
  }
  if (!last) return NULL;
  /* guard against `X = X + 1` at module level */
  static _Thread_local int depth;
  if (depth > 32) {
    spec_error(s, use, "module-level definition of '%s' refers to itself", name);
    return s->poison;
  }
  depth++;
  int errs = s->d->nerrors;
  SVal *v = spec_eval(s, s->globals, last->value);
  depth--;
  if (s->d->nerrors > errs) spec_note(s, use, "while evaluating module-level '%s' used here", name);
  scope_set(s, s->globals, name, v);
  return v;
}

/* ---- signature ------------------------------------------------------------- */

typedef struct SigEntry {
  const char *text;  /* trimmed entry */
  Loc loc;
  bool skip;         /* "_": given by name (--constexpr) or by its default */
  bool is_type;      /* pointer or scalar type */
  const Type *type;
  int divisibility;
  SVal *value;       /* when a value */
  int desc_rank;     /* > 0: tensordesc<type[block]>, `type` its element type */
  int64_t desc_block[IR_MAX_RANK];
} SigEntry;

static SVal *parse_literal(Spec *s, const char *t, bool *ok) {
  *ok = true;
  while (isspace((unsigned char)*t)) t++;
  if (!strcmp(t, "True")) return sv_bool(s, true);
  if (!strcmp(t, "False")) return sv_bool(s, false);
  if (!strcmp(t, "None")) return s->none;
  char *end;
  errno = 0;
  long long iv = strtoll(t, &end, 0);
  if (end != t && !*end && !errno) return sv_int(s, iv);
  errno = 0;
  double fv = strtod(t, &end);
  if (end != t && !*end && !errno) return sv_float(s, fv);
  const char *dn = t;
  if (!strncmp(dn, "tl.", 3)) dn += 3;
  else if (!strncmp(dn, "triton.language.", 16)) dn += 16;
  int dt = dt_parse(dn);
  if (dt >= 0 && dn != t) return sv_dtype(s, ty_scalar(s->m->ctx, (DType)dt));
  size_t n = strlen(t);
  if (n >= 2 && (t[0] == '\'' || t[0] == '"') && t[n - 1] == t[0])
    return sv_str(s, arena_strndup(s->arena, t + 1, n - 2));
  *ok = false;
  return NULL;
}

/* The part of entry e from byte `from` of its text, `n` bytes long. */
static Loc sub_loc(const SigEntry *e, const char *from, size_t n) {
  Loc l = e->loc;
  l.col += (int)(from - e->text);
  l.end_col = l.col + (int)(n ? n : 1);
  return l;
}

static const char *skip_space(const char *p) {
  while (isspace((unsigned char)*p)) p++;
  return p;
}

/* tensordesc<DTYPE[B0, B1, ...]>: Triton's signature of a host-made
 * tensor descriptor (spaces allowed anywhere between the parts). */
static bool parse_desc_entry(Spec *s, SigEntry *e) {
  const char *t = e->text, *p = skip_space(t + strlen("tensordesc"));
  static const char shape_hint[] = "expected e.g. tensordesc<fp16[64, 64]>";
  if (*p != '<') {
    spec_error(s, sub_loc(e, p, 1), "malformed tensordesc entry '%s' (%s)", t, shape_hint);
    return false;
  }
  p = skip_space(p + 1);
  const char *dt0 = p;
  while (*p && *p != '[' && *p != '>' && !isspace((unsigned char)*p)) p++;
  char dname[32];
  size_t dn = (size_t)(p - dt0);
  int dt = -1;
  if (dn && dn < sizeof dname) {
    memcpy(dname, dt0, dn);
    dname[dn] = 0;
    dt = dt_parse(dname);
  }
  if (dt < 0 || dt == DT_PTR) {
    spec_error(s, sub_loc(e, dt0, dn), "unknown element type '%.*s' in a tensordesc entry (expected e.g. "
               "fp16, bf16, fp32, fp8e4nv, i8)", (int)dn, dt0);
    return false;
  }
  p = skip_space(p);
  if (*p != '[') {
    spec_error(s, sub_loc(e, p, 1), "malformed tensordesc entry '%s': the block shape in [...] is missing (%s)",
               t, shape_hint);
    return false;
  }
  p = skip_space(p + 1);
  Loc dim_locs[IR_MAX_RANK];
  int rank = 0;
  const char *open = p - 1;
  while (*p != ']') {
    const char *d0 = p;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || errno) {
      spec_error(s, sub_loc(e, p, 1), "malformed tensordesc entry '%s': block dims must be integers (%s)", t,
                 shape_hint);
      return false;
    }
    if (rank < IR_MAX_RANK) {
      e->desc_block[rank] = v;
      dim_locs[rank] = sub_loc(e, d0, (size_t)(end - d0));
    }
    rank++;
    p = skip_space(end);
    if (*p == ',') p = skip_space(p + 1);
    else if (*p != ']') {
      spec_error(s, sub_loc(e, p, 1), "malformed tensordesc entry '%s': expected ',' or ']' (%s)", t, shape_hint);
      return false;
    }
  }
  Loc dims_loc = sub_loc(e, open, (size_t)(p + 1 - open));
  p = skip_space(p + 1);
  if (*p != '>') {
    spec_error(s, sub_loc(e, p, 1), "malformed tensordesc entry '%s': expected '>' after the block shape (%s)",
               t, shape_hint);
    return false;
  }
  p = skip_space(p + 1);
  if (*p) {
    spec_error(s, sub_loc(e, p, strlen(p)), "unexpected '%s' after the tensordesc entry (a descriptor takes no "
               "specialization hint)", p);
    return false;
  }
  e->type = ty_scalar(s->m->ctx, (DType)dt);
  Loc dt_loc = sub_loc(e, dt0, dn);
  if (!spec_desc_check(s, e->type, rank, e->desc_block, dims_loc, &dt_loc, rank <= IR_MAX_RANK ? dim_locs : NULL,
                       256))
    return false;
  e->desc_rank = rank;
  return true;
}

static bool parse_sig_entry(Spec *s, SigEntry *e) {
  const char *t = e->text;
  if (!strcmp(t, "_")) {
    e->skip = true;
    return true;
  }
  if (!strncmp(t, "tensordesc", strlen("tensordesc"))) return parse_desc_entry(s, e);
  const char *colon = strchr(t, ':');
  char base[64];
  size_t blen = colon ? (size_t)(colon - t) : strlen(t);
  if (blen >= sizeof base) blen = sizeof base - 1;
  memcpy(base, t, blen);
  base[blen] = 0;
  e->divisibility = 1;
  if (colon) {
    char *end;
    long d = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || d <= 0 || (d & (d - 1)) || d > (1L << 30)) {
      spec_error(s, e->loc, "bad specialization hint '%s' in signature entry '%s' (expected a power "
                 "of two such as ':16', at most 2^30)", colon, t);
      return false;
    }
    e->divisibility = (int)d;
  }
  IrContext *c = s->m->ctx;
  if (base[0] == '*') {
    /* `*fp16`, and pointers to pointers: `**fp16` (a device array of fp16 pointers) */
    int depth = 0;
    while (base[depth] == '*') depth++;
    int dt = dt_parse(base + depth);
    if (dt < 0 || dt == DT_PTR) {
      spec_error(s, e->loc, "unknown pointer element type '%s' in the signature (expected e.g. "
                 "*fp16, *fp32, *bf16, *i32, *i8, **fp16)", base + depth);
      return false;
    }
    if (depth > 4) {
      spec_error(s, e->loc, "'%s': at most four levels of pointers", base);
      return false;
    }
    e->is_type = true;
    e->type = ty_scalar(c, (DType)dt);
    for (int i = 0; i < depth; i++) e->type = ty_ptr(c, e->type);
    return true;
  }
  int dt = dt_parse(base);
  if (dt >= 0 && !isdigit((unsigned char)base[0])) {
    e->is_type = true;
    e->type = ty_scalar(c, (DType)dt);
    if (colon && !dt_is_int((DType)dt)) {
      spec_error(s, e->loc, "a divisibility hint applies to integers and pointers, not %s", base);
      return false;
    }
    return true;
  }
  if (colon) {
    spec_error(s, e->loc, "'%s' is neither a type nor a value", t);
    return false;
  }
  bool ok;
  e->value = parse_literal(s, t, &ok);
  if (!ok) {
    spec_error(s, e->loc, "unknown type or value '%s' in the signature (types: *fp16, i32, fp32, "
               "...; values: 1024, True, 0.5)", t);
    return false;
  }
  return true;
}

/* The next comma of the signature at bracket depth 0 ([...] and <...>
 * nest), or NULL. */
static const char *next_comma(const char *p) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == '[' || *p == '<') depth++;
    else if ((*p == ']' || *p == '>') && depth > 0) depth--;
    else if (*p == ',' && depth == 0) return p;
  }
  return NULL;
}

static int split_signature(Spec *s, const char *sig, SigEntry **out) {
  VEC(SigEntry) v = {0};
  const char *p = sig;
  int col = 1;
  while (1) {
    const char *e = next_comma(p);
    size_t len = e ? (size_t)(e - p) : strlen(p);
    size_t lead = 0;
    while (lead < len && isspace((unsigned char)p[lead])) lead++;
    size_t tl = len;
    while (tl > lead && isspace((unsigned char)p[tl - 1])) tl--;
    SigEntry se = {0};
    se.text = arena_strndup(s->arena, p + lead, tl - lead);
    se.loc = (Loc){SIG_FILE, 1, col + (int)lead, 1, col + (int)tl};
    VEC_PUSH(v, se);
    if (!e) break;
    col += (int)len + 1;
    p = e + 1;
  }
  *out = v.data;
  return v.len;
}

static bool is_constexpr_param(Spec *s, const Param *p) {
  if (!p->annotation) return false;
  const Expr *a = p->annotation;
  const char *n = a->kind == EX_ATTR ? a->name : a->kind == EX_NAME ? a->name : "";
  (void)s;
  return !strcmp(n, "constexpr");
}

/* ---- @triton.heuristics ----------------------------------------------------- */

/* The values a kernel's heuristics decorators give, in the order Triton
 * computes them (the outermost decorator first, each dict in its order):
 * names[i] is set to fns[i](args), args the dict of every parameter's value
 * and of the heuristics computed before it. */
typedef struct Heuristics {
  VEC(const char *) names;
  VEC(SVal *) fns;
  VEC(Loc) locs;
} Heuristics;

static void heuristics_free(Heuristics *h) { VEC_FREE(h->names), VEC_FREE(h->fns), VEC_FREE(h->locs); }

static bool heuristics_has(const Heuristics *h, const char *name) {
  for (int i = 0; i < h->names.len; i++)
    if (!strcmp(h->names.data[i], name)) return true;
  return false;
}

static bool is_heuristics_decorator(const Expr *d) {
  if (d->kind != EX_CALL) return false;
  const Expr *c = d->value;
  return (c->kind == EX_ATTR || c->kind == EX_NAME) && !strcmp(c->name, "heuristics");
}

static bool read_heuristics(Spec *s, const FuncDef *k, Heuristics *h) {
  bool ok = true;
  for (int i = 0; i < k->ndecorators; i++) {
    const Expr *d = k->decorators[i];
    if (!is_heuristics_decorator(d)) continue;
    const Expr *vals = d->nitems ? d->items[0] : NULL;
    for (int j = 0; j < d->nkwargs; j++)
      if (d->kwargs[j].name && !strcmp(d->kwargs[j].name, "values")) vals = d->kwargs[j].value;
    SVal *v = vals ? spec_eval(s, s->globals, vals) : NULL;
    if (v && is_poison(v)) {
      ok = false;
      continue;
    }
    if (!v || v->kind != SV_DICT) {
      spec_error(s, vals ? vals->loc : d->loc, "triton.heuristics needs a dict of parameter names to "
                 "functions of the arguments, e.g. {'EVEN_N': lambda args: args['N'] %% 2 == 0}");
      ok = false;
      continue;
    }
    for (int j = 0; j < v->n; j++) {
      Loc at = vals->kind == EX_DICT && j < vals->nitems ? vals->items[j]->loc : vals->loc;
      if (v->items[j]->kind != SV_STR) {
        spec_error(s, at, "a key of triton.heuristics must be a parameter name (a string)");
        ok = false;
        continue;
      }
      const char *n = v->items[j]->s;
      bool param = false;
      for (int p = 0; p < k->nparams; p++) param |= !strcmp(k->params[p].name, n);
      if (!param) {
        spec_error(s, at, "triton.heuristics sets '%s', which is not a parameter of '%s'", n, k->name);
        ok = false;
        continue;
      }
      VEC_PUSH(h->names, n);
      VEC_PUSH(h->fns, v->values[j]);
      VEC_PUSH(h->locs, at);
    }
  }
  return ok;
}

/* The first runtime argument a lambda reads as args['NAME'] (NULL: none found). */
static const char *runtime_arg_read(const Expr *e, const char *argsname, Scope *sc) {
  if (!e) return NULL;
  if (e->kind == EX_SUBSCRIPT && e->value->kind == EX_NAME && !strcmp(e->value->name, argsname) &&
      e->nitems == 1 && e->items[0]->kind == EX_STR) {
    for (int j = 0; j < sc->vars.len; j++)
      if (!strcmp(sc->vars.data[j].name, e->items[0]->sval) && sc->vars.data[j].val->kind == SV_TENSOR)
        return e->items[0]->sval;
  }
  const Expr *kids[] = {e->value, e->lhs, e->rhs, e->cond, e->lo, e->hi, e->step};
  for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) {
    const char *r = runtime_arg_read(kids[i], argsname, sc);
    if (r) return r;
  }
  for (int i = 0; i < e->nitems; i++) {
    const char *r = runtime_arg_read(e->items[i], argsname, sc);
    if (!r && e->values) r = runtime_arg_read(e->values[i], argsname, sc);
    if (r) return r;
  }
  for (int i = 0; i < e->nkwargs; i++) {
    const char *r = runtime_arg_read(e->kwargs[i].value, argsname, sc);
    if (r) return r;
  }
  return NULL;
}

/* Evaluate the heuristics of the parameters that have no value yet (a value
 * given in the signature or by --constexpr wins, so a heuristic that needs
 * a runtime argument can be given by hand).  A result must be a
 * compile-time value. */
static void run_heuristics(Spec *s, const FuncDef *k, const Heuristics *h, Scope *sc) {
  for (int i = 0; i < h->names.len; i++) {
    const char *n = h->names.data[i];
    bool set = false;
    for (int j = 0; j < sc->vars.len; j++) set |= !strcmp(sc->vars.data[j].name, n);
    if (set) continue;
    /* args: every parameter with a value, in order */
    SVal *args = sv_new(s, SV_DICT);
    args->items = ARENA_ARRAY(s->arena, SVal *, sc->vars.len + 1);
    args->values = ARENA_ARRAY(s->arena, SVal *, sc->vars.len + 1);
    for (int j = 0; j < sc->vars.len; j++) {
      args->items[args->n] = sv_str(s, sc->vars.data[j].name);
      args->values[args->n++] = sc->vars.data[j].val;
    }
    int errs = s->d->nerrors;
    SVal *r = spec_call_value(s, h->fns.data[i], &args, 1, h->locs.data[i]);
    if (s->d->nerrors > errs) {
      spec_note(s, h->locs.data[i], "while computing the heuristic for '%s'", n);
      r = s->poison;
    } else if (!sv_is_constexpr(r)) {
      const SVal *fn = h->fns.data[i];
      const char *arg = fn->kind == SV_LAMBDA && fn->lambda_->nparams
                            ? runtime_arg_read(fn->lambda_->body, fn->lambda_->params[0].name, sc) : NULL;
      if (arg)
        spec_error(s, h->locs.data[i], "the heuristic for '%s' reads '%s', a runtime argument, so it is not "
                   "known at compile time; give '%s' a value in the signature, or '%s' itself", n, arg, arg, n);
      else
        spec_error(s, h->locs.data[i], "the heuristic for '%s' gives a runtime %s: it depends on a runtime "
                   "argument of '%s'; give that argument's value in the signature, or '%s' itself", n,
                   sv_kind_name(r), k->name, n);
      r = s->poison;
    }
    scope_set(s, sc, n, r);
  }
}

static FuncDef *find_kernel(Spec *s, const char *name) {
  const Module *m = s->ast;
  if (name) {
    FuncDef *f = ast_find_def(m, name);
    if (!f) {
      diag_plain(s->d, "no function named '%s' in %s", name, m->path);
      for (int i = 0; i < m->body.n; i++)
        if (m->body.stmts[i]->kind == ST_DEF && is_jit(m->body.stmts[i]->def))
          diag_note(s->d, m->body.stmts[i]->def->loc, "a kernel '%s' is defined here",
                    m->body.stmts[i]->def->name);
    }
    return f;
  }
  FuncDef *found = NULL;
  int n = 0;
  for (int i = 0; i < m->body.n; i++)
    if (m->body.stmts[i]->kind == ST_DEF && is_jit(m->body.stmts[i]->def))
      found = m->body.stmts[i]->def, n++;
  if (n == 1) return found;
  diag_plain(s->d, n ? "%s defines %d @jit functions; choose one with --kernel NAME"
                     : "%s defines no @triton.jit function", m->path, n);
  for (int i = 0; i < m->body.n; i++)
    if (m->body.stmts[i]->kind == ST_DEF && is_jit(m->body.stmts[i]->def))
      diag_note(s->d, m->body.stmts[i]->def->loc, "'%s' is defined here", m->body.stmts[i]->def->name);
  return NULL;
}

/* ---- entry ------------------------------------------------------------------- */

static void spec_init(Spec *s, const Module *ast, const SpecRequest *req, Arena *arena,
                      DiagEngine *d, Scope *globals) {
  memset(s, 0, sizeof *s);
  s->ast = ast, s->req = req, s->d = d, s->arena = arena;
  s->m = ir_module_new(arena);
  s->m->num_warps = req->num_warps;
  s->m->num_stages = req->num_stages;
  s->m->arch = arena_strdup(arena, req->arch);
  s->m->capability = req->capability;
  s->poison = sv_new(s, SV_POISON);
  s->none = sv_new(s, SV_NONE);
  s->true_ = sv_new(s, SV_BOOL), s->true_->i = 1;
  s->false_ = sv_new(s, SV_BOOL), s->false_->i = 0;
  memset(globals, 0, sizeof *globals);
  s->globals = globals;
  build_globals(s);
}

static const char *literal_text(Spec *s, const SVal *v) {
  switch (v->kind) {
  case SV_INT: return arena_printf(s->arena, "%lld", (long long)v->i);
  case SV_BOOL: return v->i ? "True" : "False";
  case SV_FLOAT: return arena_printf(s->arena, "%.17g", v->f);
  case SV_NONE: return "None";
  case SV_STR: return arena_printf(s->arena, "'%s'", v->s);
  case SV_DTYPE: return arena_printf(s->arena, "tl.%s", dt_name(v->type->dtype));
  default: return NULL;
  }
}

/* The parameters bound to literal values (not runtime arguments), in
 * parameter order, into the module: what a launcher computing a grid from
 * them (tlc compile --grid) may read. */
static void record_consts(Spec *s, const FuncDef *k, const Scope *sc) {
  IrModule *m = s->m;
  m->const_names = ARENA_ARRAY(s->arena, const char *, k->nparams + 1);
  m->const_values = ARENA_ARRAY(s->arena, const char *, k->nparams + 1);
  for (int p = 0; p < k->nparams; p++)
    for (int j = 0; j < sc->vars.len; j++) {
      if (strcmp(sc->vars.data[j].name, k->params[p].name)) continue;
      const char *text = literal_text(s, sc->vars.data[j].val);
      if (text) m->const_names[m->nconsts] = k->params[p].name, m->const_values[m->nconsts++] = text;
      break;
    }
}

static bool str_list(Spec *s, SVal *v, Loc loc, const char *what, const char ***out, int *n) {
  if (v->kind != SV_TUPLE) {
    spec_error(s, loc, "%s of triton.autotune must be a list of parameter names", what);
    return false;
  }
  *out = ARENA_ARRAY(s->arena, const char *, v->n + 1);
  for (int i = 0; i < v->n; i++) {
    if (v->items[i]->kind != SV_STR) {
      spec_error(s, loc, "%s of triton.autotune must be a list of parameter names (strings)", what);
      return false;
    }
    (*out)[i] = v->items[i]->s;
  }
  *n = v->n;
  return true;
}

/* ---- prune_configs_by ----------------------------------------------------------- */

static SVal *dict_get(Spec *s, SVal *d, const char *key) {
  for (int i = 0; i < d->n; i++)
    if (d->items[i]->kind == SV_STR && !strcmp(d->items[i]->s, key)) return d->values[i];
  (void)s;
  return NULL;
}

static SVal *dict_new(Spec *s, int cap) {
  SVal *d = sv_new(s, SV_DICT);
  d->items = ARENA_ARRAY(s->arena, SVal *, cap + 1);
  d->values = ARENA_ARRAY(s->arena, SVal *, cap + 1);
  return d;
}

/* Triton's nargs: every parameter by name, its value where the request
 * knows it (a literal signature entry, a NAME=VALUE), None elsewhere. */
static SVal *named_args(Spec *s, const FuncDef *k) {
  SVal *d = dict_new(s, k->nparams);
  SigEntry *sig = NULL;
  int nsig = s->req->signature ? split_signature(s, s->req->signature, &sig) : 0;
  for (int p = 0; p < k->nparams; p++) {
    SVal *v = NULL;
    for (int i = 0; i < s->req->nconstexprs; i++)
      if (!strcmp(s->req->constexprs[i].name, k->params[p].name)) {
        bool ok;
        SVal *lit = parse_literal(s, s->req->constexprs[i].value, &ok);
        if (ok) v = lit;
      }
    if (!v && p < nsig) {
      bool ok;
      SVal *lit = parse_literal(s, sig[p].text, &ok);
      if (ok) v = lit;
    }
    d->items[d->n] = sv_str(s, k->params[p].name);
    d->values[d->n++] = v ? v : s->none;
  }
  free(sig);
  return d;
}

static bool same_config(const SVal *a, const SVal *b) {
  if (a == b) return true;
  if (a->kind != SV_CONFIG || b->kind != SV_CONFIG || a->i != b->i || a->n != b->n) return false;
  const SVal *ka = a->self, *kb = b->self;
  if (ka->n != kb->n) return false;
  for (int i = 0; i < ka->n; i++) {
    bool found = false;
    for (int j = 0; j < kb->n && !found; j++)
      found = !strcmp(ka->items[i]->s, kb->items[j]->s) && ka->values[i]->kind == kb->values[j]->kind &&
              ka->values[i]->i == kb->values[j]->i && ka->values[i]->f == kb->values[j]->f;
    if (!found) return false;
  }
  return true;
}

/* perf_model(**named_args, **config.kwargs, num_warps=, num_stages=): a number */
static bool perf_estimate(Spec *s, SVal *model, SVal *nargs, SVal *c, Loc loc, double *out) {
  if (model->kind != SV_FUNC) {
    spec_error(s, loc, "perf_model must be a module-level def taking its arguments by name, not a %s",
               sv_kind_name(model));
    return false;
  }
  SVal *kw = c->self;
  int n = nargs->n + kw->n + 2;
  Keyword *kws = ARENA_ARRAY(s->arena, Keyword, n + 1);
  SVal **vals = ARENA_ARRAY(s->arena, SVal *, n + 1);
  int m = 0;
  for (int i = 0; i < kw->n; i++) kws[m] = (Keyword){kw->items[i]->s, NULL, loc}, vals[m++] = kw->values[i];
  for (int i = 0; i < nargs->n; i++) {
    bool dup = false;
    for (int j = 0; j < m; j++) dup |= !strcmp(kws[j].name, nargs->items[i]->s);
    if (!dup) kws[m] = (Keyword){nargs->items[i]->s, NULL, loc}, vals[m++] = nargs->values[i];
  }
  kws[m] = (Keyword){"num_warps", NULL, loc}, vals[m++] = sv_int(s, c->i);
  kws[m] = (Keyword){"num_stages", NULL, loc}, vals[m++] = sv_int(s, c->n);
  SVal *r = spec_call_function(s, model->fn, NULL, 0, kws, vals, m, loc);
  if (is_poison(r)) return false;
  if (r->kind != SV_INT && r->kind != SV_FLOAT && r->kind != SV_BOOL) {
    spec_error(s, loc, "perf_model must return a number (the estimated time), not a %s", sv_kind_name(r));
    return false;
  }
  *out = r->kind == SV_FLOAT ? r->f : (double)r->i;
  return true;
}

/* keep[i]: config i survives early_config_prune and perf_model's top_k. */
static bool prune_keep(Spec *s, const FuncDef *k, SVal *prune, SVal *configs, Loc loc, bool *keep) {
  if (prune->kind != SV_DICT) {
    spec_error(s, loc, "prune_configs_by must be a dict with early_config_prune, perf_model and top_k");
    return false;
  }
  for (int i = 0; i < prune->n; i++) {
    const char *key = prune->items[i]->kind == SV_STR ? prune->items[i]->s : "";
    if (strcmp(key, "early_config_prune") && strcmp(key, "perf_model") && strcmp(key, "top_k")) {
      spec_error(s, loc, "prune_configs_by has an unknown key '%s' (early_config_prune, perf_model, top_k)", key);
      return false;
    }
  }
  SVal *early = dict_get(s, prune, "early_config_prune"), *model = dict_get(s, prune, "perf_model");
  SVal *topk = dict_get(s, prune, "top_k");
  SVal *nargs = named_args(s, k);
  for (int i = 0; i < configs->n; i++) keep[i] = true;
  if (early && early->kind != SV_NONE) {
    SVal *argv[2] = {configs, nargs};
    SVal *r = spec_call_value(s, early, argv, 2, loc);
    if (is_poison(r)) return false;
    if (r->kind != SV_TUPLE) {
      spec_error(s, loc, "early_config_prune must return a list of configs, not a %s", sv_kind_name(r));
      return false;
    }
    for (int i = 0; i < configs->n; i++) keep[i] = false;
    for (int j = 0; j < r->n; j++) {
      int found = -1;
      for (int i = 0; i < configs->n && found < 0; i++)
        if (same_config(r->items[j], configs->items[i])) found = i;
      if (found < 0) {
        spec_error(s, loc, "early_config_prune returned %s, which is not one of the autotune configs",
                   sv_text(s, r->items[j]));
        return false;
      }
      keep[found] = true;
    }
  }
  if (model && model->kind != SV_NONE) {
    int alive = 0;
    for (int i = 0; i < configs->n; i++) alive += keep[i];
    int64_t top = configs->n;
    if (topk && topk->kind == SV_FLOAT && topk->f <= 1.0) top = (int64_t)(configs->n * topk->f);
    else if (topk && topk->kind == SV_INT) top = topk->i;
    else if (topk && topk->kind != SV_NONE) {
      spec_error(s, loc, "top_k must be an int or a fraction of the configs (a float <= 1), not %s", sv_text(s, topk));
      return false;
    }
    if (alive > top) {
      double *est = xcalloc((size_t)configs->n + 1, sizeof(double));
      bool ok = true;
      for (int i = 0; i < configs->n && ok; i++)
        if (keep[i]) ok = perf_estimate(s, model, nargs, configs->items[i], loc, &est[i]);
      /* keep the `top` fastest estimates (the earlier config on a tie) */
      for (int i = 0; i < configs->n && ok; i++) {
        if (!keep[i]) continue;
        int faster = 0;
        for (int j = 0; j < configs->n; j++)
          if (keep[j] && (est[j] < est[i] || (est[j] == est[i] && j < i))) faster++;
        if (faster >= top) keep[i] = false;
      }
      free(est);
      if (!ok) return false;
    }
  }
  return true;
}

static bool has_param(const FuncDef *k, const char *name) {
  for (int i = 0; i < k->nparams; i++)
    if (!strcmp(k->params[i].name, name)) return true;
  return false;
}

bool spec_autotune(const Module *ast, const SpecRequest *req, Arena *arena, DiagEngine *d,
                   SpecTune *out) {
  Spec sp, *s = &sp;
  Scope globals;
  memset(out, 0, sizeof *out);
  int errs0 = d->nerrors;
  spec_init(s, ast, req, arena, d, &globals);
  FuncDef *k = find_kernel(s, req->kernel);
  const Expr *dec = NULL;
  for (int i = 0; k && i < k->ndecorators; i++) {
    const Expr *e = k->decorators[i];
    const Expr *callee = e->kind == EX_CALL ? e->value : e;
    if (callee->kind == EX_ATTR && !strcmp(callee->name, "autotune") && e->kind == EX_CALL) dec = e;
    if (callee->kind == EX_NAME && !strcmp(callee->name, "autotune") && e->kind == EX_CALL) dec = e;
  }
  if (!dec) {
    VEC_FREE(globals.vars);
    return d->nerrors == errs0;
  }
  out->present = true;
  /* The decorator's code may call helpers that build runtime values (an
   * error later, not a crash): give them a scratch function to build in. */
  s->f = ir_func_new(s->m, k->name, k->loc);
  irb_init(&s->b, s->m, s->f, s->f->body);
  Frame fr = {.fn = k, .call_loc = dec->loc};
  s->frames[s->depth++] = &fr;
  SVal *configs = NULL, *key = NULL, *reset = NULL, *restore = NULL;
  const Expr *prune_expr = NULL;
  Loc prune_loc = dec->loc;
  if (dec->nitems > 0) configs = spec_eval(s, s->globals, dec->items[0]);
  if (dec->nitems > 1) key = spec_eval(s, s->globals, dec->items[1]);
  for (int i = 0; i < dec->nkwargs; i++) {
    const Keyword *kw = &dec->kwargs[i];
    if (!kw->name) continue;
    if (!strcmp(kw->name, "configs")) configs = spec_eval(s, s->globals, kw->value);
    else if (!strcmp(kw->name, "key")) key = spec_eval(s, s->globals, kw->value);
    else if (!strcmp(kw->name, "reset_to_zero")) reset = spec_eval(s, s->globals, kw->value);
    else if (!strcmp(kw->name, "restore_value")) restore = spec_eval(s, s->globals, kw->value);
    else if (!strcmp(kw->name, "prune_configs_by")) {
      prune_expr = kw->value; /* evaluated below, speculatively */
      prune_loc = kw->loc;
    }
    /* warmup, rep, use_cuda_graph, ... : accepted, unused */
  }
  s->depth--;
  bool ok = d->nerrors == errs0;
  if (ok && (!configs || configs->kind != SV_TUPLE)) {
    spec_error(s, dec->loc, "triton.autotune needs a list of triton.Config as its configs");
    ok = false;
  }
  if (ok && !key) {
    spec_error(s, dec->loc, "triton.autotune needs key=[...] (the parameters whose values select a config)");
    ok = false;
  }
  if (ok) ok = str_list(s, key, dec->loc, "key", &out->keys, &out->nkeys);
  if (ok && reset && reset->kind != SV_NONE) ok = str_list(s, reset, dec->loc, "reset_to_zero", &out->reset_to_zero, &out->nreset);
  if (ok && restore && restore->kind != SV_NONE)
    ok = str_list(s, restore, dec->loc, "restore_value", &out->restore_value, &out->nrestore);
  for (int i = 0; ok && i < out->nkeys; i++)
    if (!has_param(k, out->keys[i])) {
      spec_error(s, dec->loc, "autotune key '%s' is not a parameter of '%s'", out->keys[i], k->name);
      ok = false;
    }
  if (ok) {
    out->nconfigs = configs->n;
    out->configs = ARENA_ARRAY(arena, SpecTuneConfig, configs->n + 1);
    for (int i = 0; ok && i < configs->n; i++) {
      SVal *c = configs->items[i];
      if (c->kind != SV_CONFIG) {
        spec_error(s, dec->loc, "autotune config %d is a %s, not a triton.Config", i, sv_kind_name(c));
        ok = false;
        break;
      }
      SpecTuneConfig *tc = &out->configs[i];
      SVal *kw = c->self;
      tc->n = kw->n;
      tc->names = ARENA_ARRAY(arena, const char *, kw->n + 1);
      tc->values = ARENA_ARRAY(arena, const char *, kw->n + 1);
      tc->num_warps = (int)c->i;
      tc->num_stages = c->n;
      for (int j = 0; j < kw->n; j++) {
        tc->names[j] = kw->items[j]->s;
        tc->values[j] = literal_text(s, kw->values[j]);
        if (!tc->values[j]) {
          spec_error(s, dec->loc, "autotune config value for '%s' must be a constexpr literal", tc->names[j]);
          ok = false;
        } else if (!has_param(k, tc->names[j])) {
          spec_error(s, dec->loc, "autotune config sets '%s', which is not a parameter of '%s'", tc->names[j], k->name);
          ok = false;
        }
      }
    }
  }
  if (ok && prune_expr) {
    /* pruning is speculative: functions tlc cannot evaluate (or see: an
     * import from triton.ops) prune nothing */
    bool *keep = xcalloc((size_t)configs->n + 1, sizeof(bool));
    s->frames[s->depth++] = &fr;
    DiagMark mark = diag_mark(d);
    SVal *prune = spec_eval(s, s->globals, prune_expr);
    bool pok = !is_poison(prune) && (prune->kind == SV_NONE || prune_keep(s, k, prune, configs, prune_loc, keep));
    s->depth--;
    if (!pok || d->nerrors > mark.nerrors) {
      char *why = diag_rollback(d, mark);
      diag_warning(d, prune_loc, "prune_configs_by cannot be evaluated at compile time (%s); every config "
                   "is tried", why ? why : "it gave no result");
      free(why);
    } else if (prune->kind != SV_NONE) {
      for (int i = 0; i < out->nconfigs; i++) out->configs[i].pruned = !keep[i];
    }
    free(keep);
  }
  VEC_FREE(globals.vars);
  return ok && d->nerrors == errs0;
}

IrModule *spec_kernel(const Module *ast, const SpecRequest *req, Arena *arena, DiagEngine *d) {
  Spec sp, *s = &sp;
  Scope globals;
  int errs0 = d->nerrors;
  spec_init(s, ast, req, arena, d, &globals);

  FuncDef *k = find_kernel(s, req->kernel);
  if (!k) goto fail;
  s->f = ir_func_new(s->m, k->name, k->loc);
  irb_init(&s->b, s->m, s->f, s->f->body);

  SigEntry *sig = NULL;
  int nsig = 0;
  if (req->signature && *req->signature) {
    diag_add_source(d, SIG_FILE, req->signature);
    nsig = split_signature(s, req->signature, &sig);
    bool ok = true;
    for (int i = 0; i < nsig; i++) {
      if (!*sig[i].text) {
        spec_error(s, sig[i].loc, "empty entry %d in the signature", i + 1);
        ok = false;
      } else {
        ok &= parse_sig_entry(s, &sig[i]);
      }
    }
    if (!ok) goto fail_sig;
    if (nsig > k->nparams) {
      spec_error(s, sig[k->nparams].loc, "the signature has %d entries but '%s' has %d parameter%s",
                 nsig, k->name, k->nparams, k->nparams == 1 ? "" : "s");
      spec_note(s, k->loc, "'%s' is defined here", k->name);
      goto fail_sig;
    }
  }
  /* --constexpr names must be parameters */
  for (int i = 0; i < req->nconstexprs; i++) {
    bool found = false;
    for (int p = 0; p < k->nparams; p++) found |= !strcmp(k->params[p].name, req->constexprs[i].name);
    if (!found) {
      diag_plain(d, "--constexpr %s: '%s' has no parameter named '%s'", req->constexprs[i].name,
                 k->name, req->constexprs[i].name);
      diag_note(d, k->loc, "'%s' is defined here", k->name);
    }
  }
  if (d->nerrors > errs0) goto fail_sig;

  Heuristics heur = {0};
  if (!read_heuristics(s, k, &heur)) {
    heuristics_free(&heur);
    goto fail_sig;
  }
  Scope sc = {.parent = s->globals};
  for (int p = 0; p < k->nparams; p++) {
    const Param *pa = &k->params[p];
    if (pa->star) {
      spec_error(s, pa->loc, "a kernel cannot take '%s%s' (a launch passes each parameter by name)",
                 pa->star == 2 ? "**" : "*", pa->name);
      continue;
    }
    bool cexpr = is_constexpr_param(s, pa);
    const SpecConstexpr *named = NULL;
    for (int i = 0; i < req->nconstexprs; i++)
      if (!strcmp(req->constexprs[i].name, pa->name)) named = &req->constexprs[i];
    SVal *val = NULL;
    if (p < nsig && !sig[p].skip) {
      if (named) {
        spec_error(s, sig[p].loc, "parameter '%s' is given both in the signature and by --constexpr",
                   pa->name);
        continue;
      }
      if (sig[p].desc_rank) {
        if (cexpr) {
          spec_error(s, sig[p].loc, "parameter '%s' is tl.constexpr: the signature must give its value, "
                     "not a tensor descriptor", pa->name);
          spec_note(s, pa->loc, "'%s' is declared here", pa->name);
          continue;
        }
        val = spec_desc_param(s, pa->name, sig[p].type, sig[p].desc_rank, sig[p].desc_block, sig[p].loc);
      } else if (sig[p].is_type) {
        if (cexpr) {
          spec_error(s, sig[p].loc, "parameter '%s' is tl.constexpr: the signature must give its "
                     "value (e.g. 1024), not a type", pa->name);
          spec_note(s, pa->loc, "'%s' is declared here", pa->name);
          continue;
        }
        Value *arg = ir_func_add_arg(s->m, s->f, pa->name, sig[p].type, sig[p].divisibility);
        if (s->f->nargs <= 64) s->arg_sig_loc[s->f->nargs - 1] = sig[p].loc;
        val = sv_tensor(s, arg);
      } else {
        val = sig[p].value;
      }
    } else if (named) {
      bool ok;
      val = parse_literal(s, named->value, &ok);
      if (!ok) {
        diag_plain(d, "--constexpr %s=%s: '%s' is not a number, True/False, None, a dtype "
                   "(tl.float16) or a quoted string", named->name, named->value, named->value);
        continue;
      }
    } else if (heuristics_has(&heur, pa->name)) {
      continue; /* computed below, from the other arguments */
    } else if (pa->default_) {
      val = spec_eval(s, s->globals, pa->default_);
    } else {
      if (nsig)
        diag_plain(d, "no type or value for parameter '%s' of '%s': the signature has %d entr%s for "
                   "%d parameters", pa->name, k->name, nsig, nsig == 1 ? "y" : "ies", k->nparams);
      else
        diag_plain(d, "no type or value for parameter '%s' of '%s' (give --signature, e.g. "
                   "\"*fp32:16,i32,1024\")", pa->name, k->name);
      diag_note(d, pa->loc, "'%s' is declared here", pa->name);
      continue;
    }
    scope_set(s, &sc, pa->name, val);
  }
  if (d->nerrors == errs0) run_heuristics(s, k, &heur, &sc);
  heuristics_free(&heur);
  if (d->nerrors > errs0) {
    VEC_FREE(sc.vars);
    goto fail_sig;
  }
  record_consts(s, k, &sc);

  Frame fr = {.fn = k, .call_loc = k->loc};
  s->frames[s->depth++] = &fr;
  spec_exec_block(s, &sc, &k->body);
  SVal *ret = spec_exit_result(s, &sc, &fr, true);
  s->depth--;
  if (ret->kind != SV_NONE && !is_poison(ret))
    spec_error(s, k->loc, "a kernel cannot return a value ('%s' returns %s %s)", k->name,
               spec_article(sv_kind_name(ret)), sv_kind_name(ret));
  VEC_FREE(sc.vars);
  s->b.loc = k->loc;
  irb_op(&s->b, OP_RETURN, NULL, 0, NULL);
  free(sig);
  VEC_FREE(globals.vars);
  if (d->nerrors > errs0) return NULL;
  return s->m;

fail_sig:
  free(sig);
fail:
  VEC_FREE(globals.vars);
  return NULL;
}
