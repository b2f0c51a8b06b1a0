/* cg_internal.h — private to codegen/: the lowering context and the helpers
 * each codegen file exports to the others.
 *
 * Sections by file:
 *   cg_module.c   context, target machine, kernel signature, verify, O3, PTX
 *   cg_util.c     LLVM types of tile types, constants, intrinsics, inline PTX
 *   cg_layout.c   thread ids and the per-element coordinates of a fragment
 *   cg_lower.c    the op dispatcher and region walking
 *   cg_arith.c    elementwise arithmetic, math, comparisons, casts
 *   cg_memory.c   addptr, load, store, atomics
 *   cg_reduce.c   reductions (thread, warp shuffles, shared memory)
 *   cg_convert.c  layout conversions and shape ops (splat, arange, expand_dims,
 *                 broadcast, trans, reshape) and the shared-memory exchange
 *   cg_control.c  for / if / while
 *   cg_shared.c   shared buffers: addresses, local_alloc, local_load, ring
 *                 slots (memdesc_index)
 *   cg_async.c    cp.async copies into shared views, their groups and waits
 *   cg_tma.c      bulk tensor copies (TMA), mbarriers, hidden tensor-map params
 *   cg_dot.c      dot on mma.sync (ldmatrix operands) and as FMAs
 *   cg_wgmma.c    dot on wgmma (sm_90a), asynchronous groups, dot_wait
 *   cg_debug.c    device_print (vprintf)
 *   cg_mathlib.c  the math library (MATHFN ops, fp64 math): intrinsics,
 *                 approximations and libclc's functions, linked in
 *   cg_libclc_data.c  the embedded libclc bitcode
 *   cg_libdevice.c  the optional libdevice backend: finding the file, the
 *                 __nv_ name of each math function, calls, linking
 *
 * Value representation.  Every IR value lowers to a CgVal: a per-thread
 * array of LLVM scalars.  A scalar IR value has one element (identical in
 * every thread).  A tensor in a distributed layout has one element per entry
 * of the thread's fragment, in the fragment order that ir.h's LayoutFrag
 * defines for blocked layouts and ir/linear.c for every distributed layout
 * (mma accumulators and dot operands included).  Elements are always
 * indexed with compile-time constants, so nothing lands in local memory.
 *
 * Element LLVM types: i1, i8..i64 (signedness lives in the tile type), half,
 * bfloat, float, double, fp8 as i8 (bits), pointers as `ptr addrspace(1)`.
 * In memory an i1 takes one byte (i8).
 *
 * Shared memory: one `external addrspace(3) global [0 x i8]` array (dynamic
 * shared memory, align 1024).  The local_alloc buffers sit at their
 * attr.smem_offset below m->smem_buffers_end; ops that need scratch (layout
 * conversion, reshape, cross-warp reductions, result broadcast of atomics)
 * use it from cg->scratch_base on (the op's attr.scratch_offset: above the
 * buffers live at it, allocate-shared), bracketed by barriers, and never
 * keep data there across ops; cg->smem_bytes is the largest end. */
#ifndef TLC_CG_INTERNAL_H
#define TLC_CG_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "codegen/codegen.h"

/* ======================= per-value storage ================================ */

typedef struct CgVal {
  int n;               /* elements per thread; 1 for scalars */
  LLVMValueRef *v;     /* n values in fragment order */
} CgVal;

/* ======================= cg_layout.c ====================================== */

/* A fragment description: which elements of a tensor a thread holds and in
 * what order, for any distributed layout, through its linear form
 * (ir/linear.c): element i of the thread (lane, warp) sits at
 * XOR(reg bases of i's bits) ^ XOR(lane bases) ^ XOR(warp bases). */
typedef struct CgFrag {
  LinearLayout ll;
  const Layout *layout;
  int rank;                   /* tensor rank */
  int count;                  /* elements per thread = 1 << ll.nreg */
  int run_dim;                /* dim the first `run` registers step along (1, 2, 4...), -1: none */
  int run;                    /* consecutive registers that are consecutive elements along run_dim */
} CgFrag;

