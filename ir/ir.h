/* ir.h — the tile IR: types, layouts, values, ops, blocks, functions.
 *
 * Sections by file:
 *   types.c    element types and interned tensor/scalar types
 *   layout.c   interned layouts and their thread<->element maps
 *   ir.c       ops, blocks, values, the builder, use lists and rewriting
 *   printer.c  the stable text form (`tlc compile --emit tir`)
 *   verifier.c structural and type checks (after every pass with --verify-each)
 *   reader.c   the text form read back (`tlc opt`)
 *   report.c   internal errors about ops through the diagnostics engine
 *
 * Model.  A kernel is one IrFunc whose body is a Block: a doubly linked list
 * of Ops.  Control flow is structured: FOR / IF / WHILE own Blocks (regions)
 * that end in a YIELD or CONDITION terminator; there are no branches.
 * Values are SSA: each is an op result or a block argument, with a dense
 * per-function id so analyses keep plain arrays indexed by Value.id.
 *
 * Types are interned in the module's IrContext: two types are equal iff
 * their pointers are equal.  A type is an element type (DType, plus the
 * pointee for pointers), a shape (rank 0 = scalar) and a layout (NULL for
 * scalars and for tensors before layout assignment).  Layouts are interned
 * too.  Everything lives in the module's arena and is freed with it.
 */
#ifndef TLC_IR_H
#define TLC_IR_H

#include "support/support.h"
#include "support/tlc_param_kinds.h"

#define IR_MAX_RANK 8

/* ======================= types.c ========================================= */

typedef enum DType {
  DT_I1, DT_I8, DT_I16, DT_I32, DT_I64,
  DT_U8, DT_U16, DT_U32, DT_U64,
  DT_F8E4M3, DT_F8E5M2, DT_F16, DT_BF16, DT_F32, DT_F64,
  DT_PTR,     /* pointer to Type.pointee in global memory */
  DT__COUNT
} DType;

typedef struct Layout Layout;

typedef struct Type {
  DType dtype;
  const struct Type *pointee; /* DT_PTR: the scalar type pointed to */
  int rank;                   /* 0 = scalar */
  int64_t shape[IR_MAX_RANK];
  const Layout *layout;       /* tensors after layout assignment; NULL otherwise */
  uint32_t id;                /* unique within the context */
} Type;

typedef struct IrContext IrContext;

IrContext *ir_context_new(Arena *arena);
const Type *ty_scalar(IrContext *c, DType dt);
const Type *ty_ptr(IrContext *c, const Type *pointee);
const Type *ty_tensor(IrContext *c, const Type *elem, int rank, const int64_t *shape,
                      const Layout *layout);
/* The same type with another shape / layout / element type. */
const Type *ty_with_shape(IrContext *c, const Type *t, int rank, const int64_t *shape);
const Type *ty_with_layout(IrContext *c, const Type *t, const Layout *layout);
const Type *ty_with_elem(IrContext *c, const Type *t, const Type *elem);
const Type *ty_elem(IrContext *c, const Type *t); /* scalar element type of t */

static inline bool ty_is_tensor(const Type *t) { return t->rank > 0; }
static inline bool ty_is_ptr(const Type *t) { return t->dtype == DT_PTR; }
bool dt_is_float(DType d);
bool dt_is_int(DType d);       /* signed, unsigned and i1 */
bool dt_is_signed(DType d);    /* i8..i64 (i1 is not) */
bool dt_is_unsigned(DType d);  /* u8..u64 and i1 */
int dt_bits(DType d);          /* 1, 8, ..., 64; pointers 64 */
const char *dt_name(DType d);  /* "i32", "f16", "bf16", "f8e4m3", "ptr" */
/* Parse Triton's spellings: "fp32"/"f32"/"float32", "i32"/"int32", "bf16",
 * "u8"/"uint8", "i1"/"int1", "fp8e4nv", ... Returns -1 when unknown. */
int dt_parse(const char *s);
unsigned dt_fp8_bits(DType d, double x); /* x in f8e4m3/f8e5m2, satfinite */
int64_t ty_numel(const Type *t);     /* 1 for scalars */
int ty_elem_bytes(const Type *t);    /* size of one element in memory (i1: 1) */
/* 32-bit registers one of `threads` threads holds for a value of type t
 * spread over them: a scalar 1, a shared-memory tensor 0. */
int64_t ty_thread_regs(const Type *t, int64_t threads);
/* The runtime's kind of a kernel parameter of dtype d (scalars as their
 * type, every pointer TLC_PARAM_PTR; fp8 and f32 pass as fp32). */
tlc_param_kind dt_param_kind(DType d);
/* "tensor<128x64xf16, #blocked1>", "ptr<f32>", "i32" */
void ty_print(StrBuf *sb, const Type *t);

/* ======================= layout.c ======================================== */

