/* cg_program_order.c — which program a block runs: program_id(axis) and
 * num_programs(axis).
 *
 * In launch order (the default) block (x, y, z) runs program (x, y, z).
 * With m->program_order = G (passes/program_order.c: the loops run longer
 * as program_id(0) grows) the blocks, counted in the order the GPU starts
 * them, L = (z * ny + y) * nx + x, take the grid's rows (r = z * ny + y)
 * in groups of G, and within a group program_id(0) from nx - 1 down, each
 * value for every row of the group before the next:
 *
 *   G' = min(G, rows)         rows = ny * nz
 *   c = L / (G' * nx)         the group;  g = min(G', rows - c * G') rows in it
 *   k = L - c * G' * nx       the block's place in it
 *   x' = nx - 1 - k / g       r' = c * G' + k % g,  y' = r' % ny,  z' = r' / ny
 *
 * A bijection of the grid onto itself, computed once in the prologue
 * (every thread, before any role split: the producer warp and the consumers
 * read the same ids) in 32-bit integers: 64-bit division is a call with
 * branches that cost the causal attention forward 18 % on the H200 (its
 * loops compiled differently), the 32-bit form nothing measurable.  A grid
 * of 2^32 blocks or more (possible: x < 2^31, y and z < 2^16) keeps the
 * launch order; the divisors are then replaced by 1 so no division is by
 * zero. */
#include "codegen/cg_internal.h"

static const char *const kIds[3] = {"ctaid.x", "ctaid.y", "ctaid.z"};
static const char *const kCounts[3] = {"nctaid.x", "nctaid.y", "nctaid.z"};

static LLVMValueRef umin(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, x, y, ""), x, y, "");
}

void cg_program_order_init(CgCtx *cg) {
  cg->pid[0] = cg->pid[1] = cg->pid[2] = NULL;
  if (cg->m->program_order <= 0) return;
  LLVMBuilderRef b = cg->pro;
  LLVMValueRef id[3], n[3];
  for (int a = 0; a < 3; a++) {
    id[a] = cg_sreg(cg, b, kIds[a]);
    n[a] = cg_num_programs(cg, b, a);
  }
  LLVMValueRef one = cg_i32(cg, 1);
  LLVMValueRef rows = LLVMBuildMul(b, n[1], n[2], "rows"); /* < 2^32: y and z < 2^16 */
  LLVMValueRef total = LLVMBuildMul(b, LLVMBuildZExt(b, rows, cg->t_i64, ""),
                                    LLVMBuildZExt(b, n[0], cg->t_i64, ""), "");
  LLVMValueRef fits = LLVMBuildICmp(b, LLVMIntULT, total, cg_i64(cg, (int64_t)1 << 32), "fits");
  LLVMValueRef row = LLVMBuildAdd(b, LLVMBuildMul(b, id[2], n[1], ""), id[1], "");
  LLVMValueRef L = LLVMBuildAdd(b, LLVMBuildMul(b, row, n[0], ""), id[0], "launched");
  LLVMValueRef G = umin(b, cg_i32(cg, cg->m->program_order), rows);
  LLVMValueRef span = LLVMBuildSelect(b, fits, LLVMBuildMul(b, G, n[0], ""), one, "");
  LLVMValueRef c = LLVMBuildUDiv(b, L, span, "group");
  LLVMValueRef first = LLVMBuildMul(b, c, G, "");
  LLVMValueRef g = LLVMBuildSelect(b, fits, umin(b, G, LLVMBuildSub(b, rows, first, "")), one, "");
  LLVMValueRef k = LLVMBuildSub(b, L, LLVMBuildMul(b, c, span, ""), "");
  LLVMValueRef q = LLVMBuildUDiv(b, k, g, "");
  LLVMValueRef x = LLVMBuildSub(b, LLVMBuildSub(b, n[0], one, ""), q, "");
  LLVMValueRef r = LLVMBuildAdd(b, first, LLVMBuildSub(b, k, LLVMBuildMul(b, q, g, ""), ""), "");
  LLVMValueRef z = LLVMBuildUDiv(b, r, n[1], "");
  LLVMValueRef y = LLVMBuildSub(b, r, LLVMBuildMul(b, z, n[1], ""), "");
  cg->pid[0] = LLVMBuildSelect(b, fits, x, id[0], "pid.x");
  cg->pid[1] = LLVMBuildSelect(b, fits, y, id[1], "pid.y");
  cg->pid[2] = LLVMBuildSelect(b, fits, z, id[2], "pid.z");
}

LLVMValueRef cg_program_id(CgCtx *cg, LLVMBuilderRef b, int axis) {
  return cg->pid[axis] ? cg->pid[axis] : cg_sreg(cg, b, kIds[axis]);
}

LLVMValueRef cg_num_programs(CgCtx *cg, LLVMBuilderRef b, int axis) {
  return cg_sreg(cg, b, kCounts[axis]);
}