/* Per (layout, shape): the thread part of each coordinate, built in the
 * prologue, and the bits it can take. */
typedef struct CgThreadParts {
  const Layout *layout;
  int rank;
  int64_t shape[IR_MAX_RANK];
  LLVMValueRef off[IR_MAX_RANK];
  int64_t bits[IR_MAX_RANK];  /* OR of the lane and warp bases along each dim */
} CgThreadParts;

/* ======================= the context ====================================== */

typedef struct CgOwnerCache {
  const Type *type;
  LLVMValueRef pred;          /* NULL when every thread owns its elements */
} CgOwnerCache;

typedef enum CgRole { CG_ROLE_NONE, CG_ROLE_PRODUCER, CG_ROLE_CONSUMER } CgRole;

typedef struct CgCtx {
  IrModule *m;
  IrFunc *f;
  const CgOptions *opt;
  DiagEngine *diag;           /* where cg_error and cg_user_error report */
  bool failed;                /* an internal error was reported */
  bool user_failed;           /* a user error was reported (cg_user_error) */
  bool passes_ran, printed;   /* the O-pipeline ran; the PTX printer finished (see release_annotations) */
  bool uses_libclc;           /* a libclc function was declared: link the library before O3 */
  bool uses_libdevice;        /* a libdevice function was declared: link it before O3 */
  char *ld_path;              /* with opt->libdevice: the file (cg_libdevice_open) */
  LLVMModuleRef ld_mod;       /* libdevice, parsed in ctx on the first call; linked in finish */
  bool ld_tried;              /* parsing was attempted (ld_mod NULL after: it failed, reported) */
  const Op *last_error_op;    /* report one error per op, not one per element */
  Arena arena;                /* codegen-private memory, freed at the end */
  int capability;             /* 80, 90, ... */
  int num_warps, nthreads;    /* the warps and threads the layouts span (the consumers of
                                 warp-specialized code) */
  int launch_threads;         /* the block: nthreads plus the producer warps' threads */
  int ws_ctas_per_sm;         /* warp-specialized: the CTAs an SM runs (.minnctapersm) */
  CgRole role;                /* the WARP_ROLES region being lowered (CG_ROLE_NONE outside) */
  bool producer_joins;        /* region 0 of WARP_ROLES ended in the join barrier */
  int *use_counts;            /* by Value.id */

  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  LLVMBuilderRef b;           /* the current insertion point */
  LLVMBuilderRef pro;         /* end of the entry block: thread-invariant values */
  LLVMValueRef fn;
  LLVMBasicBlockRef entry;
  LLVMValueRef smem;          /* @global_smem */
  int smem_bytes;             /* largest scratch request */
  int scratch_base;           /* where the op being lowered may put scratch (bytes) */
  const Op *smem_over_op;     /* first op whose shared memory passed the limit */

  LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_bf16, t_f32, t_f64;
  LLVMTypeRef t_gptr, t_sptr; /* ptr addrspace(1), ptr addrspace(3) */

  LLVMValueRef tid, lane, warp; /* i32, in the prologue */
  LLVMValueRef tid_guard;     /* tid again, opaque to LLVM (cg_guard_tid), or NULL */
  LLVMValueRef pid[3];        /* program_id(0..2) in the prologue when the module's
                                 program_order maps blocks to programs; else NULL */
  CgVal *vals;                /* by Value.id */
  uint32_t nvals;
  VEC(CgThreadParts) parts;
  VEC(CgOwnerCache) owners;
  const Op *lazy_ld[2];       /* local_loads of the mma.sync dot lowered next whose ldmatrix
                                 the dot issues k step by k step (cg_dot.c) */
} CgCtx;

/* ======================= cg_util.c ======================================== */

