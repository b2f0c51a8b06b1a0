/* tlc_param_kinds.h — the kinds of a kernel's runtime parameters, with the
 * name each has in signatures and messages and the bytes the driver copies
 * for it.  One X-macro list that both public headers include: the compiler
 * (compiler/tlc_compiler.h) reports a compiled kernel's parameters in these
 * kinds, and the runtime (runtime/tlc_runtime.h) launches with them and
 * takes them by name from tlc_param_desc, so the runtime's loader needs
 * nothing from the compiler.  Public: no tlc internals, C and C++.
 *
 *   X(ENUM, "name", bytes)        ORDER tlc_param_kind (the disk cache stores
 *                                 the enum's values: append, never reorder) */
#ifndef TLC_PARAM_KINDS_H
#define TLC_PARAM_KINDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TLC_PARAM_KINDS(X)                                                   \
  X(PTR, "ptr", 8)                                                           \
  X(I1, "i1", 1) X(I8, "i8", 1) X(I16, "i16", 2) X(I32, "i32", 4) X(I64, "i64", 8) \
  X(U8, "u8", 1) X(U16, "u16", 2) X(U32, "u32", 4) X(U64, "u64", 8)          \
  X(FP16, "fp16", 2) X(BF16, "bf16", 2) X(FP32, "fp32", 4) X(FP64, "fp64", 8)

/* What one runtime parameter of a compiled kernel is (constexpr and
 * value-specialized parameters are not passed at launch). */
typedef enum tlc_param_kind {
#define TLC_PARAM_ENUM_(e, name, bytes) TLC_PARAM_##e,
  TLC_PARAM_KINDS(TLC_PARAM_ENUM_)
#undef TLC_PARAM_ENUM_
} tlc_param_kind;

/* How many kinds there are (not an enumerator, so switches stay exhaustive). */
#define TLC_PARAM_ONE_(e, name, bytes) +1
enum { TLC_PARAM__COUNT = 0 TLC_PARAM_KINDS(TLC_PARAM_ONE_) };
#undef TLC_PARAM_ONE_

/* "ptr", "i32", "fp16", ...; "?" for a value outside the enum. */
static inline const char *tlc_param_kind_name(tlc_param_kind k) {
  static const char *const names[] = {
#define TLC_PARAM_NAME_(e, name, bytes) name,
      TLC_PARAM_KINDS(TLC_PARAM_NAME_)
#undef TLC_PARAM_NAME_
  };
  return (unsigned)k < TLC_PARAM__COUNT ? names[k] : "?";
}

/* Size in bytes of a parameter of this kind as passed to the driver; 0 for
 * a value outside the enum. */
static inline size_t tlc_param_kind_size(tlc_param_kind k) {
  static const unsigned char sizes[] = {
#define TLC_PARAM_SIZE_(e, name, bytes) bytes,
      TLC_PARAM_KINDS(TLC_PARAM_SIZE_)
#undef TLC_PARAM_SIZE_
  };
  return (unsigned)k < TLC_PARAM__COUNT ? sizes[k] : 0;
}

/* The kind named `name` ("fp32"); 0 and *out set, or -1 when there is none. */
static inline int tlc_param_kind_parse(const char *name, tlc_param_kind *out) {
  for (int k = 0; name && k < TLC_PARAM__COUNT; k++)
    if (!strcmp(name, tlc_param_kind_name((tlc_param_kind)k))) {
      *out = (tlc_param_kind)k;
      return 0;
    }
  return -1;
}

/* ---- tensor maps -------------------------------------------------------------
 * A kernel whose tile loads the compiler turned into bulk tensor copies (TMA,
 * sm_90) takes, after its runtime parameters, one hidden parameter per
 * recipe: a 128-byte CUtensorMap (64-byte aligned) that the launcher builds
 * for each launch from the other arguments with cuTensorMapEncodeTiled.
 * Dims run innermost (contiguous) first.  The compiler reports the recipes
 * (tlc_compile_result.tma), the runtime's launcher follows them. */
#define TLC_TMA_MAX_RANK 5
typedef struct tlc_tma_value {
  int param;                /* >= 0: the value of runtime parameter `param` */
  int64_t value;            /* else this constant */
} tlc_tma_value;

typedef struct tlc_tma_recipe {
  int base_param;           /* the pointer parameter holding the tensor's address */
  int data_type;            /* CUtensorMapDataType (6 fp16, 9 bf16, 7 fp32, 0 8-bit, ...) */
  int elem_bytes;
  int rank;
  tlc_tma_value dims[TLC_TMA_MAX_RANK];    /* extents, elements */
  tlc_tma_value strides[TLC_TMA_MAX_RANK]; /* strides[d] for d >= 1, elements */
  int box[TLC_TMA_MAX_RANK];               /* one copy's extents, elements */
  int swizzle;              /* bytes: 0, 32, 64, 128 */
} tlc_tma_recipe;

#endif
