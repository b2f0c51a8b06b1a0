/* pass_internal.h — private to passes/: what one pass file exports to
 * another.  Nothing here is part of the interface codegen or the compiler
 * driver sees (that is passes.h).
 *
 * Sections by file:
 *   canonicalize.c  exact integer arithmetic of the IR's types, shared
 *                with axis_info.c (which tracks known constants)
 *   axis_info.c  lattice helpers shared with coalesce.c
 *   coalesce.c   the coalescing decision (order, vector width, anchor
 *                layout) as a pure function of the IR and its AxisInfo, so
 *                the layout pass asks the very same question coalesce
 *                answered instead of receiving state through a side channel
 */
#ifndef TLC_PASS_INTERNAL_H
#define TLC_PASS_INTERNAL_H

#include "passes/passes.h"

/* ---- canonicalize.c ---------------------------------------------------------- */

/* The value v as an element of integer type d holds it: wrapped to the
 * bit width, sign-extended for signed types, zero-extended for unsigned
 * ones and i1 (64-bit types keep the bit pattern). */
int64_t pass_int_norm(DType d, int64_t v);
/* Fold integer op k (a binary arithmetic / bitwise / min / max op of
 * ops.def) on normalized values of type d.  False when the result is not
 * defined (division by zero, shift by the width or more). */
bool pass_fold_int_binary(OpKind k, DType d, int64_t a, int64_t b, int64_t *out);
/* Integer comparison with d's signedness. */
bool pass_fold_int_cmp(CmpPred p, DType d, int64_t a, int64_t b);

/* The ops using each value, as CSR arrays over Value.id (a user appears
 * once per operand slot holding the value).  Values created after the
 * build have no entry (id >= nvalues). */
typedef struct PassUsers {
  uint32_t nvalues;
  int *start;        /* nvalues + 1 offsets into op */
  Op **op;
} PassUsers;
void pass_users_build(IrFunc *f, PassUsers *u);
void pass_users_free(PassUsers *u);

/* ---- axis_info.c ------------------------------------------------------------ */

/* Divisibility of 0 (and the cap of every divisibility): "divisible by
 * anything we could ask about". */
#define AXIS_MAX_DIV ((int64_t)1 << 30)

int64_t axis_gcd(int64_t a, int64_t b);        /* gcd(0, b) = b */
int64_t axis_pow2_divisor(int64_t v);          /* largest 2^k dividing v, capped; 0 -> cap */

/* ---- coalesce.c ---------------------------------------------------------------- */

/* Is `op` a memory access whose width and layout coalesce decides
 * (LOAD, STORE, ATOMIC_RMW, ATOMIC_CAS)? */
bool pass_is_memory_op(const Op *op);
/* Dims of the pointer operand sorted by contiguity, most contiguous first
 * (ties keep the natural order rank-1 .. 0).  Returns the rank. */
int pass_coalesce_order(const AxisInfo *ptr, int rank, int *order);
/* Elements one thread may move per vector access along tensor dim `dim`
 * of op's pointer, as far as AxisInfo can prove (contiguity, alignment,
 * 16 bytes, uniform mask / other), a power of two >= 1.  Not capped by
 * any layout.  Atomics and scalar accesses get 1. */
int pass_coalesce_vec(const IrModule *m, const Op *op, const AxisInfo *ai, int dim);
/* An fp32 atomic add on sm_90: it may move 2 or 4 elements an instruction. */
bool pass_atomic_vectorizes(const IrModule *m, const Op *op);
/* The anchor layout coalesce chooses for a tensor memory op: blocked, with
 * `*vec` elements per thread along the most contiguous dim.  NULL (and
 * *vec = 1) for scalar accesses. */
const Layout *pass_coalesce_anchor(IrModule *m, const Op *op, const AxisInfo *ai, int *vec);

/* ---- accelerate_matmul.c --------------------------------------------------------- */