typedef enum LayoutKind {
  LAY_BLOCKED,     /* sizePerThread x threadsPerWarp x warpsPerCTA, order */
  LAY_SLICE,       /* parent with dim `dim` removed */
  LAY_MMA,         /* mma.sync (version 2) / wgmma (version 3) accumulator */
  LAY_DOT_OPERAND, /* operand `op_idx` (0 = A, 1 = B) of an mma parent */
  LAY_SHARED,      /* shared memory with an XOR swizzle */
} LayoutKind;

struct Layout {
  LayoutKind kind;
  int rank;
  /* BLOCKED (and the warp arrangement of MMA) */
  int spt[IR_MAX_RANK];   /* size per thread */
  int tpw[IR_MAX_RANK];   /* threads per warp (product 32) */
  int wpc[IR_MAX_RANK];   /* warps per CTA (product num_warps) */
  int order[IR_MAX_RANK]; /* order[0] = fastest-varying dim */
  /* SLICE */
  int dim;
  const Layout *parent;   /* SLICE, DOT_OPERAND */
  /* MMA */
  int version;            /* 2 = mma.sync m16n8k16, 3 = wgmma */
  int instr[3];           /* instruction shape m, n, k */
  /* DOT_OPERAND */
  int op_idx, k_width;
  /* SHARED */
  int vec, per_phase, max_phase;
  int block;              /* wgmma's canonical layout: the contiguous dim in blocks of this
                             many elements (one swizzle row), blocks outermost; 0 = rows whole */
  uint32_t id;            /* unique within the context; printed as #name<id> */
};

const Layout *lay_blocked(IrContext *c, int rank, const int *spt, const int *tpw,
                          const int *wpc, const int *order);
const Layout *lay_slice(IrContext *c, int dim, const Layout *parent);
/* wpc = [wm, wn], or [wb, wm, wn] for a batched (rank-3) mma.sync accumulator
 * (version 2 only); instr = [m, n, k] of one instruction at either rank. */
const Layout *lay_mma(IrContext *c, int version, int rank, const int *wpc, const int *instr);
const Layout *lay_dot_operand(IrContext *c, int op_idx, const Layout *parent, int k_width);
const Layout *lay_shared(IrContext *c, int rank, int vec, int per_phase, int max_phase,
                         const int *order);
/* The same with the contiguous dim cut into blocks of `block` elements
 * (wgmma's swizzled canonical layouts; see lay_shared_offset). */
const Layout *lay_shared_blocked(IrContext *c, int rank, int vec, int per_phase, int max_phase,
                                 const int *order, int block);
/* A shared layout of rank+1 with a leading (slowest) slot dim: the ring of
 * a software-pipelined buffer; and back (the layout of one slot). */
const Layout *lay_shared_ring(IrContext *c, const Layout *slot);
const Layout *lay_shared_slot(IrContext *c, const Layout *ring);
/* The same bytes of a 2-D shared buffer seen with its dims swapped (the
 * layout of memdesc_trans's result): the order swaps, the swizzle stays. */
const Layout *lay_shared_trans(IrContext *c, const Layout *l);

/* Triton's default blocked layout for a shape: one element per thread,
 * lanes then warps laid along the fastest dims first (order = [rank-1..0]).
 * With `spt_fast` > 1 the fastest dim gets that many contiguous elements. */
const Layout *lay_default(IrContext *c, int rank, const int64_t *shape, int num_warps,
                          int spt_fast);
/* Blocked layout with the given order and size-per-thread on order[0],
 * lanes and warps distributed along `order` as far as the shape allows. */
const Layout *lay_blocked_for(IrContext *c, int rank, const int64_t *shape, int num_warps,
                              const int *order, int spt_fast);
/* The layout seen through a permutation of dims (for TRANS):
 * result dim i = source dim perm[i].  NULL when the kind cannot permute. */
const Layout *lay_permute(IrContext *c, const Layout *l, const int *perm);
/* LAY_SHARED buffers: for a 2-D buffer of shape S with order [c, r] (c the
 * contiguous dim), element (row along r, col along c) is stored at element
 * offset  row * S[c] + ((col / vec) ^ phase) * vec + col % vec,  where
 * phase = (row / per_phase) % max_phase (max_phase <= S[c] / vec).  With
 * max_phase = 1 there is no swizzle.  Rank-1 buffers are plain arrays.
 * With block = W > 0 (wgmma's canonical layouts), the contiguous dim is cut
 * into blocks of W elements stored one after another, each a W-wide buffer:
 *   (col / W) * S[r] * W + row * W + (((col % W) / vec) ^ phase) * vec + col % vec
 * A buffer of rank 3 (a ring) has a leading slot dim, order [c, r, 0]; slot
 * s starts at element s * S[1] * S[2]. */
int64_t lay_shared_offset(const Layout *l, const int64_t *shape, int64_t row, int64_t col);

