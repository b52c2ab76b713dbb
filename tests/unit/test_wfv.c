/* Whole-function vectorization's decisions (compiler/wfv/) on small IR snippets, through
 * kiln_wfv_describe: uniform, affine and varying values; the access each load and store
 * makes; which blocks run under lane predicates after linearization (divergent branches
 * and loops) and which do not (uniform ones); what it refuses; and that the vector function
 * it makes passes LLVM's verifier. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/compiler/wfv/describe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DECLS                                                                                                    \
  "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\n"   \
  "declare i64 @__kiln_local_id(i32)\n"                                                                          \
  "declare i64 @__kiln_group_id(i32)\n"

static char *describe(const char *ir) {
  char *d = kiln_wfv_describe(ir, "k", 8);
  assert_non_null(d);
  return d;
}

/* `line` is one of the description's lines. */
static void expect(const char *description, const char *line) {
  size_t n = strlen(line);
  for (const char *p = description; (p = strstr(p, line)) != NULL; p++)
    if ((p == description || p[-1] == '\n') && p[n] == '\n') return;
  fail_msg("missing \"%s\" in:\n%s", line, description);
}

static void test_shapes_and_accesses(void **state) {
  (void)state;
  char *d = describe(DECLS
                     "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {\n"
                     "entry:\n"
                     "  %lid = call i64 @__kiln_local_id(i32 0)\n"
                     "  %y = call i64 @__kiln_local_id(i32 1)\n"
                     "  %g = call i64 @__kiln_group_id(i32 0)\n"
                     "  %i = add i64 %g, %lid\n"
                     "  %i3 = mul i64 %i, 3\n"
                     "  %p = getelementptr float, ptr addrspace(1) %in, i64 %i\n"
                     "  %v = load float, ptr addrspace(1) %p\n"
                     "  %q = getelementptr float, ptr addrspace(1) %in, i64 %i3\n"
                     "  %w = load float, ptr addrspace(1) %q\n"
                     "  %r = getelementptr float, ptr addrspace(1) %in, i64 %y\n"
                     "  %u = load float, ptr addrspace(1) %r\n"
                     "  %s = fadd float %v, %w\n"
                     "  %t = fadd float %u, 1.0\n"
                     "  %i32 = trunc i64 %i to i32\n"
                     "  %m = add i32 %i32, -2\n"
                     "  %sx = sext i32 %m to i64\n"
                     "  %zx = zext i32 %m to i64\n"
                     "  %h = lshr i64 %i3, 1\n"
                     "  %a = ashr i64 %i3, 1\n"
                     "  %fi = fptosi float %v to i64\n"
                     "  %x = getelementptr float, ptr addrspace(1) %in, i64 %fi\n"
                     "  %gathered = load float, ptr addrspace(1) %x\n"
                     "  %o = getelementptr float, ptr addrspace(1) %out, i64 %i\n"
                     "  store float %s, ptr addrspace(1) %o\n"
                     "  %o2 = getelementptr float, ptr addrspace(1) %out, i64 %i3\n"
                     "  store float %t, ptr addrspace(1) %o2\n"
                     "  store float %t, ptr addrspace(1) %out\n"
                     "  ret void\n"
                     "}\n");
  expect(d, "%lid: affine 1");
  expect(d, "%y: uniform");
  expect(d, "%i: affine 1");
  expect(d, "%i3: affine 3");
  expect(d, "%p: affine 4");
  expect(d, "%q: affine 12");
  expect(d, "load %v: consecutive");
  expect(d, "load %w: gather");
  expect(d, "load %u: uniform");
  expect(d, "load %gathered: gather");
  expect(d, "%v: varying");
  expect(d, "%u: uniform");
  expect(d, "%s: varying");
  expect(d, "%t: uniform");
  expect(d, "%sx: affine 1");  /* a sign extension keeps the stride */
  expect(d, "%zx: varying");   /* lanes of %m straddle zero: not as unsigned values */
  expect(d, "%h: varying");    /* likewise a logical shift */
  expect(d, "%a: varying");    /* 3 is not a multiple of 2 */
  expect(d, "store %s: consecutive");
  expect(d, "store %t: scatter");
  expect(d, "store %t: uniform");
  expect(d, "block entry: all lanes");
  expect(d, "widened");
  free(d);
}

