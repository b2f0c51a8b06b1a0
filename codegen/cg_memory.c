/* cg_memory.c — global memory: addptr, load, store, atomics.
 *
 * Vector accesses.  A thread's fragment elements i .. i+vec-1 (vec =
 * attr.vec, capped by the fragment's contiguous run and 16 bytes) are
 * consecutive along the layout's fastest dim; passes.h guarantees their
 * addresses are contiguous, aligned to vec * elem_bytes and uniformly
 * masked.  One group becomes one access of vec * elem_bytes bytes, moved as
 * words (b16/b32/b64, at most 4 of them), the elements packed into words:
 *
 *   unmasked load   load <4 x i32>, ptr addrspace(1) %p, align 16
 *   masked load     mov.b32 $0, other0; ...; @p ld.global.v4.b32 {$0,..}, [%p];
 *   store           @p st.global.v4.b32 [%p], {..};   p = mask && owner
 *
 * Stores and atomics run only in the canonical owner of each element
 * (cg_owner: replicated threads skip them); a scalar store runs in thread 0.
 * Cache modifiers (.ca/.cg/.cs/.cv/.wb/.wt) and L1 eviction priorities go
 * into the PTX of the inline-asm path; a cache modifier wins over an
 * eviction priority (PTX allows only one of them), volatile over both.
 *
 * Atomics are inline PTX `atom{.sem}{.scope}.global.op.type` (LLVM 19's
 * NVPTX backend drops the memory ordering of atomicrmw), predicated on mask
 * and ownership.  Float max/min use the integer trick (max.s32 for x >= 0,
 * min.u32 otherwise).  An fp32 add whose attr.vec coalesce set above 1
 * (sm_90) is one `atom.global.add.v2/v4.f32` a group (each element still
 * its own atomic add).  When the old value is used and the layout
 * replicates, the owners' results are broadcast to the replicas through
 * shared memory. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- addptr ------------------------------------------------------------------ */

void cg_lower_addptr(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type;
  int n = cg_nelems(cg, rt);
  CgVal *p = cg_get(cg, op, op->operands[0]), *o = cg_get(cg, op, op->operands[1]);
  DType od = op->operands[1]->type->dtype;
  LLVMTypeRef et = cg_mem_type(cg, rt->pointee ? rt->pointee->dtype : DT_I8);
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  for (int i = 0; i < n; i++) {
    if (i > 0 && p->n == 1 && o->n == 1) {
      e[i] = e[0];
      continue;
    }
    LLVMValueRef off = cg_el(o, i);
    if (!dt_is_signed(od) && dt_bits(od) < 64) off = LLVMBuildZExt(cg->b, off, cg->t_i64, "");
    e[i] = LLVMBuildGEP2(cg->b, et, cg_el(p, i), &off, 1, "");
  }
  cg_set(cg, op->results[0], e, n);
}

/* ---- vector groups ------------------------------------------------------------ */

/* Elements per access for values of tensor type t (1 for scalars). */
static int access_vec(CgCtx *cg, const Op *op, const Type *t, DType d) {
  if (!t->rank) return 1;
  CgFrag f;
  if (!cg_frag(cg, op, t, &f) || f.run_dim < 0) return 1;
  int v = op->attr.vec > 0 ? op->attr.vec : 1;
  if (v > f.run) v = f.run;
  while (v > 1 && (v * cg_dt_bytes(d) > 16 || f.run % v)) v /= 2;
  if (v & (v - 1)) v = 1;
  return v;
}

typedef struct Words {
  int wbits;   /* 8, 16, 32, 64 */
  int nw;      /* words per access (1..4) */
} Words;

void cg_words_for(DType d, int vec, int *wbits, int *nw) {
  int eb = cg_dt_bytes(d), bytes = vec * eb;
  *wbits = eb == 8 ? 64 : bytes >= 4 ? 32 : bytes * 8;
  *nw = bytes * 8 / *wbits;
}

static Words words_for(DType d, int vec) {
  int eb = cg_dt_bytes(d), bytes = vec * eb;
  Words w;
  w.wbits = eb == 8 ? 64 : bytes >= 4 ? 32 : bytes * 8;
  w.nw = bytes * 8 / w.wbits;
  return w;
}