/* Layout of expand_dims(x, axis) when x has layout l: l must be
 * slice(axis, P) and the result is P; NULL otherwise. */
const Layout *lay_unslice(const Layout *l, int axis);

/* ---- the thread <-> element map of distributed layouts --------------------
 *
 * For a tensor of shape S in a distributed layout (BLOCKED, SLICE, later
 * MMA/DOT_OPERAND), each thread owns a list of distinct elements: its
 * "fragment".  A blocked layout, per dim d:
 *
 *   tile_d  = spt_d * tpw_d * wpc_d           (elements one CTA pass covers)
 *   sptu_d  = min(spt_d, S_d)                 (distinct elements per pass)
 *   reps_d  = max(1, S_d / tile_d)            (passes over the dim)
 *   E_d     = sptu_d * reps_d                 (fragment extent along d)
 *   base_d  = (warp_d * tpw_d + lane_d) * spt_d
 *   coord_d(i) = (r * tile_d + base_d + j) mod S_d,  i = r * sptu_d + j
 *
 * where lane_d / warp_d are the thread's lane / warp index split over the
 * dims in `order` (order[0] fastest).  The fragment is the mixed-radix
 * product of the E_d with order[0] varying fastest, so the sptu elements a
 * thread holds contiguously along order[0] are adjacent (vector accesses).
 * When tile_d > S_d, threads differing only in lane_d/warp_d beyond S_d
 * hold the same elements (replication); loads may repeat, stores and
 * atomics must write once (see lay_replication_mask).
 *
 *   Example: S = [4, 8], spt = [1, 2], tpw = [4, 8]... (see docs/layouts.md)
 *
 * SLICE(dim k, P): the fragment of P over S with S_k := 1 inserted, dim k
 * dropped; EXPAND_DIMS is therefore free, and so is BROADCAST within a
 * layout (a broadcast dim has E = 1 in the source fragment).
 */

typedef struct LayoutFrag {
  int rank;                 /* rank of the (blocked) base layout */
  int extent[IR_MAX_RANK];  /* E_d */
  int sptu[IR_MAX_RANK];
  int tile[IR_MAX_RANK];
  int64_t shape[IR_MAX_RANK];
  int count;                /* product of extents: elements per thread */
  const Layout *base;       /* the BLOCKED layout the fragment is computed from */
  int sliced[IR_MAX_RANK];  /* 1 where the dim was removed by a SLICE */
} LayoutFrag;

/* Compute the fragment description of a tensor of `shape` (rank `rank`) in
 * distributed layout `l` (BLOCKED or nested SLICEs of one).  Returns false
 * for layouts that are not blocked-based. */
bool lay_frag(const Layout *l, int rank, const int64_t *shape, LayoutFrag *f);
/* Number of elements each thread holds. */
int lay_elems_per_thread(const Layout *l, int rank, const int64_t *shape);
/* For fragment index i, the per-dim indices (r, j) split: idx[d] in [0, E_d)
 * over the BASE layout's dims (sliced dims get 0). */
void lay_frag_index(const LayoutFrag *f, int i, int *idx);
/* Inverse: fragment index from per-dim indices of the base layout. */
int lay_frag_linear(const LayoutFrag *f, const int *idx);
/* Lanes / warps holding distinct data along base dim d for this shape (the
 * rest replicate): min(tpw_d, max(1, S_d / spt_d)) and the warp analogue. */
int lay_unique_lanes(const LayoutFrag *f, int d);
int lay_unique_warps(const LayoutFrag *f, int d);

/* ---- linear.c: every distributed layout as a linear map -----------------
 * coord(reg, lane, warp) = XOR of the basis vectors of the set bits; see
 * linear.c for the bit assignments of mma and dot-operand layouts (the one
 * place they are defined).  Register order = fragment order. */
typedef struct LinearLayout {
  int rank;
  int64_t shape[IR_MAX_RANK];
  int nreg, nlane, nwarp;             /* bits of each input */
  int64_t reg[24][IR_MAX_RANK];
  int64_t lane[5][IR_MAX_RANK];
  int64_t warp[5][IR_MAX_RANK];
} LinearLayout;

/* False for layouts that are not distributed or not supported (shapes of
 * more than 2^24 elements, rank-3 wgmma, warp counts not powers of two). */
bool ll_from_layout(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll);
void ll_coord(const LinearLayout *ll, int reg, int lane, int warp, int64_t *coord);
/* The thread holding the canonical copy of its elements: every lane/warp
 * bit whose basis vector is zero (a replica) is clear. */
bool ll_is_owner(const LinearLayout *ll, int lane, int warp);
/* Register elements 0 .. run-1 lie one after another along *dim (-1, run 1:
 * no such dim): the longest vector access the layout allows. */
int ll_run(const LinearLayout *ll, int *dim);

