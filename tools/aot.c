/* aot.c — compiled kernels as C source for a program's build (tlc compile
 * --emit c -o NAME: NAME.h and NAME.c) and a kernel's metadata as JSON
 * (--emit json, --metadata FILE).
 *
 * The generated source embeds the PTX and calls only the runtime's core
 * (tlc_kernel_from_ptx, tlc_launch, tlc_kernel_unload; tlc_bench_launch for
 * a dispatcher), so a program that links it needs libtlc_runtime_core and a
 * driver, never LLVM or the compiler.  This file writes the pair: the
 * banner, PREFIX_load / PREFIX_unload for every kernel, and a plain
 * kernel's launch function (with gx, gy, gz, or computing the --grid);
 * aot_dispatch.c writes an autotuned kernel's functions.  The metadata is
 * everything tlc_kernel_from_ptx needs, written with cJSON. */
#include "tools/aot.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ---- metadata ---------------------------------------------------------------------- */

char *aot_metadata_json(const AotKernel *k) {
  const tlc_compile_result *r = k->res;
  const tlc_compile_options *o = k->opt;
  cJSON *doc = cJSON_CreateObject();
  if (!doc) return NULL;
  cJSON_AddStringToObject(doc, "tlc_version", TLC_VERSION_STRING);
  cJSON_AddStringToObject(doc, "source", k->file);
  cJSON_AddStringToObject(doc, "kernel", o->kernel ? o->kernel : r->kernel_symbol);
  cJSON_AddStringToObject(doc, "entry", r->kernel_symbol);
  if (o->signature) cJSON_AddStringToObject(doc, "signature", o->signature);
  else cJSON_AddNullToObject(doc, "signature");
  cJSON_AddStringToObject(doc, "arch", o->arch);
  cJSON_AddNumberToObject(doc, "num_warps", r->num_warps);
  cJSON_AddNumberToObject(doc, "num_stages", o->num_stages);
  cJSON_AddNumberToObject(doc, "shared_bytes", r->shared_bytes);
  cJSON *params = cJSON_AddArrayToObject(doc, "params");
  for (int i = 0; params && i < r->nparams; i++) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", r->params[i].name);
    cJSON_AddStringToObject(p, "type", tlc_param_kind_name(r->params[i].kind));
    cJSON_AddItemToArray(params, p);
  }
  cJSON *cx = cJSON_AddObjectToObject(doc, "constexprs");
  for (int i = 0; cx && i < o->nconstexprs; i++)
    cJSON_AddStringToObject(cx, o->constexprs[i].name, o->constexprs[i].value);
  cJSON_AddNumberToObject(doc, "tensor_maps", r->ntma);
  char hash[33];
  tlc_compile_fingerprint(k->source, o, hash);
  cJSON_AddStringToObject(doc, "hash", hash);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  if (!text) return NULL;
  size_t n = strlen(text);
  char *out = malloc(n + 2);
  if (out) memcpy(out, text, n), out[n] = '\n', out[n + 1] = 0;
  cJSON_free(text);
  return out;
}

/* ---- names --------------------------------------------------------------------------- */