/* The vector whose elements 0..vec-1, in order, are el[] (each an
 * extractelement of it, seen through same-width bitcasts: what
 * cg_unpack_words made of a load), as <vec x i(eb)> or <vec x d>; or NULL.  Storing a
 * loaded group as it came then takes the loaded vector itself, not a copy
 * rebuilt element by element (LLVM does not always fold the rebuild: the
 * staging of a num_stages=1 matmul kept an insertelement and a shuffle a
 * store). */
static LLVMValueRef packed_source(CgCtx *cg, DType d, LLVMValueRef *el, int vec, unsigned eb) {
  LLVMValueRef src = NULL;
  for (int k = 0; k < vec; k++) {
    LLVMValueRef x = el[k];
    while (LLVMIsABitCastInst(x) && LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(x, 0))) != LLVMVectorTypeKind)
      x = LLVMGetOperand(x, 0);
    if (!LLVMIsAExtractElementInst(x)) return NULL;
    LLVMValueRef v = LLVMGetOperand(x, 0), idx = LLVMGetOperand(x, 1);
    if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != (unsigned long long)k) return NULL;
    if (k == 0) src = v;
    else if (v != src) return NULL;
  }
  LLVMTypeRef t = LLVMTypeOf(src), et = LLVMGetElementType(t);
  LLVMTypeRef it = LLVMIntTypeInContext(cg->ctx, eb);
  if (LLVMGetVectorSize(t) != (unsigned)vec) return NULL;
  /* a float of d's width has the same bits: the caller bitcasts it to words */
  return et == it || et == cg_type(cg, d) ? src : NULL;
}

/* Register elements -> what a plain store of the group writes: one word, or
 * a vector of nw words of wbits.  A group that is a loaded vector's elements
 * is that vector (packed_source), bitcast; else the elements' bits are put
 * into one vector and bitcast to the words, never taken apart again. */
static LLVMValueRef pack_group(CgCtx *cg, DType d, LLVMValueRef *el, int vec, int wbits, int nw) {
  LLVMBuilderRef B = cg->b;
  if (vec == 1) return cg_to_bits(cg, d, cg_to_mem(cg, d, el[0]));
  unsigned eb = (unsigned)cg_dt_bytes(d) * 8;
  LLVMValueRef v = d == DT_I1 || d == DT_PTR ? NULL : packed_source(cg, d, el, vec, eb);
  if (!v) {
    v = LLVMGetUndef(LLVMVectorType(LLVMIntTypeInContext(cg->ctx, eb), (unsigned)vec));
    for (int k = 0; k < vec; k++)
      v = LLVMBuildInsertElement(B, v, cg_to_bits(cg, d, cg_to_mem(cg, d, el[k])), cg_i32(cg, k), "");
  }
  LLVMTypeRef wt = LLVMIntTypeInContext(cg->ctx, (unsigned)wbits);
  return LLVMBuildBitCast(B, v, nw == 1 ? wt : LLVMVectorType(wt, (unsigned)nw), "");
}

/* Register elements -> words (integers of wbits). */
void cg_pack_words(CgCtx *cg, DType d, LLVMValueRef *el, int vec, int wbits, int nw,
                   LLVMValueRef *out) {
  LLVMValueRef v = pack_group(cg, d, el, vec, wbits, nw);
  if (vec == 1 || nw == 1) {
    out[0] = v;
    return;
  }
  for (int k = 0; k < nw; k++) out[k] = LLVMBuildExtractElement(cg->b, v, cg_i32(cg, k), "");
}

static void unpack_vector(CgCtx *cg, DType d, LLVMValueRef v, int vec, LLVMValueRef *out);

/* A g-element group of d at ptr (aligned to the whole group) stored from /
 * loaded into registers as words: one plain (vector) access. */