bool lay_is_distributed(const Layout *l);
int lay_num_warps(const Layout *l);
void lay_print(StrBuf *sb, const Layout *l); /* "#blocked<{spt=[1,4], ...}>" body */

/* ======================= ir.c ============================================ */

typedef enum OpKind {
#define OP(e, name, nops, nres, traits) OP_##e,
#include "ops.def"
#undef OP
  OP__COUNT
} OpKind;

enum {
  TR_PURE = 1, TR_ELEMENTWISE = 2, TR_TERMINATOR = 4, TR_COMMUTATIVE = 8, TR_SAME_TYPE = 16,
};

typedef struct OpInfo {
  const char *name;
  int noperands, nresults; /* -1 = variadic */
  unsigned traits;
} OpInfo;
extern const OpInfo ir_op_info[OP__COUNT];

typedef enum CmpPred { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } CmpPred;
typedef enum CombineKind {
  COMBINE_SUM, COMBINE_MAX, COMBINE_MIN, COMBINE_ARGMAX, COMBINE_ARGMIN,
  COMBINE_XOR, COMBINE_AND, COMBINE_OR, COMBINE_PROD,
  COMBINE_REGION, /* the op's region: block args (lhs..., rhs...) scalars, yields the combined values */
} CombineKind;
typedef enum RmwKind {
  RMW_ADD, RMW_FADD, RMW_MAX, RMW_MIN, RMW_UMAX, RMW_UMIN, RMW_AND, RMW_OR, RMW_XOR, RMW_XCHG,
} RmwKind;
typedef enum CacheMod { CACHE_NONE, CACHE_CA, CACHE_CG, CACHE_CV, CACHE_WB, CACHE_CS, CACHE_WT } CacheMod;
typedef enum EvictPolicy { EVICT_NORMAL, EVICT_FIRST, EVICT_LAST } EvictPolicy;
typedef enum MemSem { SEM_ACQ_REL, SEM_ACQUIRE, SEM_RELEASE, SEM_RELAXED } MemSem;
typedef enum MemScope { SCOPE_GPU, SCOPE_CTA, SCOPE_SYS } MemScope;
typedef enum DotPrecision { PREC_IEEE, PREC_TF32, PREC_TF32X3 } DotPrecision;

/* The math library (mathfns.def): which function a MATHFN op computes and
 * its typing rule. */
typedef enum MathFn {
#define MATHFN(e, name, nargs, kind, libclc) MF_##e,
#include "ir/mathfns.def"
#undef MATHFN
  MF__COUNT
} MathFn;
typedef enum MathKind {
  MK_FLOAT,      /* float operands of one type -> that type */
  MK_FLOAT_INT,  /* (float, i32) -> the float type */
  MK_TEST,       /* float -> i1 */
  MK_TO_I32,     /* float -> i32 */
  MK_TO_I64,     /* float -> i64 */
  MK_INT,        /* integers of one type -> that type */
  MK_INT_TO_I32, /* integer -> i32 */
  MK_CVT,        /* a conversion in a rounding mode (ir_mathfn_cvt gives its types) */
} MathKind;
typedef struct MathFnInfo {
  const char *name;    /* libdevice's name, printed as {fn=NAME} */
  int nargs;
  MathKind kind;
  const char *libclc;  /* libclc's OpenCL name, or NULL (codegen lowers it itself) */
} MathFnInfo;
extern const MathFnInfo ir_mathfn_info[MF__COUNT];
/* The function named `name` (mathfns.def), or -1. */
int ir_mathfn_lookup(const char *name);
/* A MK_CVT function's types: operand `from`, converted to `computed`, the
 * result typed `result`; its NVVM stem ("f2i") and rounding mode (0..3:
 * rn, rz, rd, ru).  False for other functions. */
bool ir_mathfn_cvt(MathFn fn, DType *from, DType *computed, DType *result, const char **nvvm, int *rm);

/* tl.range(..., num_stages=, loop_unroll_factor=, flatten=, warp_specialize=,
 * disallow_acc_multi_buffer=) on a FOR; zero = not given (the module's
 * num_stages applies). */
typedef struct LoopAttrs {
  int num_stages;          /* software-pipelining depth for this loop; 0 = module default */
  int unroll;              /* loop_unroll_factor; 0 = not given */
  bool flatten, warp_specialize, no_acc_multibuf;
} LoopAttrs;

/* Attributes: one record per op; each kind uses the fields its ops.def
 * comment names, the rest stay zero. */
/* CAST to a narrower float type: how it rounds (tl.cast's fp_downcast_rounding). */
typedef enum FpRounding { ROUND_RTNE, ROUND_RTZ } FpRounding;