static bool is_ident(const char *s) {
  if (!*s || isdigit((unsigned char)*s)) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

int aot_prefix(const char *base, char *buf, size_t len, char *why, size_t whylen) {
  const char *slash = strrchr(base, '/');
  const char *name = slash ? slash + 1 : base;
  size_t n = strlen(name);
  if (n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h')) n -= 2;
  if (n == 0 || n >= len) {
    snprintf(why, whylen, "--emit c: -o '%s' does not end in a name for the generated functions", base);
    return -1;
  }
  memcpy(buf, name, n);
  buf[n] = 0;
  if (!is_ident(buf)) {
    snprintf(why, whylen,
             "--emit c: '%s' (from -o '%s') is not a C identifier; it prefixes the generated "
             "functions (%s_launch), so use letters, digits and '_'", buf, base, buf);
    return -1;
  }
  return 0;
}

/* Other characters become '_'; a keyword, a name the generated functions
 * use (stream, grid, config, ...) or one in the runtime's namespace (tlc_,
 * TLC_) gets a trailing '_'. */
void aot_c_name(const char *name, char *buf, size_t len) {
  static const char *const reserved[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
      "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
      "volatile", "while", "bool", "true", "false", "stream", "gx", "gy", "gz", "args", "st", "grid",
      "config", "key", "call", "c"};
  size_t n = 0;
  for (const char *s = name; *s && n + 2 < len; s++) buf[n++] = isalnum((unsigned char)*s) ? *s : '_';
  if (n == 0 || isdigit((unsigned char)buf[0])) buf[n++] = '_';
  buf[n] = 0;
  bool clash = !strncmp(buf, "tlc_", 4) || !strncmp(buf, "TLC_", 4);
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++) clash |= !strcmp(buf, reserved[i]);
  if (clash && n + 1 < len) buf[n++] = '_', buf[n] = 0;
}

/* The maker passes the value to tlc_launch, which converts it keeping the
 * value (docs/runtime.md). */
void aot_c_type(tlc_param_kind k, const char **type, const char **maker) {
  switch (k) {
  case TLC_PARAM_PTR: *type = "tlc_devptr", *maker = "TLC_PTR"; return;
  case TLC_PARAM_I1: *type = "bool", *maker = "TLC_I32"; return;
  case TLC_PARAM_I8: *type = "int8_t", *maker = "TLC_I32"; return;
  case TLC_PARAM_I16: *type = "int16_t", *maker = "TLC_I32"; return;
  case TLC_PARAM_I32: *type = "int32_t", *maker = "TLC_I32"; return;
  case TLC_PARAM_I64: *type = "int64_t", *maker = "TLC_I64"; return;
  case TLC_PARAM_U8: *type = "uint8_t", *maker = "TLC_U32"; return;
  case TLC_PARAM_U16: *type = "uint16_t", *maker = "TLC_U32"; return;
  case TLC_PARAM_U32: *type = "uint32_t", *maker = "TLC_U32"; return;
  case TLC_PARAM_U64: *type = "uint64_t", *maker = "TLC_U64"; return;
  case TLC_PARAM_FP16: case TLC_PARAM_BF16: case TLC_PARAM_FP32: *type = "float", *maker = "TLC_F32"; return;
  case TLC_PARAM_FP64: *type = "double", *maker = "TLC_F64"; return;
  }
  *type = "?", *maker = "?";
}

/* ---- the generated files ------------------------------------------------------------------ */

void aot_put_ptx(FILE *f, const char *name, const char *text) {
  fprintf(f, "static const char %s[] =\n    \"", name);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '\n') fputs(p[1] ? "\\n\"\n    \"" : "\\n", f);
    else if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\t') fputs("\\t", f);
    else if (*p < 32 || *p >= 127) fprintf(f, "\\%03o", *p);
    else fputc(*p, f);
  }
  fputs("\";\n\n", f);
}

void aot_put_param_descs(FILE *f, const char *tag, const tlc_compile_result *r) {
  fprintf(f, "static const tlc_param_desc %s_params[] = {\n", tag);
  for (int p = 0; p < r->nparams; p++)
    fprintf(f, "    {\"%s\", \"%s\"},\n", r->params[p].name, tlc_param_kind_name(r->params[p].kind));
  if (r->nparams == 0) fputs("    {NULL, NULL},\n", f);
  fputs("};\n\n", f);
}

void aot_put_params(FILE *f, const tlc_compile_result *r, AotParamForm form) {
  for (int i = 0; i < r->nparams; i++) {
    const char *type, *maker;
    char name[96];
    aot_c_type(r->params[i].kind, &type, &maker);
    aot_c_name(r->params[i].name, name, sizeof name);
    switch (form) {
    case AOT_DECL: fprintf(f, ",\n    %s %s", type, name); break;
    case AOT_ARGS: fprintf(f, "%s%s(%s)", i ? ", " : "", maker, name); break;
    case AOT_NAMES: fprintf(f, ", %s", name); break;
    case AOT_FIELDS: fprintf(f, "  %s %s;\n", type, name); break;
    case AOT_FROM: fprintf(f, ", c->%s", name); break;
    }
  }
}

static const char *kernel_name(const AotKernel *k) { return k->opt->kernel ? k->opt->kernel : k->res->kernel_symbol; }

