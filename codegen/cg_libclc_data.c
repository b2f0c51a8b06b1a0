/* cg_libclc_data.c — the math library's bytes: libclc's NVPTX bitcode as
 * trimmed at build time (codegen/libclc/libclc_trim.c), embedded with the
 * assembler's .incbin so the compiler carries it wherever it goes.  The
 * symbols are hidden: nothing outside libtlc sees them.  cg_mathlib.c parses
 * and links them into a kernel that calls a libclc function. */
#include "codegen/cg_internal.h"

#ifndef TLC_LIBCLC_TRIMMED
#error "TLC_LIBCLC_TRIMMED (the trimmed libclc bitcode) is set by codegen/CMakeLists.txt"
#endif

__asm__(".section .rodata\n"
        ".balign 16\n"
        ".globl tlc_libclc_bc_start\n"
        ".hidden tlc_libclc_bc_start\n"
        ".type tlc_libclc_bc_start, @object\n"
        "tlc_libclc_bc_start:\n"
        ".incbin \"" TLC_LIBCLC_TRIMMED "\"\n"
        ".globl tlc_libclc_bc_end\n"
        ".hidden tlc_libclc_bc_end\n"
        "tlc_libclc_bc_end:\n"
        ".byte 0\n"
        ".previous\n");

extern const char tlc_libclc_bc_start[], tlc_libclc_bc_end[];

const char *cg_libclc_bitcode(size_t *size) {
  *size = (size_t)(tlc_libclc_bc_end - tlc_libclc_bc_start);
  return tlc_libclc_bc_start;
}