typedef struct OpAttrs {
  int64_t ival;            /* CONSTANT (ints, i1) */
  double fval;             /* CONSTANT (floats) */
  int axis;                /* PROGRAM_ID, NUM_PROGRAMS, EXPAND_DIMS, REDUCE, SCAN, FLIP, GATHER */
  int64_t start, end;      /* ARANGE */
  int perm[IR_MAX_RANK];   /* TRANS */
  CmpPred pred;            /* CMP */
  CombineKind combine;     /* REDUCE, SCAN */
  bool reverse;            /* SCAN: from the last element along the axis to the first; SORT: descending */
  RmwKind rmw;             /* ATOMIC_RMW */
  MemSem sem;              /* atomics */
  MemScope scope;          /* atomics */
  CacheMod cache;          /* LOAD, STORE */
  EvictPolicy evict;       /* LOAD, STORE */
  bool is_volatile;        /* LOAD */
  bool precise;            /* DIV (div_rn), SQRT (sqrt_rn) */
  bool propagate_nan;      /* MIN, MAX, CLAMP */
  FpRounding rounding;     /* CAST: a float narrowing rounds to nearest even (default) or to zero */
  int vec;                 /* LOAD/STORE/ATOMIC: elements per vector access (coalesce) */
  DotPrecision precision;  /* DOT */
  MathFn fn;               /* MATHFN */
  int max_imprecise;       /* DOT */
  int hint_div[IR_MAX_RANK];    /* ASSUME: multiple_of per dim (0 = none) */
  int hint_contig[IR_MAX_RANK]; /* ASSUME: max_contiguous per dim (0 = none) */
  const char *str;         /* ASSERT message, PRINT prefix */
  bool hex;                /* PRINT: values as hexadecimal bit patterns */
  int smem_offset;         /* LOCAL_ALLOC: the buffer's byte offset (allocate-shared) */
  int ring_phase;          /* LOCAL_ALLOC: a warp-specialized loop's ring sharing bytes with the
                              other loops' (1, 2, ...: never read at once; allocate-shared may
                              overlap two different phases) */
  int scratch_offset;      /* other ops: where their codegen scratch may start (allocate-shared;
                              derived, not printed) */
  int num;                 /* ASYNC_WAIT / DOT_WAIT: groups that may stay pending */
  bool is_async;           /* DOT (wgmma): issue only; a DOT_WAIT completes it */
  LoopAttrs loop;          /* FOR: tl.range's keyword arguments */
} OpAttrs;

typedef struct Op Op;
typedef struct IrBlock IrBlock;

typedef struct Value {
  const Type *type;
  uint32_t id;          /* dense in the function */
  Op *def;              /* defining op, or NULL for block arguments */
  IrBlock *block;       /* block arguments: the owning block */
  int index;            /* result index / argument index */
  const char *name;     /* source name hint for printing (may be NULL) */
} Value;

struct IrBlock {
  Op *first, *last;
  Value **args;
  int nargs;
  Op *parent;           /* the op owning this region; NULL for the function body */
};

struct Op {
  OpKind kind;
  Loc loc;
  Value **operands;     /* arena array; entries may be NULL for optional slots */
  int noperands;
  Value **results;
  int nresults;
  IrBlock **regions;    /* FOR: [body]; IF: [then, else]; WHILE: [before, after] */
  int nregions;
  OpAttrs attr;
  IrBlock *parent;      /* block containing this op */
  Op *prev, *next;
  uint32_t id;          /* dense creation order (for analyses' side tables) */
};

typedef struct KernelArg {
  const char *name;
  Value *value;
  int divisibility;     /* ':16' hint (bytes for pointers, value for ints); 1 = none */
} KernelArg;

/* A TMA tensor map the kernel receives as a hidden parameter after its own
 * (`.param .align 64 .b8 [128]`, grid-constant), which the launcher builds
 * from the kernel's arguments with cuTensorMapEncodeTiled before each
 * launch: the recipe the pipeliner writes when it turns an affine tile load
 * into bulk tensor copies.  Dims run innermost (contiguous) first. */
enum { IR_TMA_MAX_RANK = 5 };
typedef struct IrTmaValue {
  int arg;                 /* >= 0: the runtime value of kernel argument `arg` */
  int64_t value;           /* else this constant */
} IrTmaValue;
typedef struct IrTmaDesc {
  int base_arg;            /* kernel argument holding the tensor's address */
  DType dtype;
  int rank;
  IrTmaValue dims[IR_TMA_MAX_RANK];    /* extents, elements */
  IrTmaValue strides[IR_TMA_MAX_RANK]; /* strides[d] (d >= 1) in elements; strides[0] = 1 */
  int box[IR_TMA_MAX_RANK];            /* one copy's extents */
  int swizzle;             /* bytes: 0, 32, 64 or 128 */
  Value *param;            /* the hidden parameter (a body argument after the kernel's) */
} IrTmaDesc;

typedef struct IrFunc {
  const char *name;
  KernelArg *args;
  int nargs;
  IrBlock *body;
  IrTmaDesc *tma;       /* hidden tensor-map parameters, in order */
  int ntma;
  uint32_t nvalues;     /* ids handed out so far */
  uint32_t nops;
  Loc loc;
} IrFunc;