void cg_store_group(CgCtx *cg, DType d, LLVMValueRef ptr, LLVMValueRef *el, int g) {
  int wbits, nw;
  cg_words_for(d, g, &wbits, &nw);
  LLVMValueRef v = pack_group(cg, d, el, g, wbits, nw);
  LLVMValueRef st = LLVMBuildStore(cg->b, v, ptr);
  LLVMSetAlignment(st, (unsigned)(g * cg_dt_bytes(d)));
}

void cg_load_group(CgCtx *cg, DType d, LLVMValueRef ptr, int g, LLVMValueRef *out) {
  int wbits, nw;
  LLVMValueRef words[4];
  cg_words_for(d, g, &wbits, &nw);
  LLVMTypeRef wt = LLVMIntTypeInContext(cg->ctx, (unsigned)wbits);
  LLVMTypeRef lt = nw == 1 ? wt : LLVMVectorType(wt, (unsigned)nw);
  LLVMValueRef ld = LLVMBuildLoad2(cg->b, lt, ptr, "");
  LLVMSetAlignment(ld, (unsigned)(g * cg_dt_bytes(d)));
  if (g == 1) {
    words[0] = ld;
    cg_unpack_words(cg, d, words, g, wbits, nw, out);
  } else {
    unpack_vector(cg, d, ld, g, out);
  }
}

/* A group of vec elements of d held in one value (a word, or a vector of
 * words) -> register elements.  Floats of their own width come out of the
 * vector as they are, not through a bitcast each. */
static void unpack_vector(CgCtx *cg, DType d, LLVMValueRef v, int vec, LLVMValueRef *out) {
  LLVMBuilderRef B = cg->b;
  bool same = dt_is_float(d) && d != DT_F8E4M3 && d != DT_F8E5M2;
  LLVMTypeRef et = same ? cg_type(cg, d) : LLVMIntTypeInContext(cg->ctx, (unsigned)cg_dt_bytes(d) * 8);
  v = LLVMBuildBitCast(B, v, LLVMVectorType(et, (unsigned)vec), "");
  for (int k = 0; k < vec; k++) {
    LLVMValueRef e = LLVMBuildExtractElement(B, v, cg_i32(cg, k), "");
    out[k] = same ? e : cg_from_mem(cg, d, cg_from_bits(cg, d, e));
  }
}

/* Words -> register elements. */
void cg_unpack_words(CgCtx *cg, DType d, LLVMValueRef *words, int vec, int wbits, int nw,
                     LLVMValueRef *out) {
  Words w = {wbits, nw};
  LLVMBuilderRef B = cg->b;
  LLVMTypeRef wt = LLVMIntTypeInContext(cg->ctx, (unsigned)w.wbits);
  if (vec == 1) {
    out[0] = cg_from_mem(cg, d, cg_from_bits(cg, d, words[0]));
    return;
  }
  LLVMValueRef v = words[0];
  if (w.nw > 1) {
    v = LLVMGetUndef(LLVMVectorType(wt, (unsigned)w.nw));
    for (int k = 0; k < w.nw; k++) v = LLVMBuildInsertElement(B, v, words[k], cg_i32(cg, k), "");
  }
  unpack_vector(cg, d, v, vec, out);
}

/* Asm register class and type of a word; 8-bit words live in 16-bit regs. */
static const char *reg_class(int wbits) { return wbits == 64 ? "l" : wbits == 32 ? "r" : "h"; }
static LLVMTypeRef reg_type(CgCtx *cg, int wbits) {
  return wbits == 64 ? cg->t_i64 : wbits == 32 ? cg->t_i32 : cg->t_i16;
}

static const char *load_qual(const OpAttrs *a) {
  if (a->is_volatile) return ".volatile";
  switch (a->cache) {
  case CACHE_CA: return ".ca";
  case CACHE_CG: return ".cg";
  case CACHE_CV: return ".cv";
  case CACHE_CS: return ".cs";
  default: break;
  }
  return a->evict == EVICT_FIRST ? ".L1::evict_first" : a->evict == EVICT_LAST ? ".L1::evict_last" : "";
}