static void test_divergent_branch_is_predicated(void **state) {
  (void)state;
  char *d = describe(DECLS
                     "define void @k(ptr addrspace(1) %out, i64 %n) {\n"
                     "entry:\n"
                     "  %lid = call i64 @__kiln_local_id(i32 0)\n"
                     "  %c = icmp ult i64 %lid, 5\n"
                     "  br i1 %c, label %then, label %join\n"
                     "then:\n"
                     "  %twice = shl i64 %lid, 1\n"
                     "  br label %join\n"
                     "join:\n"
                     "  %r = phi i64 [ %twice, %then ], [ %n, %entry ]\n"
                     "  %o = getelementptr i64, ptr addrspace(1) %out, i64 %lid\n"
                     "  store i64 %r, ptr addrspace(1) %o\n"
                     "  ret void\n"
                     "}\n");
  expect(d, "%c: varying");
  expect(d, "block then: predicated");
  expect(d, "block join: all lanes");
  expect(d, "%r.ph.wfv.blend: varying"); /* the join's phi became a select on the lane predicate */
  expect(d, "store %r: consecutive");
  expect(d, "widened");
  free(d);
}

static void test_uniform_branch_and_loop_stay(void **state) {
  (void)state;
  char *d = describe(DECLS
                     "define void @k(ptr addrspace(1) %out, i64 %n) {\n"
                     "entry:\n"
                     "  %lid = call i64 @__kiln_local_id(i32 0)\n"
                     "  %c = icmp sgt i64 %n, 0\n"
                     "  br i1 %c, label %loop, label %exit\n"
                     "loop:\n"
                     "  %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]\n"
                     "  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]\n"
                     "  %acc.next = add i64 %acc, %lid\n"
                     "  %k.next = add i64 %k, 1\n"
                     "  %more = icmp slt i64 %k.next, %n\n"
                     "  br i1 %more, label %loop, label %exit\n"
                     "exit:\n"
                     "  %r = phi i64 [ 0, %entry ], [ %acc.next, %loop ]\n"
                     "  %o = getelementptr i64, ptr addrspace(1) %out, i64 %lid\n"
                     "  store i64 %r, ptr addrspace(1) %o\n"
                     "  ret void\n"
                     "}\n");
  expect(d, "block loop: all lanes");
  expect(d, "%k: uniform");
  expect(d, "%more: uniform");
  expect(d, "%acc: varying"); /* the sum of lane ids times k: affine would need a stride per k */
  expect(d, "widened");
  free(d);
}

/* `if (lid < 5) { %big = n > 3; ... }`: the divergent if, up to the uniform test inside. */
#define UNDER_A_DIVERGENT_IF                                                                                     \
  "define void @k(ptr addrspace(1) %out, i64 %n) {\n"                                                          \
  "entry:\n"                                                                                                    \
  "  %lid = call i64 @__kiln_local_id(i32 0)\n"                                                                \
  "  %c = icmp ult i64 %lid, 5\n"                                                                              \
  "  br i1 %c, label %test, label %join\n"                                                                     \
  "test:\n"                                                                                                     \
  "  %big = icmp sgt i64 %n, 3\n"

/* After block %end's %last: the divergent if's join, storing %last (or n) for each lane. */
#define JOIN_AND_STORE_LAST                                                                                      \
  "  br label %join\n"                                                                                          \
  "join:\n"                                                                                                     \
  "  %r = phi i64 [ %last, %end ], [ %n, %entry ]\n"                                                           \
  "  %o = getelementptr i64, ptr addrspace(1) %out, i64 %lid\n"                                                \
  "  store i64 %r, ptr addrspace(1) %o\n"                                                                      \
  "  ret void\n"                                                                                                \
  "}\n"

/* A uniform branch under a divergent one stays a branch when its sides meet again inside
 * the divergent region and hold no divergent branch themselves; its blocks run under the
 * region's predicate and the phi where they meet stays a phi. */
static void test_uniform_branch_in_divergent_region_stays(void **state) {
  (void)state;
  char *d = describe(DECLS
                     "declare i1 @__kiln_wfv_any_above(i64, i64)\n"
                     UNDER_A_DIVERGENT_IF
                     "  br i1 %big, label %add, label %sub\n"
                     "add:\n"
                     "  %a = add i64 %lid, %n\n"
                     "  br label %meet\n"
                     "sub:\n"
                     "  %s = sub i64 %lid, 1\n"
                     "  br label %meet\n"
                     "meet:\n"
                     "  %m = phi i64 [ %a, %add ], [ %s, %sub ]\n"
                     "  %above = call i1 @__kiln_wfv_any_above(i64 %m, i64 %n)\n"
                     "  br i1 %above, label %slow, label %fast\n"
                     "slow:\n"
                     "  %m2 = shl i64 %m, 1\n"
                     "  br label %end\n"
                     "fast:\n"
                     "  br label %end\n"
                     "end:\n"
                     "  %last = phi i64 [ %m2, %slow ], [ %m, %fast ]\n"
                     JOIN_AND_STORE_LAST);
  expect(d, "block test: predicated");
  expect(d, "branch test: kept");
  expect(d, "block add: predicated");
  expect(d, "block sub: predicated");
  expect(d, "%m: affine 1");       /* still a phi: both sides' values are the lane id plus a constant */
  expect(d, "%above: uniform");    /* "any lane above" is one answer for all lanes */
  expect(d, "branch meet: kept");  /* a piece that ends where the next begins grows into it */
  expect(d, "block end: predicated");
  expect(d, "block join: all lanes");
  expect(d, "widened");
  free(d);
}