typedef struct IrModule {
  Arena *arena;
  IrContext *ctx;
  IrFunc *func;         /* the kernel */
  int num_warps;        /* the warps the layouts span (the consumers when warp-specialized) */
  int producer_warps;   /* warps added for WARP_ROLES' producer (0: none); the launch
                           runs num_warps + producer_warps warps */
  int warps_asked;      /* the request's num_warps when the consumer-warpgroups pass
                           raised num_warps (two consumer warpgroups); else 0 */
  bool keep_warps;      /* consumer-warpgroups must leave num_warps as asked (the
                           compiler's second try when warp-specialize left the split
                           loop alone) */
  bool split_alone;     /* consumer-warpgroups split for registers one warpgroup cannot
                           have: kept without a producer */
  int program_order;    /* 0: block b runs program b (launch order); G > 0: heaviest
                           program_id(0) first, the grid's rows in groups of G
                           (pass program-order, codegen cg_program_order.c) */
  int num_stages;
  uint8_t *hoisted;     /* by Value.id (< nhoisted): a dot operand hoist-invariants moved
                           out of a loop (assign-layouts reads it back inside; derived,
                           not printed) */
  uint32_t nhoisted;
  int warp_specialize;  /* the compile option: 0 auto (the loops marked
                           tl.range(warp_specialize=True)), 1 every loop the pass can take, -1 none */
  int threads_per_warp; /* 32 */
  int capability;       /* 80, 90, ... */
  const char *arch;     /* "sm_90a" */
  int smem_buffers_end; /* bytes of shared memory taken by LOCAL_ALLOC buffers
                           (set by the allocate-shared pass); codegen puts its
                           per-op scratch after this offset */
  bool scratch_per_op;  /* allocate-shared set each op's attr.scratch_offset: where its
                           scratch may start (else smem_buffers_end for all) */
  int shared_bytes;     /* dynamic shared memory the kernel needs (set by codegen) */
  int nconsts;          /* the parameters specialization made constants (constexprs, the
                           signature's literal entries, defaults, heuristics), in order */
  const char **const_names, **const_values; /* values as Python-literal text: "128", "True" */
} IrModule;

IrModule *ir_module_new(Arena *arena);
IrFunc *ir_func_new(IrModule *m, const char *name, Loc loc);
/* Add a hidden tensor-map parameter (returns its index in f->tma). */
int ir_func_add_tma(IrModule *m, IrFunc *f, const IrTmaDesc *d);
/* Add a kernel argument (a block argument of the body). */
Value *ir_func_add_arg(IrModule *m, IrFunc *f, const char *name, const Type *t, int divisibility);

IrBlock *ir_block_new(IrModule *m, Op *parent);
Value *ir_block_add_arg(IrModule *m, IrFunc *f, IrBlock *b, const Type *t);

/* Create an op (not yet inserted).  `operands` may contain NULL for optional
 * slots; result types must not be NULL.  Regions are created empty. */
Op *ir_op_new(IrModule *m, IrFunc *f, OpKind k, Loc loc, Value **operands, int noperands,
              const Type **result_types, int nresults, int nregions);
void ir_insert_before(Op *pos, Op *op);
void ir_insert_after(Op *pos, Op *op);
void ir_append(IrBlock *b, Op *op);
void ir_remove(Op *op);               /* unlink (does not check uses) */
void ir_set_operand(Op *op, int i, Value *v);
/* Append n operands to op (a yield growing with its loop). */
void ir_add_operands(IrModule *m, Op *op, Value **vals, int n);
/* Replace FOR `loop` by one with n more iter args (initial values inits,
 * new block args at the end of the same body, new results at the end);
 * uses of the old results are redirected.  The body's yield must then be
 * given n more operands (ir_add_operands).  Returns the new loop. */
Op *ir_for_add_iter_args(IrModule *m, IrFunc *f, Op *loop, Value **inits, int n);

/* Is v defined by a constant 0 (scalar or tensor, integer or float)? */
bool ir_is_zero_const(const Value *v);
/* Replace every use of `from` by `to` inside `scope` (recursively through
 * regions).  Returns the number of uses replaced. */
int ir_replace_uses(IrBlock *scope, Value *from, Value *to);
/* Count uses of each value in the function (array indexed by Value.id,
 * length f->nvalues, heap-allocated). */
int *ir_use_counts(IrFunc *f);
/* Walk every op in program order (pre-order: an op before its regions). */
typedef void (*OpVisitor)(Op *op, void *ud);
void ir_walk(IrBlock *b, OpVisitor fn, void *ud);
/* Collect the ops of a function in pre-order into a heap array. */
Op **ir_collect_ops(IrFunc *f, int *count);
/* Is v defined outside `block`: neither in it (an op's result or an
 * argument) nor in a region nested in it?  (Loop invariance of v for a loop
 * whose body is `block`.) */