static const char *store_qual(const OpAttrs *a) {
  switch (a->cache) {
  case CACHE_WB: return ".wb";
  case CACHE_CG: return ".cg";
  case CACHE_CS: return ".cs";
  case CACHE_WT: return ".wt";
  default: break;
  }
  return a->evict == EVICT_FIRST ? ".L1::evict_first" : a->evict == EVICT_LAST ? ".L1::evict_last" : "";
}

/* "ld.global" / "ld.volatile.global" + qualifiers */
static void mem_prefix(StrBuf *sb, const char *inst, const char *qual) {
  if (strcmp(qual, ".volatile") == 0) sb_printf(sb, "%s.volatile.global", inst);
  else sb_printf(sb, "%s.global%s", inst, qual);
}

static const char *word_ptx(int wbits) {
  return wbits == 64 ? "b64" : wbits == 32 ? "b32" : wbits == 16 ? "b16" : "u8";
}

/* Mask of a group: NULL when always true; sets *never when always false. */
static LLVMValueRef group_mask(LLVMValueRef m, bool *never) {
  int64_t c;
  *never = false;
  if (!m) return NULL;
  if (cg_is_const_int(m, &c)) {
    if (!c) *never = true;
    return NULL;
  }
  return m;
}

/* ---- load -------------------------------------------------------------------------- */

static void load_group(CgCtx *cg, const Op *op, DType d, LLVMValueRef ptr, int vec,
                       LLVMValueRef mask, LLVMValueRef *other, LLVMValueRef *out) {
  LLVMBuilderRef B = cg->b;
  Words w = words_for(d, vec);
  int bytes = vec * cg_dt_bytes(d);
  bool never;
  mask = group_mask(mask, &never);
  if (never) {
    for (int k = 0; k < vec; k++) out[k] = other ? other[k] : cg_zero(cg, d);
    return;
  }
  const char *qual = load_qual(&op->attr);
  LLVMValueRef words[4];
  LLVMTypeRef wt = LLVMIntTypeInContext(cg->ctx, (unsigned)w.wbits);
  if (!mask && (!*qual || strcmp(qual, ".volatile") == 0)) {
    LLVMTypeRef lt = vec == 1 ? cg_mem_type(cg, d) : w.nw == 1 ? wt : LLVMVectorType(wt, (unsigned)w.nw);
    LLVMValueRef ld = LLVMBuildLoad2(B, lt, ptr, "");
    LLVMSetAlignment(ld, (unsigned)bytes);
    if (*qual) LLVMSetVolatile(ld, 1);
    if (vec == 1) {
      out[0] = cg_from_mem(cg, d, ld);
      return;
    }
    unpack_vector(cg, d, ld, vec, out);
    return;
  }

  /* inline PTX: outputs $0..$nw-1, address $nw, [predicate $nw+1, others] */
  LLVMValueRef ow[4];
  if (mask) {
    if (other) {
      cg_pack_words(cg, d, other, vec, w.wbits, w.nw, ow);
    } else {
      for (int k = 0; k < w.nw; k++) ow[k] = LLVMConstNull(wt);
    }
    if (w.wbits == 8) ow[0] = LLVMBuildZExt(B, ow[0], cg->t_i16, "");
  }
  StrBuf text, cons;
  sb_init(&text);
  sb_init(&cons);
  const char *rc = reg_class(w.wbits);
  int mov_bits = w.wbits == 8 ? 16 : w.wbits;
  for (int k = 0; k < w.nw; k++) sb_printf(&cons, "%s=%s", k ? "," : "", rc);
  sb_puts(&cons, ",l");
  if (mask) {
    sb_puts(&cons, ",b");
    for (int k = 0; k < w.nw; k++) {
      sb_printf(&cons, ",%s", rc);
      sb_printf(&text, "mov.b%d $%d, $%d;\n\t", mov_bits, k, w.nw + 2 + k);
    }
    sb_printf(&text, "@$%d ", w.nw + 1);
  }
  mem_prefix(&text, "ld", qual);
  if (w.nw > 1) sb_printf(&text, ".v%d", w.nw);
  sb_printf(&text, ".%s ", word_ptx(w.wbits));
  if (w.nw > 1) sb_putc(&text, '{');
  for (int k = 0; k < w.nw; k++) sb_printf(&text, "%s$%d", k ? ", " : "", k);
  if (w.nw > 1) sb_putc(&text, '}');
  sb_printf(&text, ", [$%d];", w.nw);

  LLVMValueRef args[6];
  int na = 0;
  args[na++] = ptr;
  if (mask) {
    args[na++] = mask;
    for (int k = 0; k < w.nw; k++) args[na++] = ow[k];
  }
  LLVMTypeRef rt = reg_type(cg, w.wbits);
  LLVMTypeRef ret = rt;
  if (w.nw > 1) {
    LLVMTypeRef el[4] = {rt, rt, rt, rt};
    ret = LLVMStructTypeInContext(cg->ctx, el, (unsigned)w.nw, 0);
  }
  /* side effects: keeps the load ordered with stores and atomics (a pure asm
   * would be readnone to LLVM and could move across them) */
  LLVMValueRef call = cg_asm(cg, ret, text.data, cons.data, args, na, true);
  sb_free(&text);
  sb_free(&cons);
  if (w.nw == 1) words[0] = call;
  else
    for (int k = 0; k < w.nw; k++) words[k] = LLVMBuildExtractValue(B, call, (unsigned)k, "");
  if (w.wbits == 8) words[0] = LLVMBuildTrunc(B, words[0], cg->t_i8, "");
  cg_unpack_words(cg, d, words, vec, w.wbits, w.nw, out);
}

