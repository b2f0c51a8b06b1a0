/* ir_internal.h — private to ir/: the interning tables behind IrContext. */
#ifndef TLC_IR_INTERNAL_H
#define TLC_IR_INTERNAL_H

#include "ir/ir.h"

struct IrContext {
  Arena *arena;
  Type **types;          /* open-addressed table of interned types */
  uint32_t ntypes, type_cap;
  Layout **layouts;      /* interned layouts, in creation order */
  uint32_t nlayouts, layout_cap;
};

/* ", #blocked3" after a tensor type's element. */
void ir_print_layout_ref(StrBuf *sb, const Layout *l);

#endif
