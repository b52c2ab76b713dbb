/* Replay versions (runtime/replay.h) on their own, with bare recorded commands: the steps
 * of a version in command order across chunks (barriers and commands with nothing to run
 * left out), the most stack any step needs, and replacement: only the chunks holding a
 * replaced command are copied (the others shared), the copies hold their commands once
 * more, the replaced ones are dropped with the last version using them, and versions
 * released in any order free everything exactly once (the sanitizer builds check that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/command_state.h"
#include "runtime/replay.h"

#include <stdlib.h>
#include <string.h>

enum { COUNT = 100 };

static cl_int run_nothing(struct kiln_command *command) {
  (void)command;
  return CL_SUCCESS;
}

/* A bare command whose payload holds `id`; `run` NULL: one with nothing to run. */
static struct kiln_command *command_with_id(int id, kiln_command_run_fn run, uint64_t stack) {
  cl_int err;
  struct kiln_command *command = kiln_command_create_recorded(run, &err);
  assert_non_null(command);
  memcpy(kiln_command_payload(command), &id, sizeof id);
  command->stack_bytes = stack;
  return command;
}

static int id_of(const struct kiln_command *command) {
  int id;
  memcpy(&id, ((struct kiln_command *)command)->payload, sizeof id);
  return id;
}

/* The ids of the version's steps, in order; returns how many. */
static size_t step_ids(const struct kiln_replay_version *version, int *ids) {
  size_t n = 0;
  for (size_t c = 0; c < version->chunk_count; c++)
    for (size_t i = 0; i < version->chunks[c]->step_count; i++) ids[n++] = id_of(version->chunks[c]->steps[i].command);
  return n;
}

/* COUNT commands, id = index; NULL (a barrier) at 5 and 40, nothing to run at 77. */
static struct kiln_replay_version *new_version(struct kiln_command **kept) {
  struct kiln_command **commands = malloc(COUNT * sizeof *commands);
  assert_non_null(commands);
  for (int i = 0; i < COUNT; i++)
    commands[i] = i == 5 || i == 40 ? NULL : command_with_id(i, i == 77 ? NULL : run_nothing, (uint64_t)i * 16);
  memcpy(kept, commands, COUNT * sizeof *commands);
  struct kiln_replay_version *version = kiln_replay_version_new(commands, COUNT); /* frees `commands` */
  assert_non_null(version);
  return version;
}

static void test_steps_in_order(void **state) {
  (void)state;
  struct kiln_command *kept[COUNT];
  struct kiln_replay_version *version = new_version(kept);
  assert_int_equal(COUNT, version->count);
  assert_int_equal((COUNT + KILN_REPLAY_CHUNK - 1) / KILN_REPLAY_CHUNK, version->chunk_count);
  int ids[COUNT];
  size_t n = step_ids(version, ids), expected = 0;
  for (int i = 0; i < COUNT; i++) {
    if (i == 5 || i == 40 || i == 77) continue;
    assert_true(expected < n);
    assert_int_equal(i, ids[expected++]);
  }
  assert_int_equal(expected, n);
  assert_int_equal(99 * 16, version->stack_bytes);
  assert_int_equal(1, atomic_load(&kept[0]->refs));
  kiln_replay_version_release(version);
}

