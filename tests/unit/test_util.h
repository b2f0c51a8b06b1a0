/* test_util.h — what the unit test programs share: counting checks and
 * failures, CHECK, CHECK_CONTAINS, the runtime's OK / EXPECT, and the
 * summary line that ends a test.
 *
 *   CHECK(cond)                   counts a check; reports `cond` when false
 *   CHECK(cond, "fmt", args...)   the same, with a message
 *   CHECK_CONTAINS(text, part)    text (may be NULL) contains part
 *   OK(rt, call)                  a runtime call returns TLC_OK
 *   EXPECT(rt, call, st, part)    it fails with st and a message with part
 *   return test_summary("name");  "name: ok, N checks" or "FAIL: ..."
 *
 * Reports go to stdout as "FAIL file:line: cond: message"; after
 * test_max_reports of them the rest are only counted (a broken formula
 * checked over every thread would print thousands).  OK and EXPECT exist
 * when runtime/tlc_runtime.h is included first.  Everything is static: a
 * test program includes this header once. */
#ifndef TLC_TEST_UTIL_H
#define TLC_TEST_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define TEST_UNUSED_ __attribute__((unused))
static int checks, failures;
static int test_max_reports TEST_UNUSED_ = 40;
static bool test_verbose TEST_UNUSED_;  /* EXPECT also prints the failures it expected */
/* Called after each reported failure (a test can print the IR it was looking at). */
static void (*test_on_failure)(void) TEST_UNUSED_;

static inline bool test_start_report_(const char *file, int line) {
  if (++failures > test_max_reports) return false;
  printf("FAIL %s:%d: ", file, line);
  return true;
}

static inline void test_end_report_(void) {
  putchar('\n');
  if (test_on_failure) test_on_failure();
  fflush(stdout);
}

static inline void test_check_(bool ok, const char *file, int line, const char *expr) {
  checks++;
  if (ok || !test_start_report_(file, line)) return;
  fputs(expr, stdout);
  test_end_report_();
}

__attribute__((format(printf, 5, 6))) static inline void test_checkf_(bool ok, const char *file, int line,
                                                                     const char *expr, const char *fmt, ...) {
  checks++;
  if (ok || !test_start_report_(file, line)) return;
  printf("%s: ", expr);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  test_end_report_();
}

/* CHECK(cond) or CHECK(cond, fmt, ...): the argument count picks the form. */
#define TEST_PICK_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, name, ...) name
#define TEST_CHECK1_(cond) test_check_(!!(cond), __FILE__, __LINE__, #cond)
#define TEST_CHECKF_(cond, ...) test_checkf_(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
#define CHECK(...)                                                                            \
  TEST_PICK_(__VA_ARGS__, TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, \
             TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, TEST_CHECKF_, \
             TEST_CHECK1_, unused)(__VA_ARGS__)

#define CHECK_CONTAINS(text, part)                                                   \
  do {                                                                               \
    const char *t_ = (text);                                                         \
    CHECK(t_ && strstr(t_, part), "expected \"%s\" in: %s", part, t_ ? t_ : "(null)"); \
  } while (0)

#ifdef TLC_RUNTIME_H
#define OK(rt, call)                                                                          \
  do {                                                                                        \
    tlc_status s_ = (call);                                                                   \
    CHECK(s_ == TLC_OK, "%s -> %s: %s", #call, tlc_status_name(s_), tlc_runtime_error(rt));   \
  } while (0)

#define EXPECT(rt, call, status, part)                                                        \
  do {                                                                                        \
    tlc_status s_ = (call);                                                                   \
    const char *m_ = tlc_runtime_error(rt);                                                   \
    CHECK(s_ == (status) && strstr(m_, part), "%s -> %s (expected %s with \"%s\"): %s", #call, \
          tlc_status_name(s_), tlc_status_name(status), part, m_);                            \
    if (test_verbose && s_ == (status)) printf("  expected failure: %s: %s\n", tlc_status_name(s_), m_); \
  } while (0)
#endif

/* The last line of a test: its name, the counts; the exit status. */
static inline int test_summary(const char *name) {
  printf("%s: %s, %d checks, %d failures\n", name, failures ? "FAIL" : "ok", checks, failures);
  return failures ? 1 : 0;
}

#endif
