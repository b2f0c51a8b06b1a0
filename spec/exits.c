/* exits.c — early exits out of runtime control flow: `return` inside a
 * runtime if/for/while, `break` and `continue` in runtime and unrolled loops.
 *
 * The tile IR has only structured control flow (IF, FOR, WHILE; one RETURN
 * at the end of the kernel), so an exit is a flag.  The flags are variables
 * of the function's scope under names no Python identifier can take:
 *
 *   $return    the function returned         (cleared by nothing: the
 *              function's end reads it)
 *   $value     what it returned (`return x`; absent for a bare return)
 *   $break     the innermost loop was left    (consumed by that loop)
 *   $continue  the rest of this iteration is skipped (dropped at the end of
 *              each iteration)
 *
 * Being variables, they flow through runtime ifs and loops like any other:
 * an IF yields them, a loop carries them.  Each is absent or False (nothing
 * happened), True (it happened on every path: what follows is dead and is
 * not even evaluated) or a runtime i1 (it may have happened).  stmt.c runs
 * the statements after a possible exit under a guard,
 *
 *     if stop { } else { <flags False> the rest }     stop = OR of the flags
 *
 * and turns a loop that can break or return into a WHILE whose condition
 * also tests the flags.  The merge rules at the end of an IF (which branch's
 * values matter once a branch returned) are here too.
 *
 * A value returned under a runtime condition (`if c: return x`) is the
 * variable $value; every path must return a value of one type (or all
 * return None), and a value cannot be returned from inside a runtime loop
 * (its type would have to be known before the loop). */
#include "spec/spec_internal.h"

#include <string.h>

const char SPEC_EXIT_RETURN[] = "$return";
const char SPEC_EXIT_VALUE[] = "$value";
const char SPEC_EXIT_BREAK[] = "$break";
const char SPEC_EXIT_CONTINUE[] = "$continue";

static const char *const exit_flags[] = {SPEC_EXIT_RETURN, SPEC_EXIT_BREAK, SPEC_EXIT_CONTINUE};
enum { NFLAGS = sizeof exit_flags / sizeof exit_flags[0] };

bool spec_is_hidden_name(const char *name) { return name[0] == '$'; }

bool spec_is_exit_flag(const char *name) {
  for (int i = 0; i < NFLAGS; i++)
    if (!strcmp(name, exit_flags[i])) return true;
  return false;
}

const char *spec_var_label(Spec *s, const char *name) {
  if (!strcmp(name, SPEC_EXIT_VALUE)) return "the return value";
  if (spec_is_hidden_name(name)) return arena_printf(s->arena, "the '%s' flag", name + 1);
  return arena_printf(s->arena, "'%s'", name);
}

static SVal *local(Scope *sc, const char *name) {
  for (int i = sc->vars.len - 1; i >= 0; i--)
    if (!strcmp(sc->vars.data[i].name, name)) return sc->vars.data[i].val;
  return NULL;
}

/* ---- the state of the flags ------------------------------------------------ */

SpecExits spec_exit_state(Spec *s, Scope *sc, Loc loc) {
  SpecExits e = {.kind = EXITS_NONE};
  Value *stop = NULL;
  int nlive = 0;
  for (int i = 0; i < NFLAGS; i++) {
    SVal *f = local(sc, exit_flags[i]);
    if (!f || is_poison(f)) continue;
    if (f->kind == SV_BOOL) {
      if (f->i) {
        e.kind = EXITS_ALWAYS;
        return e;
      }
      continue;
    }
    if (f->kind != SV_TENSOR) continue;
    nlive++;
    e.only = exit_flags[i];
    if (!stop) {
      stop = f->v;
    } else {
      spec_at(s, loc);
      stop = irb_binary(&s->b, OP_OR, stop, f->v);
    }
  }
  if (stop) {
    e.kind = EXITS_MAYBE;
    e.stop = stop;
    if (nlive > 1) e.only = NULL;
  }
  return e;
}

void spec_exit_clear(Spec *s, Scope *sc) {
  for (int i = 0; i < NFLAGS; i++)
    if (local(sc, exit_flags[i])) scope_set(s, sc, exit_flags[i], s->false_);
}

bool spec_exit_returned(Scope *sc) {
  SVal *f = local(sc, SPEC_EXIT_RETURN);
  return f && f->kind == SV_BOOL && f->i;
}

bool spec_exit_may_return(Scope *sc) {
  SVal *f = local(sc, SPEC_EXIT_RETURN);
  return f && !is_poison(f) && !(f->kind == SV_BOOL && !f->i);
}

/* ---- loops --------------------------------------------------------------------- */

static void scan(const Block *b, bool loop_level, SpecLoopExits *x) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->stmts[i];
    switch (st->kind) {
    case ST_RETURN: x->has_return = true; break;
    case ST_BREAK: x->has_break |= loop_level; break;
    case ST_CONTINUE: x->has_continue |= loop_level; break;
    case ST_IF:
      scan(&st->body, loop_level, x);
      scan(&st->orelse, loop_level, x);
      break;
    case ST_FOR: case ST_WHILE:
      /* their break/continue are their own; a return leaves every loop */
      scan(&st->body, false, x);
      scan(&st->orelse, false, x);
      break;
    default: break;
    }
  }
}

SpecLoopExits spec_loop_exits(const Block *body) {
  SpecLoopExits x = {0};
  scan(body, true, &x);
  return x;
}

void spec_loop_enter(Spec *s, Scope *sc, SpecLoopSave *save) {
  save->brk = local(sc, SPEC_EXIT_BREAK);
  save->cont = local(sc, SPEC_EXIT_CONTINUE);
  scope_remove(sc, SPEC_EXIT_BREAK);
  scope_remove(sc, SPEC_EXIT_CONTINUE);
  (void)s;
}

void spec_loop_leave(Spec *s, Scope *sc, const SpecLoopSave *save) {
  scope_remove(sc, SPEC_EXIT_BREAK);
  scope_remove(sc, SPEC_EXIT_CONTINUE);
  if (save->brk) scope_set(s, sc, SPEC_EXIT_BREAK, save->brk);
  if (save->cont) scope_set(s, sc, SPEC_EXIT_CONTINUE, save->cont);
}

/* ---- the end of a function ------------------------------------------------------- */

SVal *spec_exit_result(Spec *s, Scope *sc, Frame *fr, bool is_kernel) {
  if (fr->returned) return fr->ret ? fr->ret : s->none;
  SVal *flag = local(sc, SPEC_EXIT_RETURN), *val = local(sc, SPEC_EXIT_VALUE);
  if (fr->value_ret.line && fr->none_ret.line) {
    spec_error(s, fr->none_ret, "this 'return' gives None, but '%s' returns a value on another path; every "
               "path must return a value of one type", fr->fn->name);
    spec_note(s, fr->value_ret, "a value is returned here");
    return s->poison;
  }
  if (!flag || is_poison(flag) || !val) return s->none;
  if (is_poison(val) || is_kernel) return val; /* a kernel's value is reported by the caller */
  if (!(flag->kind == SV_BOOL && flag->i)) {
    spec_error(s, fr->fn->loc, "'%s' returns a value on some paths but can reach the end of its body, "
               "which returns None; end it with a 'return'", fr->fn->name);
    spec_note(s, fr->value_ret, "a value is returned here");
    return s->poison;
  }
  return val;
}