void cg_lower_load(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type;
  DType d = rt->dtype;
  int n = cg_nelems(cg, rt);
  CgVal *p = cg_get(cg, op, op->operands[0]);
  CgVal *m = op->operands[1] ? cg_get(cg, op, op->operands[1]) : NULL;
  CgVal *o = op->operands[2] ? cg_get(cg, op, op->operands[2]) : NULL;
  int vec = access_vec(cg, op, rt, d);
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  LLVMValueRef other[16];
  for (int i = 0; i < n; i += vec) {
    if (o)
      for (int k = 0; k < vec; k++) other[k] = cg_el(o, i + k);
    load_group(cg, op, d, cg_el(p, i), vec, m ? cg_el(m, i) : NULL, o ? other : NULL, e + i);
  }
  cg_set(cg, op->results[0], e, n);
}

/* ---- store ------------------------------------------------------------------------- */

static void store_group(CgCtx *cg, const Op *op, DType d, LLVMValueRef ptr, int vec,
                        LLVMValueRef pred, LLVMValueRef *val) {
  LLVMBuilderRef B = cg->b;
  Words w = words_for(d, vec);
  const char *qual = store_qual(&op->attr);
  if (!pred && !*qual) {
    LLVMValueRef st = LLVMBuildStore(B, pack_group(cg, d, val, vec, w.wbits, w.nw), ptr);
    LLVMSetAlignment(st, (unsigned)(vec * cg_dt_bytes(d)));
    return;
  }
  LLVMValueRef words[4];
  cg_pack_words(cg, d, val, vec, w.wbits, w.nw, words);
  if (w.wbits == 8) words[0] = LLVMBuildZExt(B, words[0], cg->t_i16, "");
  StrBuf text, cons;
  sb_init(&text);
  sb_init(&cons);
  LLVMValueRef args[6];
  int na = 0, first;
  if (pred) {
    sb_puts(&text, "@$0 ");
    sb_puts(&cons, "b,");
    args[na++] = pred;
  }
  args[na++] = ptr;
  sb_puts(&cons, "l");
  first = na;
  mem_prefix(&text, "st", qual);
  if (w.nw > 1) sb_printf(&text, ".v%d", w.nw);
  sb_printf(&text, ".%s [$%d], ", word_ptx(w.wbits), first - 1);
  if (w.nw > 1) sb_putc(&text, '{');
  for (int k = 0; k < w.nw; k++) {
    sb_printf(&text, "%s$%d", k ? ", " : "", first + k);
    sb_printf(&cons, ",%s", reg_class(w.wbits));
    args[na++] = words[k];
  }
  if (w.nw > 1) sb_putc(&text, '}');
  sb_putc(&text, ';');
  cg_asm(cg, cg->t_void, text.data, cons.data, args, na, true);
  sb_free(&text);
  sb_free(&cons);
}

