/* lang_program_ids — program_id and num_programs when the compiler hands
 * the blocks out heaviest first (a loop whose length grows with
 * program_id(0): pass program-order, codegen cg_program_order.c).  Each
 * program writes its three ids, its loop count and the grid's extents to
 * its own slot; every slot must hold exactly what that program should have
 * written (a block mapping that is not a bijection leaves a slot poisoned,
 * or writes one twice with another program's ids).  Grids: 1-D, 2-D with
 * a row count that is a multiple of the group (8) and ones that are not
 * (a partial last group), 3-D, one row, one column.  Through the examples'
 * harness (poisoned output with guard zones, a re-run that must give the
 * same bits).  Exit 77 (skipped) without a GPU. */
#include "examples/common/host.h"

#include <stdio.h>
#include <stdlib.h>

static const char TILE[] = "../tests/gpu/lang_program_ids.tile";

static void triangle_ids(Ex *ex, unsigned nx, unsigned ny, unsigned nz) {
  size_t n = (size_t)nx * ny * nz * 5;
  double *ref = ex_xmalloc(n * sizeof(double));
  for (unsigned z = 0; z < nz; z++)
    for (unsigned y = 0; y < ny; y++)
      for (unsigned x = 0; x < nx; x++) {
        double *r = ref + (((size_t)z * ny + y) * nx + x) * 5;
        r[0] = x, r[1] = y, r[2] = z, r[3] = x + 1;
        r[4] = (double)nx * 10000 + ny * 100 + nz;
      }
  ExOut o = ex_out_alloc(ex, n * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", o.p);
  char size[48];
  snprintf(size, sizeof size, "%ux%ux%u", nx, ny, nz);
  ExCase c = {
      .label = "triangle_ids", .size = size, .tile = TILE, .kernel = "triangle_ids", .sig = &sig,
      .grid = {nx, ny, nz}, .out = o.p, .out_elems = n, .elem = EX_F32, .ref = ref,
      .exact = true, .bytes = (double)n * 4,
  };
  ex_run_case(ex, &c, &o);
  ex_out_free(ex, &o), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_program_ids");
  triangle_ids(&ex, 37, 1, 1);    /* one row: program_id(0) reversed */
  triangle_ids(&ex, 32, 16, 1);   /* two whole groups of 8 rows */
  triangle_ids(&ex, 5, 13, 1);    /* a group of 8 rows, then one of 5 */
  triangle_ids(&ex, 3, 4, 5);     /* 20 rows over y and z: groups of 8, 8, 4 */
  triangle_ids(&ex, 1, 19, 3);    /* one column */
  triangle_ids(&ex, 64, 128, 1);  /* the attention forward's shape (N4096, 128-row blocks, Z4H32) */
  return ex_finish(&ex);
}