static void test_replace_copies_only_touched_chunks(void **state) {
  (void)state;
  struct kiln_command *kept[COUNT];
  struct kiln_replay_version *base = new_version(kept);
  const size_t indices[] = {99, 0, 31, 32}; /* chunks 3, 0, 0, 1 (of 32): chunk 2 untouched */
  struct kiln_command *replacements[4];
  for (int j = 0; j < 4; j++) replacements[j] = command_with_id(1000 + (int)indices[j], run_nothing, 8);
  struct kiln_replay_version *next = kiln_replay_version_replace(base, indices, replacements, 4);
  assert_non_null(next);
  assert_ptr_equal(base->chunks[2], next->chunks[2]);
  for (int c = 0; c < 4; c++)
    if (c != 2) assert_ptr_not_equal(base->chunks[c], next->chunks[c]);

  int ids[COUNT];
  size_t n = step_ids(next, ids), at = 0;
  for (int i = 0; i < COUNT; i++) {
    if (i == 5 || i == 40 || i == 77) continue;
    int want = i == 0 || i == 31 || i == 32 || i == 99 ? 1000 + i : i;
    assert_int_equal(want, ids[at++]);
  }
  assert_int_equal(at, n);
  assert_int_equal(98 * 16, next->stack_bytes); /* 99 (1584 bytes) was replaced by one needing 8 */
  /* The old version is as it was. */
  n = step_ids(base, ids);
  assert_int_equal(0, ids[0]);
  assert_int_equal(99, ids[n - 1]);

  /* Held: once per chunk that has it. */
  assert_int_equal(2, atomic_load(&kept[1]->refs));  /* chunk 0: copied */
  assert_int_equal(2, atomic_load(&kept[33]->refs)); /* chunk 1: copied */
  assert_int_equal(1, atomic_load(&kept[70]->refs)); /* chunk 2: shared */
  assert_int_equal(1, atomic_load(&kept[0]->refs));  /* replaced: the old chunk only */
  assert_int_equal(1, atomic_load(&replacements[0]->refs));

  kiln_replay_version_release(base); /* drops 0, 31, 32, 99 */
  assert_int_equal(1, atomic_load(&kept[1]->refs));
  n = step_ids(next, ids);
  assert_int_equal(1000, ids[0]);
  kiln_replay_version_release(next);
}

static void test_replace_nothing_shares_everything(void **state) {
  (void)state;
  struct kiln_command *kept[COUNT];
  struct kiln_replay_version *base = new_version(kept);
  struct kiln_replay_version *next = kiln_replay_version_replace(base, NULL, NULL, 0);
  assert_non_null(next);
  for (size_t c = 0; c < base->chunk_count; c++) assert_ptr_equal(base->chunks[c], next->chunks[c]);
  assert_int_equal(base->stack_bytes, next->stack_bytes);
  kiln_replay_version_release(next);
  kiln_replay_version_release(base);
}

/* Three generations replacing the same command, released oldest last, newest first, in the middle. */
static void test_generations_released_in_any_order(void **state) {
  (void)state;
  static const int orders[3][3] = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}};
  for (int o = 0; o < 3; o++) {
    struct kiln_command *kept[COUNT];
    struct kiln_replay_version *v[3];
    v[0] = new_version(kept);
    for (int g = 1; g < 3; g++) {
      const size_t index = 50;
      struct kiln_command *replacement = command_with_id(100 * g, run_nothing, 0);
      v[g] = kiln_replay_version_replace(v[g - 1], &index, &replacement, 1);
      assert_non_null(v[g]);
    }
    int ids[COUNT];
    size_t n = step_ids(v[2], ids);
    int found = 0;
    for (size_t i = 0; i < n; i++) found += ids[i] == 200;
    assert_int_equal(1, found);
    for (int k = 0; k < 3; k++) kiln_replay_version_release(v[orders[o][k]]);
  }
}

/* A version of no commands (an empty command buffer) has no chunks and no steps. */
static void test_empty(void **state) {
  (void)state;
  struct kiln_replay_version *version = kiln_replay_version_new(NULL, 0);
  assert_non_null(version);
  assert_int_equal(0, version->chunk_count);
  assert_int_equal(0, version->stack_bytes);
  struct kiln_replay_version *next = kiln_replay_version_replace(version, NULL, NULL, 0);
  assert_non_null(next);
  kiln_replay_version_release(version);
  kiln_replay_version_release(next);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_steps_in_order),
      cmocka_unit_test(test_replace_copies_only_touched_chunks),
      cmocka_unit_test(test_replace_nothing_shares_everything),
      cmocka_unit_test(test_generations_released_in_any_order),
      cmocka_unit_test(test_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