static void put_banner(FILE *f, const AotEntry *es, int n, const char *prefix, const char *what) {
  fprintf(f, "/* %s.%s — generated by tlc %s (tlc compile --emit c); do not edit.\n", prefix, what,
          TLC_VERSION_STRING);
  for (int i = 0; i < n; i++) {
    const AotKernel *k = &es[i].variants[0];
    const tlc_compile_options *o = k->opt;
    if (es[i].tune) {
      fprintf(f, " * Kernel %s of %s, signature \"%s\", %s, @triton.autotune over %d config%s%s%s:\n",
              k->res->kernel_symbol, k->file, o->signature ? o->signature : "", o->arch, es[i].nvariants,
              es[i].nvariants == 1 ? "" : "s", es[i].grid ? ", grid " : "", es[i].grid ? grid_text(es[i].grid) : "");
      for (int v = 0; v < es[i].nvariants; v++) {
        char text[1024];
        tlc_tune_config_text(&es[i].tune->configs[es[i].config_of[v]], text, sizeof text);
        fprintf(f, " *   config %d: %s (the decorator's config %d), %d bytes of shared memory\n", v, text,
                es[i].config_of[v], es[i].variants[v].res->shared_bytes);
      }
      continue;
    }
    fprintf(f, " * Kernel %s of %s, signature \"%s\", %s, num_warps %d, %d bytes of shared memory%s%s.\n",
            k->res->kernel_symbol, k->file, o->signature ? o->signature : "", o->arch, k->res->num_warps,
            k->res->shared_bytes, es[i].grid ? ", grid " : "", es[i].grid ? grid_text(es[i].grid) : "");
  }
  fputs(" * Needs only the runtime's core (libtlc_runtime_core) and a CUDA driver. */\n", f);
}

void aot_tag(const AotEntry *es, int n, int i, const char *prefix, char *buf, size_t len) {
  if (n == 1) snprintf(buf, len, "%s", prefix);
  else snprintf(buf, len, "%s_%s", prefix, kernel_name(&es[i].variants[0]));
}

void aot_put_launch_body(FILE *f, const tlc_compile_result *r, const AotGrid *g, const char *kernel_expr,
                         const char *indent) {
  if (g) {
    fprintf(f, "%s  const int64_t grid[3] = {", indent);
    for (int d = 0; d < 3; d++) {
      if (d) fputs(", ", f);
      grid_put_c(f, g, d, r, aot_c_name);
    }
    fputs("};\n", f);
  }
  const char *dims = g ? "tlc_grid_dim(grid[0]), tlc_grid_dim(grid[1]), tlc_grid_dim(grid[2])" : "gx, gy, gz";
  if (r->nparams) {
    fprintf(f, "%s  const tlc_arg args[] = {", indent);
    aot_put_params(f, r, AOT_ARGS);
    fprintf(f, "};\n%s  return tlc_launch(%s, %s, stream, args, %d);\n%s}\n", indent, kernel_expr, dims,
            r->nparams, indent);
  } else {
    fprintf(f, "%s  return tlc_launch(%s, %s, stream, NULL, 0);\n%s}\n", indent, kernel_expr, dims, indent);
  }
}

/* A plain kernel's launch function: its declaration (decl) or definition. */
static void put_launch(FILE *f, const AotEntry *e, const char *tag, const char *prefix, bool decl) {
  const tlc_compile_result *r = e->variants[0].res;
  if (decl && e->grid)
    fprintf(f, "/* Launch %s on `stream` (NULL: the default stream) over the grid\n"
               " * (%s); asynchronous, as tlc_launch.\n * TLC_ERR_INVALID before %s_load. */\n",
            r->kernel_symbol, grid_text(e->grid), prefix);
  else if (decl)
    fprintf(f, "/* Launch %s on a grid of gx*gy*gz programs on `stream` (NULL: the\n"
               " * default stream); asynchronous, as tlc_launch.  TLC_ERR_INVALID before\n"
               " * %s_load. */\n", r->kernel_symbol, prefix);
  fprintf(f, "tlc_status %s_launch(tlc_stream stream%s", tag, e->grid ? "" : ", unsigned gx, unsigned gy, unsigned gz");
  aot_put_params(f, r, AOT_DECL);
  if (decl) {
    fputs(");\n\n", f);
    return;
  }
  fprintf(f, ") {\n  if (!%s_kernel) return TLC_ERR_INVALID;\n", tag);
  char kexpr[200];
  snprintf(kexpr, sizeof kexpr, "%s_kernel", tag);
  aot_put_launch_body(f, r, e->grid, kexpr, "");
}