bool ir_defined_outside(const IrBlock *block, const Value *v);
/* Does op, or an op of its regions at any depth, take v as an operand? */
bool ir_op_uses(const Op *op, const Value *v);
/* Is op a staging: a LOCAL_ALLOC that stores a tensor value into its new
 * buffer (an empty buffer, a ring or barriers, has no operand)? */
bool ir_is_staging(const Op *op);
/* The registers a thread holds for a loop body's carried values (its
 * arguments after the induction variable), over `threads` threads. */
int64_t ir_carried_regs(const IrBlock *body, int64_t threads);
/* The same, pointer tensors left out: address arithmetic, which the
 * pipeliner turns into ring slots and scalar offsets. */
int64_t ir_carried_data_regs(const IrBlock *body, int64_t threads);
/* The registers a thread holds at a loop body's widest point, roughly: the
 * carried values and, beside them, the largest dot result of the body
 * (attention's S = q @ k^T while acc lives on). */
int64_t ir_loop_regs(const IrBlock *body, int64_t threads);
/* ir_loop_regs with pointer tensors left out of the carried values (before
 * the pipeliner, which turns address arithmetic into ring slots). */
int64_t ir_loop_data_regs(const IrBlock *body, int64_t threads);
/* Warp specialization's registers.  An SM has IR_SM_REGS; every thread of a
 * kernel compiled for `ctas` CTAs an SM (.minnctapersm) starts at
 * ir_ws_entry_regs (a multiple of 8, at most 256); the producer warpgroup
 * gives its back down to IR_WS_PRODUCER_REGS (setmaxnreg.dec) and the
 * consumers take the rest of the CTA's allocation, entry count times
 * threads (setmaxnreg.inc blocks until the CTA's pool has what it asks, so
 * asking more than that pool would hang): ir_ws_consumer_regs.  The producer
 * keeps 24 (FlashAttention-3's count; at 40 the consumers of seed 000's
 * causal D64 forward at two CTAs got 96 and spilled 24-28 bytes, at 24 they
 * get 104 and do not).  The driver's linker drops setmaxnreg; the runtime
 * loads such kernels from their PTX (runtime/kernel.c rt_moves_registers). */
enum { IR_SM_REGS = 65536, IR_WARPGROUP_THREADS = 128, IR_WS_PRODUCER_REGS = 24 };
int ir_ws_entry_regs(int ctas, int64_t launch_threads);
int ir_ws_consumer_regs(int ctas, int64_t consumer_threads, int64_t producer_threads);
/* One consumer warpgroup at 2 CTAs an SM (232 registers a consumer): a loop
 * may hold this many (ir_loop_regs) for that to pay, by measurement:
 * attention D64 with 128-row blocks holds 130 (acc 64, S 64; 168 registers
 * unspecialized); specialized at 2 CTAs its forward ran 449 TFLOP/s against
 * 459 unspecialized on the H200 (session 24 §1, setmaxnreg kept; the 6x
 * slowdown measured before was the linker's dropping setmaxnreg, session 23
 * §4), and two consumer warpgroups (below) do better.  D128 with 128-row
 * blocks carried more and spilled. */
enum { IR_WS_CARRIED_REGS_AT_2_CTAS = 112 };
/* Two consumer warpgroups at 2 CTAs an SM (104 registers a consumer): a
 * loop may hold the consumers' count less this headroom (p, addresses, the
 * softmax's temporaries), by measurement: attention D64 with 128-row blocks
 * split onto two warpgroups holds 68 and ran 510 TFLOP/s against 459
 * unspecialized on the H200 (N4096; N16384 476 against 438, causal 444
 * against 420; session 24 §4); D128 holds 100. */
enum { IR_WS_SPLIT_HEADROOM_REGS = 24 };
/* May a loop holding loop_regs registers a consumer thread (ir_loop_regs or
 * ir_loop_data_regs over consumer_threads) run specialized at 2 CTAs an SM,
 * by the two rules above?  False beyond two consumer warpgroups. */
bool ir_ws_loop_fits_2_ctas(int64_t loop_regs, int64_t consumer_threads);
/* The CTAs an SM a warp-specialized kernel is compiled for: 2 for one or two
 * consumer warpgroups unless the entry count cannot hold the work: an
 * instruction that needs more at once (ptxas fits every instruction in the
 * entry count: a wgmma m64n256's fp32 accumulator alone is 128 registers,
 * "Insufficient registers (128)"; an instruction N wider than the entry
 * count is refused), or a loop that does not fit (ir_ws_loop_fits_2_ctas);
 * else 1.  Codegen's .minnctapersm and warp-specialize's shared rings. */
int ir_ws_ctas_per_sm(IrFunc *f, int64_t consumer_threads);
/* The alignment allocate-shared gives a buffer of type t: 1024 for wgmma's
 * swizzled layouts (the swizzle pattern repeats every 1024 bytes), else 128. */