void cg_lower_store(CgCtx *cg, Op *op) {
  const Type *pt = op->operands[0]->type;
  const Type *vt = op->operands[1]->type;
  DType d = vt->dtype;
  int n = cg_nelems(cg, pt);
  CgVal *p = cg_get(cg, op, op->operands[0]), *v = cg_get(cg, op, op->operands[1]);
  CgVal *m = op->operands[2] ? cg_get(cg, op, op->operands[2]) : NULL;
  int vec = access_vec(cg, op, pt, d);
  LLVMValueRef owner = cg_owner(cg, pt);
  LLVMValueRef val[16];
  for (int i = 0; i < n; i += vec) {
    bool never;
    LLVMValueRef mask = group_mask(m ? cg_el(m, i) : NULL, &never);
    if (never) continue;
    for (int k = 0; k < vec; k++) val[k] = cg_el(v, i + k);
    store_group(cg, op, d, cg_el(p, i), vec, cg_and(cg, mask, owner), val);
  }
}

/* ---- atomics ----------------------------------------------------------------------- */

static const char *sem_ptx(MemSem s) {
  switch (s) {
  case SEM_ACQUIRE: return ".acquire";
  case SEM_RELEASE: return ".release";
  case SEM_RELAXED: return ".relaxed";
  default: return ".acq_rel";
  }
}

static const char *scope_ptx(MemScope s) {
  return s == SCOPE_CTA ? ".cta" : s == SCOPE_SYS ? ".sys" : ".gpu";
}

/* PTX op.type of an atomic RMW on dtype d, or NULL (+ error). *fminmax is
 * set for float max/min, which use the two-instruction integer trick. */
static const char *rmw_ptx(CgCtx *cg, const Op *op, DType d, bool *fminmax, char *buf,
                           size_t bufsz) {
  int bits = dt_bits(d);
  bool fl = dt_is_float(d);
  *fminmax = false;
  const char *res = NULL;
  switch (op->attr.rmw) {
  case RMW_ADD: case RMW_FADD:
    if (d == DT_F32) res = "add.f32";
    else if (d == DT_F64) res = "add.f64";
    else if (d == DT_F16) res = "add.noftz.f16";
    else if (d == DT_BF16 && cg->capability >= 90) res = "add.noftz.bf16";
    else if (!fl && bits >= 32 && d != DT_PTR) res = bits == 32 ? "add.u32" : "add.u64";
    break;
  case RMW_MAX: case RMW_MIN: {
    bool mx = op->attr.rmw == RMW_MAX;
    if (d == DT_F32 || d == DT_F64) {
      *fminmax = true;
      res = "";
    } else if (!fl && bits >= 32 && d != DT_PTR) {
      snprintf(buf, bufsz, "%s.%c%d", mx ? "max" : "min", dt_is_signed(d) ? 's' : 'u', bits);
      res = buf;
    }
    break;
  }
  case RMW_UMAX: case RMW_UMIN:
    if (!fl && bits >= 32 && d != DT_PTR) {
      snprintf(buf, bufsz, "%s.u%d", op->attr.rmw == RMW_UMAX ? "max" : "min", bits);
      res = buf;
    }
    break;
  case RMW_AND: case RMW_OR: case RMW_XOR:
    if (!fl && bits >= 32 && d != DT_PTR) {
      const char *o = op->attr.rmw == RMW_AND ? "and" : op->attr.rmw == RMW_OR ? "or" : "xor";
      snprintf(buf, bufsz, "%s.b%d", o, bits);
      res = buf;
    }
    break;
  case RMW_XCHG:
    if (bits >= 32) {
      snprintf(buf, bufsz, "exch.b%d", bits);
      res = buf;
    }
    break;
  }
  if (!res)
    cg_error(cg, op, "atomic '%s' on %s is not supported on %s", ir_rmw_name(op->attr.rmw),
             dt_name(d), cg->opt->arch ? cg->opt->arch : "this target");
  return res;
}