void cg_error(CgCtx *cg, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

LLVMTypeRef cg_type(CgCtx *cg, DType d);        /* register type of an element */
LLVMTypeRef cg_mem_type(CgCtx *cg, DType d);    /* in-memory type (i1 -> i8) */
int cg_dt_bytes(DType d);                        /* bytes in memory */
LLVMValueRef cg_i32(CgCtx *cg, int64_t v);
LLVMValueRef cg_i64(CgCtx *cg, int64_t v);
LLVMValueRef cg_int(LLVMTypeRef t, int64_t v);
LLVMValueRef cg_true(CgCtx *cg);
LLVMValueRef cg_zero(CgCtx *cg, DType d);
bool cg_is_const_int(LLVMValueRef v, int64_t *out);
LLVMValueRef cg_and(CgCtx *cg, LLVMValueRef a, LLVMValueRef b); /* NULL = true */
/* LLVMBuildAdd & co. that build nothing for an identity (x + 0, x * 1,
 * x & -1, x << 0, ...: the operand) or an absorbing constant (x * 0, x & 0:
 * the zero), scalar integers; codegen builds its integer arithmetic with
 * these (cg_util.c). */
LLVMValueRef cg_build_add(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_sub(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_mul(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_and(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_or(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_xor(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_shl(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_lshr(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);
LLVMValueRef cg_build_ashr(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name);

/* Call an LLVM intrinsic by name, overloaded on `tys`. */
LLVMValueRef cg_intrin(CgCtx *cg, const char *name, LLVMTypeRef *tys, int ntys,
                       LLVMValueRef *args, int nargs);
/* Inline PTX: returns the call (a struct when ret is a struct type). */
LLVMValueRef cg_asm(CgCtx *cg, LLVMTypeRef ret, const char *text, const char *constraints,
                    LLVMValueRef *args, int nargs, bool side_effects);
LLVMValueRef cg_sreg(CgCtx *cg, LLVMBuilderRef b, const char *name); /* "tid.x" */
/* A barrier of the threads running the code: the CTA, or inside
 * WARP_ROLES' consumer region the consumer warps (named barrier 1). */
void cg_barrier(CgCtx *cg);
/* The thread that does what one thread must (thread 0; the producer's
 * first thread in WARP_ROLES' producer region). */
LLVMValueRef cg_lead_tid(CgCtx *cg);
LLVMValueRef cg_guard_tid(CgCtx *cg);
/* Code emitted between these runs only where `pred` (i1) holds: begin
 * returns the block to continue in (NULL, and nothing emitted, when pred is
 * NULL: every thread runs it), end closes it. */
LLVMBasicBlockRef cg_begin_guard(CgCtx *cg, LLVMValueRef pred);
void cg_end_guard(CgCtx *cg, LLVMBasicBlockRef cont);
/* Pointer into the shared scratch at a byte offset (i32). */
/* Per-op scratch (after the local_alloc buffers) and absolute addresses. */
LLVMValueRef cg_smem_ptr(CgCtx *cg, LLVMValueRef byte_off);
LLVMValueRef cg_smem_abs(CgCtx *cg, LLVMValueRef byte_off);
/* The op being lowered needs `bytes` of scratch from cg->scratch_base; call
 * it before the first write (it adds a barrier when the scratch reuses the
 * space of a dead buffer). */
void cg_smem_request(CgCtx *cg, const Op *op, int64_t bytes);
/* The kernel as written exceeds a limit of the target or of tlc (too much
 * work unrolled in one op): a located error for the user (diag_error at the
 * op), not an internal one; cg_compile then fails without running LLVM. */
void cg_user_error(CgCtx *cg, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Register <-> memory representation of one element. */
LLVMValueRef cg_to_mem(CgCtx *cg, DType d, LLVMValueRef v);
LLVMValueRef cg_from_mem(CgCtx *cg, DType d, LLVMValueRef v);
/* Bits of an element as an integer of its width (pointers: i64) and back. */
LLVMValueRef cg_to_bits(CgCtx *cg, DType d, LLVMValueRef v);
LLVMValueRef cg_from_bits(CgCtx *cg, DType d, LLVMValueRef v);
/* Butterfly shuffle (shfl.sync.bfly) of one element across lane mask m. */
LLVMValueRef cg_shfl_bfly(CgCtx *cg, DType d, LLVMValueRef v, int m);

/* ======================= cg_layout.c ====================================== */

/* Fragment of a tensor type (false + error when not distributed). */
bool cg_frag(CgCtx *cg, const Op *op, const Type *t, CgFrag *f);
/* A bit of a fragment's linear layout that moves along one axis: register
 * bit, lane bit or warp bit `bit`, its step along the axis `basis`. */
typedef enum { AXIS_REG, AXIS_LANE, AXIS_WARP } AxisBitKind;
typedef struct AxisBit {
  AxisBitKind kind;
  int bit;
  int64_t basis;
} AxisBit;
enum { CG_MAX_AXIS_BITS = 34 };
/* The bits of f that move along `axis`, smallest basis first (scans and
 * sorts walk them in that order); replica bits and bits along other dims
 * are left out.  False when a basis mixes the axis with another dim or is
 * not a power of two along it. */
bool cg_axis_bits(const CgFrag *f, int axis, AxisBit *bits, int *n);
bool cg_frag_of(const Layout *l, int rank, const int64_t *shape, CgFrag *f);
/* Elements a value of type t has per thread (1 for scalars). */
int cg_nelems(CgCtx *cg, const Type *t);
void cg_thread_init(CgCtx *cg);

/* ======================= cg_program_order.c ================================== */

/* In the prologue: the program each block runs, when m->program_order asks
 * for an order other than the launch's (cg->pid). */
void cg_program_order_init(CgCtx *cg);
/* program_id(axis) (i32) at b: the mapped id, or the block's own. */
LLVMValueRef cg_program_id(CgCtx *cg, LLVMBuilderRef b, int axis);
/* num_programs(axis) (i32) at b: the grid's extent (the same under any order). */
LLVMValueRef cg_num_programs(CgCtx *cg, LLVMBuilderRef b, int axis);
const CgThreadParts *cg_thread_parts(CgCtx *cg, const CgFrag *f);
/* Coordinate (i32) of fragment element i along tensor dim `tdim`, built at
 * the current insertion point from the prologue's thread parts. */
LLVMValueRef cg_coord(CgCtx *cg, const CgFrag *f, int i, int tdim);
/* Row-major linear index (i32) of element i with the given per-tensor-dim
 * strides. */
LLVMValueRef cg_linear(CgCtx *cg, const CgFrag *f, int i, const int64_t *strides);
/* i1 "this thread is the canonical holder of its elements" (stores and
 * atomics write only from it), or NULL when no element is replicated.
 * For scalar types: tid == 0. */
LLVMValueRef cg_owner(CgCtx *cg, const Type *t);
/* The lane / warp stride of base dim d in the lane / warp id. */
/* The constant (register) part of element i's coordinates. */
void cg_reg_coord(const CgFrag *f, int i, int64_t *c);
/* Lane / warp bit masks whose basis moves along `dim`, and whose basis is
 * zero (replicas). */
int cg_lane_mask(const CgFrag *f, int dim);
int cg_warp_mask(const CgFrag *f, int dim);
int cg_lane_zero_mask(const CgFrag *f);
int cg_warp_zero_mask(const CgFrag *f);

/* The same formulas evaluated in C for thread `tid` (tests and the
 * compile-time checks that find register-only conversions). */
int64_t cg_eval_coord(const CgFrag *f, int tid, int i, int tdim);
bool cg_eval_owner(const CgFrag *f, int tid);

/* ======================= cg_lower.c ======================================= */

CgVal *cg_get(CgCtx *cg, const Op *op, const Value *v);
LLVMValueRef cg_el(const CgVal *v, int i);      /* element i, scalars broadcast */
void cg_set(CgCtx *cg, const Value *v, LLVMValueRef *elems, int n);
void cg_set_undef(CgCtx *cg, const Value *v);
/* Lower the ops of a region; returns its terminator (not lowered) or NULL. */
Op *cg_lower_block(CgCtx *cg, IrBlock *b);

/* ======================= per-concept lowerings ============================ */

bool cg_is_arith(OpKind k);
void cg_lower_arith(CgCtx *cg, Op *op);          /* cg_arith.c */
LLVMValueRef cg_cast_scalar(CgCtx *cg, const Op *op, LLVMValueRef v, DType from, DType to);
LLVMValueRef cg_max_min(CgCtx *cg, DType d, bool is_max, bool propagate_nan,
                        LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_binary(CgCtx *cg, const Op *op, OpKind k, DType d, LLVMValueRef a,
                       LLVMValueRef b);

/* cg_mathlib.c: one element of a MATHFN op (args: its operands' elements). */
LLVMValueRef cg_mathfn(CgCtx *cg, const Op *op, LLVMValueRef *args);
/* Math function `fn` (mathfns.def, kind MK_FLOAT) of fp32 or fp64 values. */
LLVMValueRef cg_math_float(CgCtx *cg, const Op *op, MathFn fn, DType d, LLVMValueRef *args);
/* Link libclc's functions the module calls (cg->uses_libclc) into it, made
 * internal; false after reporting. */
bool cg_link_libclc(CgCtx *cg);
/* cg_libclc_data.c: the embedded, trimmed libclc bitcode. */
const char *cg_libclc_bitcode(size_t *size);

/* cg_libdevice.c (with opt->libdevice).  Find the file (false after
 * reporting where it was looked for); free what it holds at the end. */
bool cg_libdevice_open(CgCtx *cg);
void cg_libdevice_close(CgCtx *cg);
/* libdevice's function for math function `fn` on fp32/fp64 values (or
 * integers, or a conversion's source) `args`, called as Triton calls it,
 * in tlc's result type (i1 for the tests); NULL where libdevice has none:
 * the caller lowers it as without libdevice. */
LLVMValueRef cg_libdevice_mathfn(CgCtx *cg, MathFn fn, DType d, LLVMValueRef *args);
/* The same for a math op of the tile IR (tl.log, tl.sin, ...; d fp32 or
 * fp64); NULL where Triton computes it inline (fp32 exp, sqrt_rn). */
LLVMValueRef cg_libdevice_op(CgCtx *cg, const Op *op, OpKind k, DType d, LLVMValueRef x);
/* Link the functions called into the module (the rest dropped), set
 * nvvm-reflect-ftz; false after reporting. */
bool cg_link_libdevice(CgCtx *cg);

void cg_lower_addptr(CgCtx *cg, Op *op);         /* cg_memory.c */
void cg_lower_load(CgCtx *cg, Op *op);
void cg_lower_store(CgCtx *cg, Op *op);
void cg_lower_atomic(CgCtx *cg, Op *op);
/* A vector access of `vec` elements of d as words: wbits in {8,16,32,64},
 * nw words (at most 4); elements <-> words. */
void cg_words_for(DType d, int vec, int *wbits, int *nw);
void cg_pack_words(CgCtx *cg, DType d, LLVMValueRef *el, int vec, int wbits, int nw,
                   LLVMValueRef *out);
void cg_unpack_words(CgCtx *cg, DType d, LLVMValueRef *words, int vec, int wbits, int nw,
                     LLVMValueRef *out);
/* One unpredicated access of a g-element group at ptr (aligned to the
 * group) through words: shared buffers, scratch. */
void cg_store_group(CgCtx *cg, DType d, LLVMValueRef ptr, LLVMValueRef *el, int g);
void cg_load_group(CgCtx *cg, DType d, LLVMValueRef ptr, int g, LLVMValueRef *out);

void cg_lower_reduce(CgCtx *cg, Op *op);         /* cg_reduce.c */
void cg_lower_scan(CgCtx *cg, Op *op);           /* cg_scan.c */
void cg_lower_flip(CgCtx *cg, Op *op);           /* cg_flip.c */
void cg_lower_sort(CgCtx *cg, Op *op);           /* cg_sort.c */
void cg_lower_gather(CgCtx *cg, Op *op);         /* cg_gather.c */
void cg_lower_histogram(CgCtx *cg, Op *op);      /* cg_histogram.c */

/* ======================= cg_shared.c ====================================== */

/* A shared buffer or ring slot seen as a 2-D (or 1-D) array, or a batched
 * buffer [B, ...] seen as B such 2-D arrays one after another. */
typedef struct CgBuf {
  const Layout *S;     /* LAY_SHARED */
  const Type *t;       /* the buffer's type (shape, element) */
  LLVMValueRef base;   /* i32 byte offset in the dynamic shared memory */
  int eb;              /* element bytes */
  int cdim;            /* contiguous dim */
  int rdim;            /* the other dim (rank 2 or 3), -1 for rank 1 */
  int bdim;            /* the batch dim (0) of a rank-3 buffer, -1 otherwise */
  int64_t bbytes;      /* bytes of one batch's 2-D slice (rank 3) */
} CgBuf;

/* v: a LOCAL_ALLOC result or a MEMDESC_INDEX view of rank 1 or 2 (false +
 * error else). */
bool cg_buf(CgCtx *cg, const Op *op, const Value *v, CgBuf *b);
/* The same, also taking rank-3 (batched) buffers whose dim 0 is the slowest
 * (pass_dot_shared_layout's); for the readers that handle b->bdim. */
bool cg_buf_batched(CgCtx *cg, const Op *op, const Value *v, CgBuf *b);
/* The 2-D slice of batch `batch` (i32) of a batched buffer (b itself,
 * when it has no batch dim). */
void cg_buf_batch(CgCtx *cg, const CgBuf *b, LLVMValueRef batch, CgBuf *slice);
/* Address (ptr addrspace(3)) of element (row, col), swizzle included (of
 * batch 0 in a batched buffer). */
LLVMValueRef cg_buf_addr(CgCtx *cg, const CgBuf *b, LLVMValueRef row, LLVMValueRef col);
/* What cg_buf_frag_addr keeps between the elements of one fragment (zero
 * it before the first). */
enum { CG_FRAG_XORS = 16 };
typedef struct CgFragAddrs {
  LLVMValueRef addr0;               /* the address of the thread's element 0 */
  LLVMValueRef chunk, rest;         /* the thread's parts of the split form */
  int nxor;                         /* the split form's bases made so far */
  int64_t xkey[CG_FRAG_XORS];       /* ... the XOR constant of each */
  LLVMValueRef xbase[CG_FRAG_XORS]; /* ... and its address */
} CgFragAddrs;
/* Address of fragment element i of f in b; *fa caches what the thread's
 * elements share.  An element whose register offset keeps the swizzle phase
 * and chunk (rows a swizzle period apart, columns whole blocks or chunk
 * periods apart) is element 0's address + a constant, which ptxas folds into
 * the access.  When the register bits of the others do not overlap the
 * thread's (lane and warp) bits, the swizzle splits: the XOR of chunk and
 * phase is the thread's part XOR a constant, so such an element is one of
 * at most max_phase bases (thread part ^ constant, made once each) + a
 * constant.  The rest are computed in full. */
LLVMValueRef cg_buf_frag_addr(CgCtx *cg, const CgBuf *b, const CgFrag *f, int i, CgFragAddrs *fa);
/* Byte offset of (row, col) from the buffer's start before the XOR swizzle
 * (what wgmma descriptors and bulk copies address: the hardware swizzles). */
int64_t cg_buf_linear_bytes(const CgBuf *b, int64_t row, int64_t col);
/* Elements per shared access for fragment f against buffer b. */
int cg_buf_group(const CgFrag *f, const CgBuf *b);
void cg_lower_local_alloc(CgCtx *cg, Op *op);
void cg_lower_local_load(CgCtx *cg, Op *op);
void cg_lower_memdesc_index(CgCtx *cg, Op *op);

/* ======================= cg_dot.c, cg_wgmma.c, cg_async.c ================= */

void cg_lower_dot(CgCtx *cg, Op *op);             /* cg_dot.c */
/* ldmatrix.x4 of a 16-bit mma operand fragment f (layout D) from buffer b,
 * batch by batch for a batched one (false when the shape does not tile it). */
bool cg_ldmatrix_operand(CgCtx *cg, Op *op, const CgBuf *b, const Layout *D, const CgFrag *f,
                         LLVMValueRef *out);
/* Leave the ldmatrix of local_load `op` (a 16-bit mma operand, which the
 * caller checked) to the mma.sync dot right after it, which issues each k
 * step's part just before that step's mmas (the operand's registers are then
 * not all live at once)?  True, and recorded in cg->lazy_ld, when the load
 * is 2-D and that dot is its only use. */
bool cg_ldmatrix_defer(CgCtx *cg, Op *op);
void cg_lower_wgmma(CgCtx *cg, Op *op);           /* cg_wgmma.c */
void cg_lower_dot_wait(CgCtx *cg, Op *op);
void cg_lower_async_copy(CgCtx *cg, Op *op);      /* cg_async.c */
void cg_lower_async_commit(CgCtx *cg, Op *op);
void cg_lower_async_wait(CgCtx *cg, Op *op);
void cg_lower_mbar(CgCtx *cg, Op *op);            /* cg_tma.c */
void cg_lower_warp_roles(CgCtx *cg, Op *op);      /* cg_warp_roles.c */
int cg_ws_ctas_per_sm(const CgCtx *cg);           /* cg_warp_roles.c: the CTAs an SM runs */
/* cg_module.c: every definition of a library module (read lazily) made
 * linkonce_odr, so that linking brings over only what the kernel reaches;
 * after linking, every function and global but the kernel and its shared
 * memory internal (O3 may inline or drop them) */
void cg_link_on_demand(LLVMModuleRef lib);
/* cg_pipeline.c: the O-pipeline's text for arch at opt_level 0-3 (the
 * chosen one, or "default<ON>" written into buf) */
const char *cg_pipeline(const char *arch, int opt_level, char *buf, size_t len);
void cg_internalize_linked(CgCtx *cg);
void cg_lower_barrier(CgCtx *cg, Op *op);         /* cg_warp_roles.c */
void cg_lower_tma_copy(CgCtx *cg, Op *op);
void cg_lower_tma_store(CgCtx *cg, Op *op);

void cg_lower_shape(CgCtx *cg, Op *op);          /* cg_convert.c */
/* Move `src` (fragment of type st) through shared memory into the fragment
 * of type dt; dst element k reads the source element whose row-major linear
 * index over st's shape is sum_d coord_d(k) * rstride[d].  `wpred`, when not
 * NULL, guards the writes (per thread). */
void cg_smem_exchange(CgCtx *cg, const Op *op, const Type *st, const CgVal *src,
                      const Type *dt, const int64_t *rstride, LLVMValueRef wpred,
                      LLVMValueRef *out);

void cg_lower_print(CgCtx *cg, Op *op);          /* cg_debug.c */
void cg_lower_assert(CgCtx *cg, Op *op);         /* cg_debug.c */

void cg_lower_for(CgCtx *cg, Op *op);            /* cg_control.c */
void cg_lower_if(CgCtx *cg, Op *op);
void cg_lower_while(CgCtx *cg, Op *op);

#endif