int64_t ir_smem_align(const Type *t);
/* Bytes of shared memory one program may take on a GPU of this capability
 * (dynamic, opted in): what codegen checks a kernel against, and what a pass
 * that lengthens a buffer's life must stay under. */
int64_t ir_smem_limit(int capability);
/* Bytes of shared memory each of `ctas` programs may take for that many to
 * run on one SM at once (an SM keeps 1 KB a CTA for itself). */
int64_t ir_smem_per_cta(int capability, int ctas);
/* Rows of the grid (programs sharing program_id(1) and (2)) a heaviest-first
 * program order hands out together (passes/program_order.c). */
enum { IR_PROGRAM_ORDER_GROUP = 8 };
/* A value -> value map indexed by Value.id (for cloning and rewriting). */
typedef struct ValueMap {
  Value **map;
  uint32_t cap;
} ValueMap;
Value *vmap_get(const ValueMap *vm, Value *v);   /* v itself when unmapped */
void vmap_set(ValueMap *vm, Value *from, Value *to);
void vmap_free(ValueMap *vm);

/* ---- the builder ---------------------------------------------------------- */

typedef struct IrBuilder {
  IrModule *m;
  IrFunc *f;
  IrBlock *block;   /* insertion block */
  Op *before;       /* insert before this op; NULL = at the end of block */
  Loc loc;          /* location given to new ops */
} IrBuilder;

void irb_init(IrBuilder *b, IrModule *m, IrFunc *f, IrBlock *block);
Op *irb_insert(IrBuilder *b, Op *op);
Op *irb_op(IrBuilder *b, OpKind k, Value **operands, int nops, const Type *result);
Value *irb_const_int(IrBuilder *b, const Type *t, int64_t v);
Value *irb_const_float(IrBuilder *b, const Type *t, double v);
Value *irb_unary(IrBuilder *b, OpKind k, Value *x);
Value *irb_binary(IrBuilder *b, OpKind k, Value *x, Value *y);   /* result type of x */
Value *irb_cmp(IrBuilder *b, CmpPred p, Value *x, Value *y);
Value *irb_select(IrBuilder *b, Value *c, Value *x, Value *y);
Value *irb_cast(IrBuilder *b, Value *x, const Type *to);
Value *irb_splat(IrBuilder *b, Value *x, const Type *to);
Value *irb_broadcast(IrBuilder *b, Value *x, const Type *to);
Value *irb_expand_dims(IrBuilder *b, Value *x, int axis);
Value *irb_arange(IrBuilder *b, int64_t start, int64_t end);
Value *irb_convert(IrBuilder *b, Value *x, const Layout *to);
/* Deep-copy `op` (with its regions) at the builder's insertion point,
 * mapping operands through `vm`; the clone's results are recorded in `vm`. */
Op *irb_clone(IrBuilder *b, Op *op, ValueMap *vm);

/* ======================= printer.c ======================================= */

void ir_print_module(StrBuf *sb, const IrModule *m);
void ir_print_op(StrBuf *sb, const Op *op);
const char *ir_pred_name(CmpPred p);
const char *ir_combine_name(CombineKind k);
const char *ir_rmw_name(RmwKind k);
const char *ir_sem_name(MemSem s);
const char *ir_scope_name(MemScope s);

/* ======================= verifier.c ====================================== */

/* Check SSA dominance (a use after its definition, within enclosing
 * regions), arities from ops.def, types of each op's operands and results,
 * and, when `layouts` is true, that every tensor has a layout consistent
 * with its op.  Reports problems as errors (internal: "IR verifier: ...")
 * into `out`; returns the number found. */
int ir_verify(const IrModule *m, bool layouts, StrBuf *out);

/* ======================= reader.c ======================================== */

/* Read the printer's text form back (`tlc opt`): layout aliases, the func
 * line, its ops with their attributes and regions; `//` comments are
 * skipped.  Each op's Loc is its place in `path`.  Returns NULL after
 * reporting the first error (located) to d; the module lives in `arena`. */
IrModule *ir_read_module(const char *path, const char *text, Arena *arena, DiagEngine *d);

/* ======================= report.c ======================================== */

/* An internal compiler error about `op` (NULL: none) through the
 * diagnostics engine: at the op's source position, the op as a note. */
void ir_internal_error(DiagEngine *d, const Op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ir_vinternal_error(DiagEngine *d, const Op *op, const char *fmt, va_list ap);
/* ir_verify, its findings reported as one error ("the IR is invalid
 * <when>", the verifier's report as the note): an internal error when tlc
 * made the IR, a user error when the user wrote it (tlc opt's input).
 * Returns the number of problems. */
int ir_verify_report(const IrModule *m, bool layouts, DiagEngine *d, bool internal, const char *when);

#endif