/* What the ahead-of-time loader cannot take, and a kernel given twice. */
static int check_entries(const AotEntry *es, int n, const char *prefix, char *why, size_t whylen) {
  for (int i = 0; i < n; i++) {
    for (int v = 0; v < es[i].nvariants; v++) {
      const tlc_compile_result *r = es[i].variants[v].res;
      if (r->ntma > 0) {
        snprintf(why, whylen,
                 "--emit c: kernel '%s' takes %d tensor map%s that the launcher builds from its arguments "
                 "(TMA copies on %s), which a kernel loaded from PTX cannot have; compile it for another "
                 "arch (--arch=sm_80) or load it with tlc_kernel_from_file",
                 r->kernel_symbol, r->ntma, r->ntma == 1 ? "" : "s", es[i].variants[v].opt->arch);
        return -1;
      }
      char what[160];
      snprintf(what, sizeof what, "'%s'", kernel_name(&es[i].variants[v]));
      if (es[i].tune)
        snprintf(what, sizeof what, "'%s' (config %d)", kernel_name(&es[i].variants[v]), es[i].config_of[v]);
      if (es[i].grid && grid_check(es[i].grid, r, what, why, whylen) != 0) return -1;
    }
    if (es[i].tune && aot_tune_check(&es[i], why, whylen) != 0) return -1;
    char ti[160], tj[160];
    aot_tag(es, n, i, prefix, ti, sizeof ti);
    for (int j = 0; j < i; j++) {
      aot_tag(es, n, j, prefix, tj, sizeof tj);
      if (!strcmp(ti, tj)) {
        snprintf(why, whylen,
                 "--emit c: kernel '%s' is given twice (--kernel %d and %d); one pair of files holds each "
                 "kernel once (its launch function is %s_launch)",
                 kernel_name(&es[i].variants[0]), j + 1, i + 1, ti);
        return -1;
      }
    }
  }
  return 0;
}

static void put_header(FILE *h, const AotEntry *es, int n, const char *prefix) {
  char guard[160];
  size_t g = 0;
  for (const char *s = prefix; *s && g + 3 < sizeof guard; s++) guard[g++] = (char)toupper((unsigned char)*s);
  snprintf(guard + g, sizeof guard - g, "_H");
  bool several = n > 1 || es[0].nvariants > 1;
  put_banner(h, es, n, prefix, "h");
  fprintf(h, "#ifndef %s\n#define %s\n\n#include <stdbool.h>\n#include <stdint.h>\n\n", guard, guard);
  fputs("#include <tlc/tlc_runtime.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", h);
  fprintf(h, "/* Load the kernel%s into rt (once: again after %s_unload, or to move %s to\n"
             " * another runtime).  TLC_OK, or the runtime's status with its message in\n"
             " * tlc_runtime_error(rt)%s; the CPU device\n"
             " * (TLC_DEVICE=cpu) cannot run PTX: TLC_ERR_LOAD there. */\n"
             "tlc_status %s_load(tlc_runtime *rt);\n\n", several ? "s" : "", prefix, several ? "them" : "it",
          several ? " (then none is loaded)" : "", prefix);
  fprintf(h, "/* Unload the kernel%s (a no-op when not loaded).  Call it before\n"
             " * tlc_runtime_close of the runtime it was loaded into: closing unloads the\n"
             " * kernel%s without telling this file, so %s_load would not load %s again. */\n"
             "void %s_unload(void);\n\n", several ? "s" : "", several ? "s" : "", prefix, several ? "them" : "it",
          prefix);
  char tag[160];
  for (int i = 0; i < n; i++) {
    aot_tag(es, n, i, prefix, tag, sizeof tag);
    if (es[i].tune) aot_tune_declare(h, &es[i], tag, prefix);
    else put_launch(h, &es[i], tag, prefix, true);
  }
  fputs("#ifdef __cplusplus\n}\n#endif\n#endif\n", h);
}