static LLVMValueRef atomic_elem(CgCtx *cg, const Op *op, DType d, LLVMValueRef ptr,
                                LLVMValueRef pred, LLVMValueRef a, LLVMValueRef b) {
  LLVMBuilderRef B = cg->b;
  int bits = dt_bits(d);
  const char *rc = reg_class(bits);
  LLVMTypeRef it = LLVMIntTypeInContext(cg->ctx, (unsigned)bits);
  if (!pred) pred = cg_true(cg);
  const char *sem = sem_ptx(op->attr.sem), *scope = scope_ptx(op->attr.scope);
  char text[512], cons[64], opbuf[32];
  LLVMValueRef args[5];
  LLVMValueRef r;
  if (op->kind == OP_ATOMIC_CAS) {
    if (bits < 16) {
      cg_error(cg, op, "atomic_cas on %s is not supported", dt_name(d));
      return LLVMGetUndef(cg_type(cg, d));
    }
    snprintf(text, sizeof text,
             "mov.b%d $0, 0;\n\t@$1 atom%s%s.global.cas.b%d $0, [$2], $3, $4;", bits, sem, scope,
             bits);
    snprintf(cons, sizeof cons, "=%s,b,l,%s,%s", rc, rc, rc);
    args[0] = pred, args[1] = ptr, args[2] = cg_to_bits(cg, d, a), args[3] = cg_to_bits(cg, d, b);
    r = cg_asm(cg, it, text, cons, args, 4, true);
    return cg_from_bits(cg, d, r);
  }
  bool fminmax;
  const char *o = rmw_ptx(cg, op, d, &fminmax, opbuf, sizeof opbuf);
  if (!o) return LLVMGetUndef(cg_type(cg, d));
  LLVMValueRef bitsv = cg_to_bits(cg, d, a);
  if (fminmax) {
    bool mx = op->attr.rmw == RMW_MAX;
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, bitsv, LLVMConstNull(it), "");
    LLVMValueRef pneg = cg_build_and(B, pred, neg, "");
    LLVMValueRef ppos = cg_build_and(B, pred, LLVMBuildNot(B, neg, ""), "");
    snprintf(text, sizeof text,
             "mov.b%d $0, 0;\n\t"
             "@$1 atom%s%s.global.%s.s%d $0, [$3], $4;\n\t"
             "@$2 atom%s%s.global.%s.u%d $0, [$3], $4;",
             bits, sem, scope, mx ? "max" : "min", bits, sem, scope, mx ? "min" : "max", bits);
    snprintf(cons, sizeof cons, "=%s,b,b,l,%s", rc, rc);
    args[0] = ppos, args[1] = pneg, args[2] = ptr, args[3] = bitsv;
    r = cg_asm(cg, it, text, cons, args, 4, true);
  } else {
    snprintf(text, sizeof text, "mov.b%d $0, 0;\n\t@$1 atom%s%s.global.%s $0, [$2], $3;", bits,
             sem, scope, o);
    snprintf(cons, sizeof cons, "=%s,b,l,%s", rc, rc);
    args[0] = pred, args[1] = ptr, args[2] = bitsv;
    r = cg_asm(cg, it, text, cons, args, 3, true);
  }
  return cg_from_bits(cg, d, r);
}

/* Elements one atomic instruction adds: coalesce's attr.vec for an fp32
 * add on sm_90 (atom.global.add.v2/v4.f32), else 1. */
static int vector_atomic(CgCtx *cg, const Op *op, const Type *pt, DType d) {
  if (op->kind != OP_ATOMIC_RMW || (op->attr.rmw != RMW_ADD && op->attr.rmw != RMW_FADD) || d != DT_F32 ||
      cg->capability < 90)
    return 1;
  return access_vec(cg, op, pt, d);
}

/* One `atom.global.add.vN.f32` over fragment elements i .. i+vec-1 of a
 * (each element its own atomic add; the old values come back in order). */