typedef struct DotPlan {
  const Layout *mma;   /* the accumulator / result layout */
  int kw;              /* k_width of the dot operands */
} DotPlan;

/* Can `dot` run on tensor cores?  Then *plan says how. */
bool pass_dot_plan(IrModule *m, const Op *dot, const PassUsers *users, DotPlan *plan);
/* The swizzled shared layout an mma operand of type t (in its current,
 * usually blocked, layout) is staged in. */
const Layout *pass_dot_shared_layout(IrModule *m, const Type *t);
/* The wgmma shared layout of operand op_idx (0: a, 1: b) of type t (in
 * its current layout, whose fastest dim becomes the contiguous one for
 * 16-bit types): 128/64/32-byte swizzle, blocks of one swizzle row.  NULL
 * when the shape has no such layout (rows under 32 bytes). */
const Layout *pass_wgmma_shared_layout(IrModule *m, const Type *t, int op_idx);
/* Layout of operand op_idx (0: a, 1: b) of an FMA dot whose result is in
 * blocked layout res; K is the inner dimension. */
const Layout *pass_fma_operand_layout(IrModule *m, const Layout *res, int op_idx, int64_t K);

/* ---- tma_tile.c ------------------------------------------------------------------ */

/* A 2-D tile load TMA can do, staged into `shared`: its recipe (param not
 * yet made) and the copy's coordinate along each recipe dim, innermost
 * first (NULL: 0; desc.rank of them): the tile's start along its
 * contiguous dim, along its other dim, then one per outer dim of the base
 * offset (a batch or head index).  Scalars computed where the load's
 * address is. */
typedef struct TmaTile {
  IrTmaDesc desc;
  Value *coord[IR_TMA_MAX_RANK];
  int cdim;                /* the contiguous tensor dim (recipe dim 0) */
  int adv_dim;             /* a pointer carried by the loop: the recipe dim it */
  int64_t adv;             /* advances along, adv elements an iteration (0: none) */
  int map;                 /* index of its hidden parameter in func->tma (pass_tma_map) */
} TmaTile;
bool pass_tma_tile(IrModule *m, const Op *load, const Layout *shared, TmaTile *out);
/* The same for an access at ptr (rank-2 pointer tensor) with this mask
 * (NULL: none) and other (NULL or zero): a store's too (tma_store.c). */
bool pass_tma_tile_at(IrModule *m, const Value *ptr, const Value *mask, const Value *other, const Layout *shared,
                      TmaTile *out);
/* The hidden tensor-map parameter for recipe d: an existing one with the
 * same recipe, or a new one.  Returns its index in func->tma. */
int pass_tma_map(IrModule *m, const IrTmaDesc *d);
/* Is loop a TMA ring loop as the pipeline pass builds it: the body opens
 * with mbar_wait %bars, %rd, %ph (the ring's barriers defined outside, the
 * read slot and its phase iter args), the slot advances by one modulo S
 * (`select(rd + 1 == S, 0, rd + 1)` yielded) and at least min_announced
 * (>= 1) stages are announced on %bars before the loop (the prologue fills S - 1:
 * dot-ahead needs the next slot issued before the loop, 2; a producer warp
 * refills slots itself, 1)?  IR written by hand to `tlc opt` may differ;
 * then passes leave the loop alone.  (pipeline.c) */
bool pass_tma_ring_loop(const Op *loop, int min_announced, Value **bars, Value **rd, Value **ph);
/* 32-bit registers a thread of the kernel's num_warps holds of a value of
 * type t (a 16-bit element is half of one; a shared buffer none).
 * (pipeline.c) */
int64_t pass_threads(const IrModule *m); /* the threads the layouts span */
/* Did consumer-warpgroups split the kernel onto two consumer warpgroups for
 * a producer (not for registers alone)?  (consumer_warpgroups.c) */
bool pass_split_for_producer(const IrModule *m);

#endif