static void put_source(FILE *c, const AotEntry *es, int n, const char *prefix) {
  const char *slash = strrchr(prefix, '/');
  bool tuned = false, grids = false;
  unsigned grid_helpers = 0;
  for (int i = 0; i < n; i++) tuned |= es[i].tune != NULL, grids |= es[i].grid != NULL, grid_helpers |= grid_uses(es[i].grid);
  put_banner(c, es, n, prefix, "c");
  fprintf(c, "#include \"%s.h\"\n\n#include <stddef.h>\n", slash ? slash + 1 : prefix);
  if (tuned) fputs("#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n", c);
  fputc('\n', c);
  if (grids) grid_put_helpers(c, grid_helpers), fputc('\n', c);
  for (int i = 0; i < n; i++)
    if (es[i].tune && aot_tune_float_key(&es[i])) {
      aot_tune_helpers(c);
      break;
    }
  char tag[160];
  for (int i = 0; i < n; i++) {
    aot_tag(es, n, i, prefix, tag, sizeof tag);
    if (es[i].tune) {
      aot_tune_objects(c, &es[i], tag);
      continue;
    }
    char name[200];
    snprintf(name, sizeof name, "%s_ptx", tag);
    aot_put_ptx(c, name, es[i].variants[0].res->text);
    aot_put_param_descs(c, tag, es[i].variants[0].res);
    fprintf(c, "static tlc_kernel *%s_kernel;    /* NULL: not loaded */\n\n", tag);
  }
  fprintf(c, "static tlc_runtime *%s_runtime;  /* the runtime they are loaded into; NULL: none */\n\n", prefix);
  fprintf(c, "tlc_status %s_load(tlc_runtime *rt) {\n", prefix);
  fprintf(c, "  if (rt && %s_runtime == rt) return TLC_OK;\n", prefix);
  fprintf(c, "  %s_unload();\n  tlc_status st = TLC_OK;\n", prefix);
  for (int i = 0; i < n; i++) {
    const tlc_compile_result *r = es[i].variants[0].res;
    aot_tag(es, n, i, prefix, tag, sizeof tag);
    if (es[i].tune) aot_tune_load(c, &es[i], tag);
    else
      fprintf(c, "  if (st == TLC_OK)\n    st = tlc_kernel_from_ptx(rt, %s_ptx, \"%s\", %d, %d, %s_params, %d, &%s_kernel);\n",
              tag, r->kernel_symbol, r->num_warps, r->shared_bytes, tag, r->nparams, tag);
  }
  fprintf(c, "  if (st == TLC_OK) %s_runtime = rt;\n  else %s_unload();\n  return st;\n}\n\n", prefix, prefix);
  fprintf(c, "void %s_unload(void) {\n", prefix);
  for (int i = 0; i < n; i++) {
    aot_tag(es, n, i, prefix, tag, sizeof tag);
    if (es[i].tune) aot_tune_unload(c, &es[i], tag);
    else fprintf(c, "  if (%s_kernel) tlc_kernel_unload(%s_kernel);\n  %s_kernel = NULL;\n", tag, tag, tag);
  }
  fprintf(c, "  %s_runtime = NULL;\n}\n", prefix);
  for (int i = 0; i < n; i++) {
    aot_tag(es, n, i, prefix, tag, sizeof tag);
    fputc('\n', c);
    if (es[i].tune) aot_tune_define(c, &es[i], tag, prefix);
    else put_launch(c, &es[i], tag, prefix, false);
  }
}

int aot_emit_c(const AotEntry *es, int n, const char *prefix, char **header, char **source, char *why,
               size_t whylen) {
  *header = *source = NULL;
  if (check_entries(es, n, prefix, why, whylen) != 0) return -1;
  size_t hlen = 0, clen = 0;
  FILE *h = open_memstream(header, &hlen), *c = h ? open_memstream(source, &clen) : NULL;
  if (!h || !c) {
    if (h) fclose(h), free(*header), *header = NULL;
    snprintf(why, whylen, "--emit c: out of memory");
    return -1;
  }
  put_header(h, es, n, prefix);
  put_source(c, es, n, prefix);
  bool bad = fclose(h) != 0;
  bad |= fclose(c) != 0;
  if (bad) {
    free(*header), free(*source);
    *header = *source = NULL;
    snprintf(why, whylen, "--emit c: out of memory");
    return -1;
  }
  return 0;
}