static void atomic_add_vec(CgCtx *cg, const Op *op, int vec, LLVMValueRef ptr, LLVMValueRef pred, CgVal *a, int i,
                           LLVMValueRef *old) {
  if (!pred) pred = cg_true(cg);
  char text[512], cons[128];
  int t = 0, c = 0;
  for (int k = 0; k < vec; k++) t += snprintf(text + t, sizeof text - (size_t)t, "mov.b32 $%d, 0;\n\t", k);
  t += snprintf(text + t, sizeof text - (size_t)t, "@$%d atom%s%s.global.add.v%d.f32 {", vec, sem_ptx(op->attr.sem),
                scope_ptx(op->attr.scope), vec);
  for (int k = 0; k < vec; k++) t += snprintf(text + t, sizeof text - (size_t)t, "%s$%d", k ? ", " : "", k);
  t += snprintf(text + t, sizeof text - (size_t)t, "}, [$%d], {", vec + 1);
  for (int k = 0; k < vec; k++) t += snprintf(text + t, sizeof text - (size_t)t, "%s$%d", k ? ", " : "", vec + 2 + k);
  snprintf(text + t, sizeof text - (size_t)t, "};");
  for (int k = 0; k < vec; k++) c += snprintf(cons + c, sizeof cons - (size_t)c, "=f,");
  c += snprintf(cons + c, sizeof cons - (size_t)c, "b,l");
  for (int k = 0; k < vec; k++) c += snprintf(cons + c, sizeof cons - (size_t)c, ",f");
  LLVMValueRef args[2 + 4];
  args[0] = pred, args[1] = ptr;
  for (int k = 0; k < vec; k++) args[2 + k] = cg_el(a, i + k);
  LLVMTypeRef fs[4] = {cg->t_f32, cg->t_f32, cg->t_f32, cg->t_f32};
  LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, fs, (unsigned)vec, false);
  LLVMValueRef r = cg_asm(cg, st, text, cons, args, 2 + vec, true);
  for (int k = 0; k < vec; k++) old[k] = LLVMBuildExtractValue(cg->b, r, (unsigned)k, "");
}

void cg_lower_atomic(CgCtx *cg, Op *op) {
  const Type *pt = op->operands[0]->type;
  const Type *rt = op->results[0]->type;
  DType d = rt->dtype;
  int n = cg_nelems(cg, pt);
  bool cas = op->kind == OP_ATOMIC_CAS;
  CgVal *p = cg_get(cg, op, op->operands[0]);
  CgVal *a = cg_get(cg, op, op->operands[1]);
  CgVal *b = cas ? cg_get(cg, op, op->operands[2]) : NULL;
  CgVal *m = !cas && op->operands[2] ? cg_get(cg, op, op->operands[2]) : NULL;
  if (pt->rank) {
    CgFrag f;
    if (!cg_frag(cg, op, pt, &f)) {
      cg_set_undef(cg, op->results[0]);
      return;
    }
  }
  LLVMValueRef owner = cg_owner(cg, pt);
  LLVMValueRef *old = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  int vec = vector_atomic(cg, op, pt, d);
  for (int i = 0; i < n; i += vec) {
    bool never;
    LLVMValueRef mask = group_mask(m ? cg_el(m, i) : NULL, &never);
    if (never) {
      for (int k = 0; k < vec; k++) old[i + k] = cg_zero(cg, d);
    } else if (vec > 1) {
      atomic_add_vec(cg, op, vec, cg_el(p, i), cg_and(cg, mask, owner), a, i, old + i);
    } else {
      old[i] = atomic_elem(cg, op, d, cg_el(p, i), cg_and(cg, mask, owner), cg_el(a, i),
                           b ? cg_el(b, i) : NULL);
    }
  }
  bool used = cg->use_counts[op->results[0]->id] > 0;
  if (used && owner) {
    /* Replicas did not run the atomic: give them the owner's old value. */
    CgVal src = {n, old};
    int64_t rstride[IR_MAX_RANK];
    int64_t s = 1;
    for (int dd = rt->rank - 1; dd >= 0; dd--) rstride[dd] = s, s *= rt->shape[dd];
    LLVMValueRef *res = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
    cg_smem_exchange(cg, op, rt, &src, rt, rstride, owner, res);
    old = res;
  }
  cg_set(cg, op->results[0], old, n);
}