/* A uniform branch whose side holds a divergent branch is linearized with it. */
static void test_uniform_branch_over_divergent_one_is_linearized(void **state) {
  (void)state;
  char *d = describe(DECLS
                     UNDER_A_DIVERGENT_IF
                     "  br i1 %big, label %inner, label %end\n"
                     "inner:\n"
                     "  %odd = trunc i64 %lid to i1\n"
                     "  br i1 %odd, label %one, label %end\n"
                     "one:\n"
                     "  br label %end\n"
                     "end:\n"
                     "  %last = phi i64 [ 1, %one ], [ 2, %inner ], [ 3, %test ]\n"
                     JOIN_AND_STORE_LAST);
  expect(d, "block test: predicated");
  if (strstr(d, "branch ")) fail_msg("a branch was kept:\n%s", d);
  expect(d, "widened");
  free(d);
}

static void test_divergent_loop_gets_active_lanes(void **state) {
  (void)state;
  char *d = describe(DECLS
                     "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
                     "entry:\n"
                     "  %lid = call i64 @__kiln_local_id(i32 0)\n"
                     "  %p = getelementptr i64, ptr addrspace(1) %in, i64 %lid\n"
                     "  %n = load i64, ptr addrspace(1) %p\n"
                     "  br label %loop\n"
                     "loop:\n"
                     "  %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]\n"
                     "  %k.next = add i64 %k, 1\n"
                     "  %more = icmp slt i64 %k.next, %n\n"
                     "  br i1 %more, label %loop, label %exit\n"
                     "exit:\n"
                     "  %last = phi i64 [ %k.next, %loop ]\n"
                     "  %o = getelementptr i64, ptr addrspace(1) %out, i64 %lid\n"
                     "  store i64 %last, ptr addrspace(1) %o\n"
                     "  ret void\n"
                     "}\n");
  expect(d, "block loop: predicated");
  expect(d, "%wfv.active: varying");
  expect(d, "%wfv.again: uniform");       /* the loop repeats while any lane is active */
  expect(d, "%k: uniform");               /* the counter is the same for every active lane */
  expect(d, "%last.wfv.last: varying");   /* but each lane keeps the value of its last iteration */
  expect(d, "store %last.wfv.last: consecutive");
  expect(d, "block exit: all lanes");
  expect(d, "widened");
  free(d);
}

static void test_refuses_divergent_loop_with_two_exits(void **state) {
  (void)state;
  char *d = describe(DECLS
                     "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
                     "entry:\n"
                     "  %lid = call i64 @__kiln_local_id(i32 0)\n"
                     "  br label %loop\n"
                     "loop:\n"
                     "  %k = phi i64 [ 0, %entry ], [ %k.next, %latch ]\n"
                     "  %p = getelementptr i64, ptr addrspace(1) %in, i64 %k\n"
                     "  %v = load i64, ptr addrspace(1) %p\n"
                     "  %hit = icmp eq i64 %v, %lid\n"
                     "  br i1 %hit, label %exit, label %latch\n"
                     "latch:\n"
                     "  %k.next = add i64 %k, 1\n"
                     "  %more = icmp slt i64 %k.next, 100\n"
                     "  br i1 %more, label %loop, label %exit\n"
                     "exit:\n"
                     "  ret void\n"
                     "}\n");
  expect(d, "not vectorized: a loop whose lanes leave it at different iterations through more than its latch");
  free(d);
}

static void test_unparsable_ir(void **state) {
  (void)state;
  assert_null(kiln_wfv_describe("this is not IR", "k", 8));
  assert_null(kiln_wfv_describe(DECLS, "k", 8)); /* no such function */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shapes_and_accesses),          cmocka_unit_test(test_divergent_branch_is_predicated),
      cmocka_unit_test(test_uniform_branch_in_divergent_region_stays),
      cmocka_unit_test(test_uniform_branch_over_divergent_one_is_linearized),
      cmocka_unit_test(test_uniform_branch_and_loop_stay), cmocka_unit_test(test_divergent_loop_gets_active_lanes),
      cmocka_unit_test(test_refuses_divergent_loop_with_two_exits), cmocka_unit_test(test_unparsable_ir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
