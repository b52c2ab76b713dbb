/* cl_intel_command_queue_families' rules (src/ext/intel_queue_families/family_rules.c)
 * over synthetic capability sets, against a model written from the spec's text: the
 * capability table (each capability allows its commands, its absence refuses them, calls
 * outside the table need the default capabilities), the wait-list rule, the rules for an
 * event of another queue (its queue must create cross-queue events, the waiting queue must
 * wait on cross-queue events; user events belong to no queue) and the event-request rule.
 * Most of these sets are reachable by no family Kiln offers (the loader suites cover those). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ext/intel_queue_families/intel_queue_families.h"

#include <stdio.h>

typedef cl_command_queue_capabilities_intel caps_t;

#define CREATE_SINGLE CL_QUEUE_CAPABILITY_CREATE_SINGLE_QUEUE_EVENTS_INTEL
#define CREATE_CROSS CL_QUEUE_CAPABILITY_CREATE_CROSS_QUEUE_EVENTS_INTEL
#define WAIT_SINGLE CL_QUEUE_CAPABILITY_SINGLE_QUEUE_EVENT_WAIT_LIST_INTEL
#define WAIT_CROSS CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL
#define EVENT_BITS (CREATE_SINGLE | CREATE_CROSS | WAIT_SINGLE | WAIT_CROSS)

/* Every capability bit the extension defines. */
static const caps_t all_defined =
    EVENT_BITS | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL |
    CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL | CL_QUEUE_CAPABILITY_FILL_BUFFER_INTEL |
    CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL | CL_QUEUE_CAPABILITY_MAP_IMAGE_INTEL |
    CL_QUEUE_CAPABILITY_FILL_IMAGE_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_IMAGE_INTEL |
    CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_BUFFER_INTEL | CL_QUEUE_CAPABILITY_MARKER_INTEL |
    CL_QUEUE_CAPABILITY_BARRIER_INTEL | CL_QUEUE_CAPABILITY_KERNEL_INTEL;

/* The spec's "Queue Capabilities Table": the enqueue calls it describes and what they need. */
static const struct {
  cl_command_type type;
  caps_t needs;
  const char *name;
} table[] = {
    {CL_COMMAND_READ_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL, "clEnqueueReadBuffer"},
    {CL_COMMAND_WRITE_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL, "clEnqueueWriteBuffer"},
    {CL_COMMAND_COPY_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL, "clEnqueueCopyBuffer"},
    {CL_COMMAND_READ_BUFFER_RECT, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL, "clEnqueueReadBufferRect"},
    {CL_COMMAND_WRITE_BUFFER_RECT, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL, "clEnqueueWriteBufferRect"},
    {CL_COMMAND_COPY_BUFFER_RECT, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL, "clEnqueueCopyBufferRect"},
    {CL_COMMAND_MAP_BUFFER, CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL, "clEnqueueMapBuffer"},
    /* Kiln has no images: every unmap is of a buffer. */
    {CL_COMMAND_UNMAP_MEM_OBJECT, CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL, "clEnqueueUnmapMemObject"},
    {CL_COMMAND_FILL_BUFFER, CL_QUEUE_CAPABILITY_FILL_BUFFER_INTEL, "clEnqueueFillBuffer"},
    {CL_COMMAND_READ_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL, "clEnqueueReadImage"},
    {CL_COMMAND_WRITE_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL, "clEnqueueWriteImage"},
    {CL_COMMAND_COPY_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL, "clEnqueueCopyImage"},
    {CL_COMMAND_MAP_IMAGE, CL_QUEUE_CAPABILITY_MAP_IMAGE_INTEL, "clEnqueueMapImage"},
    {CL_COMMAND_FILL_IMAGE, CL_QUEUE_CAPABILITY_FILL_IMAGE_INTEL, "clEnqueueFillImage"},
    {CL_COMMAND_COPY_BUFFER_TO_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_IMAGE_INTEL, "clEnqueueCopyBufferToImage"},
    {CL_COMMAND_COPY_IMAGE_TO_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_BUFFER_INTEL, "clEnqueueCopyImageToBuffer"},
    {CL_COMMAND_MARKER, CL_QUEUE_CAPABILITY_MARKER_INTEL, "clEnqueueMarker[WithWaitList]"},
    {CL_COMMAND_BARRIER, CL_QUEUE_CAPABILITY_BARRIER_INTEL, "clEnqueueBarrier[WithWaitList]"},
};
#define TABLE_SIZE (sizeof table / sizeof table[0])

/* Enqueue calls the table does not describe. */
static const struct {
  cl_command_type type;
  const char *name;
} outside[] = {
    {CL_COMMAND_NDRANGE_KERNEL, "clEnqueueNDRangeKernel"},
    {CL_COMMAND_TASK, "clEnqueueTask"},
    {CL_COMMAND_NATIVE_KERNEL, "clEnqueueNativeKernel"},
    {CL_COMMAND_MIGRATE_MEM_OBJECTS, "clEnqueueMigrateMemObjects"},
    {CL_COMMAND_SVM_FREE, "clEnqueueSVMFree"},
    {CL_COMMAND_SVM_MEMCPY, "clEnqueueSVMMemcpy"},
    {CL_COMMAND_SVM_MEMFILL, "clEnqueueSVMMemFill"},
    {CL_COMMAND_SVM_MAP, "clEnqueueSVMMap"},
    {CL_COMMAND_SVM_UNMAP, "clEnqueueSVMUnmap"},
    {CL_COMMAND_SVM_MIGRATE_MEM, "clEnqueueSVMMigrateMem"},
    {CL_COMMAND_ACQUIRE_GL_OBJECTS, "clEnqueueAcquireGLObjects"},
    {CL_COMMAND_RELEASE_GL_OBJECTS, "clEnqueueReleaseGLObjects"},
    {CL_COMMAND_COMMAND_BUFFER_KHR, "clEnqueueCommandBufferKHR"},
    {KILN_ENQUEUE_WAIT_FOR_EVENTS, "clEnqueueWaitForEvents"},
    {CL_COMMAND_NDRANGE_KERNEL, "clEnqueueRecordingQCOM (checked as the NDRange command it submits)"},
};
#define OUTSIDE_SIZE (sizeof outside / sizeof outside[0])

/* Capability sets spanning every combination of the four event bits, with no other
 * bits, with Kiln's transfer set, and with every defined bit. */
#define TRANSFERS                                                                                                      \
  (CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL |                        \
   CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL | CL_QUEUE_CAPABILITY_FILL_BUFFER_INTEL | CL_QUEUE_CAPABILITY_MARKER_INTEL |   \
   CL_QUEUE_CAPABILITY_BARRIER_INTEL)
static const caps_t others[] = {0, TRANSFERS, all_defined & ~EVENT_BITS};

static caps_t event_combo(unsigned combo) {
  caps_t caps = 0;
  if (combo & 1)
    caps |= CREATE_SINGLE;
  if (combo & 2)
    caps |= CREATE_CROSS;
  if (combo & 4)
    caps |= WAIT_SINGLE;
  if (combo & 8)
    caps |= WAIT_CROSS;
  return caps;
}

/* The capability sets the event tests try: set_at(0) is the default, then each event
 * combination with each of `others`. */
#define SETS (1 + 16 * (sizeof others / sizeof others[0]))
static caps_t set_at(size_t i) { return i == 0 ? 0 : others[(i - 1) / 16] | event_combo((unsigned)(i - 1) % 16); }

/* ---- the capability table ---- */

static void test_default_capabilities_allow_every_command(void **state) {
  (void)state;
  for (size_t i = 0; i < TABLE_SIZE; i++)
    if (kiln_family_check_command(CL_QUEUE_DEFAULT_CAPABILITIES_INTEL, table[i].type) != CL_SUCCESS)
      fail_msg("%s refused with the default capabilities", table[i].name);
  for (size_t i = 0; i < OUTSIDE_SIZE; i++)
    if (kiln_family_check_command(CL_QUEUE_DEFAULT_CAPABILITIES_INTEL, outside[i].type) != CL_SUCCESS)
      fail_msg("%s refused with the default capabilities", outside[i].name);
}

/* Its capability alone, or with any other bits, allows a table command. */
static void test_capability_allows_its_commands(void **state) {
  (void)state;
  for (size_t i = 0; i < TABLE_SIZE; i++) {
    const caps_t sets[] = {table[i].needs, table[i].needs | EVENT_BITS, table[i].needs | all_defined,
                           table[i].needs | (1ull << 40)};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
      if (kiln_family_check_command(sets[s], table[i].type) != CL_SUCCESS)
        fail_msg("%s refused with capabilities 0x%llx", table[i].name, (unsigned long long)sets[s]);
  }
}

/* Without its capability a table command is CL_INVALID_OPERATION: with every other
 * defined bit, and with each other bit alone (all 64). */
static void test_absent_capability_refuses_its_commands(void **state) {
  (void)state;
  for (size_t i = 0; i < TABLE_SIZE; i++) {
    caps_t rest = all_defined & ~table[i].needs;
    if (kiln_family_check_command(rest, table[i].type) != CL_INVALID_OPERATION)
      fail_msg("%s allowed with capabilities 0x%llx (without its own)", table[i].name, (unsigned long long)rest);
    for (unsigned bit = 0; bit < 64; bit++) {
      caps_t one = 1ull << bit;
      if (one == table[i].needs)
        continue;
      if (kiln_family_check_command(one, table[i].type) != CL_INVALID_OPERATION)
        fail_msg("%s allowed with only bit %u", table[i].name, bit);
    }
  }
}

/* "For all other enqueue APIs not described in the Queue Capabilities Table:
 * CL_INVALID_OPERATION if the queue capabilities ... is not CL_QUEUE_DEFAULT_CAPABILITIES_INTEL":
 * whatever the bits, including all of them (CL_QUEUE_CAPABILITY_KERNEL_INTEL too, which
 * the 1.0.0 table does not describe). */
static void test_commands_outside_the_table_need_default_capabilities(void **state) {
  (void)state;
  for (size_t i = 0; i < OUTSIDE_SIZE; i++) {
    const caps_t sets[] = {all_defined, ~0ull, TRANSFERS | EVENT_BITS, CL_QUEUE_CAPABILITY_KERNEL_INTEL};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
      if (kiln_family_check_command(sets[s], outside[i].type) != CL_INVALID_OPERATION)
        fail_msg("%s allowed with capabilities 0x%llx", outside[i].name, (unsigned long long)sets[s]);
    for (unsigned bit = 0; bit < 64; bit++)
      if (kiln_family_check_command(1ull << bit, outside[i].type) != CL_INVALID_OPERATION)
        fail_msg("%s allowed with only bit %u", outside[i].name, bit);
  }
}

/* ---- events ---- */

/* A rule over one capability set, over every set tried but the default: CL_SUCCESS when
 * the set has one of the bits `allowing`, else `refused`. */
static void expect_rule_on_every_set(cl_int (*rule)(caps_t), caps_t allowing, cl_int refused, const char *what) {
  for (size_t i = 1; i < SETS; i++) {
    caps_t caps = set_at(i);
    if (caps == CL_QUEUE_DEFAULT_CAPABILITIES_INTEL)
      continue;
    cl_int want = (caps & allowing) ? CL_SUCCESS : refused;
    cl_int got = rule(caps);
    if (got != want)
      fail_msg("%s with capabilities 0x%llx: %d, expected %d", what, (unsigned long long)caps, got, want);
  }
}

/* A non-empty wait list needs the default capabilities or
 * CL_QUEUE_CAPABILITY_SINGLE_QUEUE_EVENT_WAIT_LIST_INTEL (cross-queue waiting alone is
 * not enough: the spec names the single-queue bit). */
static void test_wait_list_rule(void **state) {
  (void)state;
  assert_int_equal(CL_SUCCESS, kiln_family_check_wait_list(CL_QUEUE_DEFAULT_CAPABILITIES_INTEL));
  expect_rule_on_every_set(kiln_family_check_wait_list, WAIT_SINGLE, CL_INVALID_EVENT_WAIT_LIST, "wait list");
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kiln_family_check_wait_list(WAIT_CROSS));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kiln_family_check_wait_list(TRANSFERS));
}

/* An event requested from an enqueue needs the default capabilities or one of the two
 * event-creating bits. */
static void test_event_request_rule(void **state) {
  (void)state;
  assert_int_equal(CL_SUCCESS, kiln_family_check_event_request(CL_QUEUE_DEFAULT_CAPABILITIES_INTEL));
  expect_rule_on_every_set(kiln_family_check_event_request, CREATE_SINGLE | CREATE_CROSS, CL_INVALID_EVENT,
                           "event request");
  assert_int_equal(CL_SUCCESS, kiln_family_check_event_request(CREATE_SINGLE));
  assert_int_equal(CL_SUCCESS, kiln_family_check_event_request(CREATE_CROSS));
  assert_int_equal(CL_INVALID_EVENT, kiln_family_check_event_request(WAIT_SINGLE | WAIT_CROSS | TRANSFERS));
}

/* An event of the waiting queue itself: never refused by the per-event rule (the
 * non-empty-list rule above is what needs the single-queue bit). */
static void test_wait_event_of_the_same_queue(void **state) {
  (void)state;
  for (size_t w = 0; w < SETS; w++) {
    caps_t caps = set_at(w);
    if (caps != 0 && !(caps & (CREATE_SINGLE | CREATE_CROSS)))
      continue; /* such a queue has no events */
    if (kiln_family_check_wait_event(caps, true, true, caps) != CL_SUCCESS)
      fail_msg("own event refused with capabilities 0x%llx", (unsigned long long)caps);
  }
}

/* An event of another queue: its queue must create cross-queue events (or have the
 * default capabilities), and the waiting queue must wait on cross-queue events (or have
 * the default capabilities). Every pair of sets. */
static void test_wait_event_of_another_queue(void **state) {
  (void)state;
  for (size_t w = 0; w < SETS; w++)
    for (size_t e = 0; e < SETS; e++) {
      caps_t waiting = set_at(w), owner = set_at(e);
      bool owner_ok = owner == 0 || (owner & CREATE_CROSS);
      bool waiting_ok = waiting == 0 || (waiting & WAIT_CROSS);
      cl_int want = owner_ok && waiting_ok ? CL_SUCCESS : CL_INVALID_EVENT_WAIT_LIST;
      cl_int got = kiln_family_check_wait_event(waiting, false, true, owner);
      if (got != want)
        fail_msg("queue 0x%llx waiting on an event of queue 0x%llx: %d, expected %d", (unsigned long long)waiting,
                 (unsigned long long)owner, got, want);
    }
}

/* The cases no Kiln family reaches through the loader, by name. */
static void test_wait_event_unreachable_cases(void **state) {
  (void)state;
  /* An event from a queue that creates single-queue but not cross-queue events: refused
   * to every other queue, even one with the default capabilities or every wait bit. */
  const caps_t single_only = CREATE_SINGLE | WAIT_SINGLE | WAIT_CROSS | TRANSFERS;
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kiln_family_check_wait_event(0, false, true, single_only));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST,
                   kiln_family_check_wait_event(EVENT_BITS | TRANSFERS, false, true, single_only));
  /* ... but not to its own queue. */
  assert_int_equal(CL_SUCCESS, kiln_family_check_wait_event(single_only, true, true, single_only));
  /* A queue that waits on single-queue events only, given a default queue's event. */
  const caps_t waits_single = CREATE_SINGLE | CREATE_CROSS | WAIT_SINGLE | TRANSFERS;
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kiln_family_check_wait_event(waits_single, false, true, 0));
  assert_int_equal(CL_SUCCESS, kiln_family_check_wait_event(waits_single, true, true, waits_single));
  /* Cross-queue waiting with no single-queue waiting: the per-event rule allows another
   * queue's event, the list rule refuses any list. */
  assert_int_equal(CL_SUCCESS, kiln_family_check_wait_event(WAIT_CROSS, false, true, CREATE_CROSS));
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST, kiln_family_check_wait_list(WAIT_CROSS));
}

/* A user event belongs to no queue: it is another queue's event to every waiting queue
 * (the waiting queue needs cross-queue waiting), and nothing restricts its creation (the
 * owner capabilities argument is ignored). */
static void test_wait_event_user_event(void **state) {
  (void)state;
  const caps_t garbage[] = {0, CREATE_SINGLE, TRANSFERS, ~0ull};
  for (size_t w = 0; w < SETS; w++)
    for (size_t g = 0; g < sizeof garbage / sizeof garbage[0]; g++) {
      caps_t waiting = set_at(w);
      cl_int want = waiting == 0 || (waiting & WAIT_CROSS) ? CL_SUCCESS : CL_INVALID_EVENT_WAIT_LIST;
      cl_int got = kiln_family_check_wait_event(waiting, false, false, garbage[g]);
      if (got != want)
        fail_msg("queue 0x%llx waiting on a user event (owner argument 0x%llx): %d, expected %d",
                 (unsigned long long)waiting, (unsigned long long)garbage[g], got, want);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_capabilities_allow_every_command),
      cmocka_unit_test(test_capability_allows_its_commands),
      cmocka_unit_test(test_absent_capability_refuses_its_commands),
      cmocka_unit_test(test_commands_outside_the_table_need_default_capabilities),
      cmocka_unit_test(test_wait_list_rule),
      cmocka_unit_test(test_event_request_rule),
      cmocka_unit_test(test_wait_event_of_the_same_queue),
      cmocka_unit_test(test_wait_event_of_another_queue),
      cmocka_unit_test(test_wait_event_unreachable_cases),
      cmocka_unit_test(test_wait_event_user_event),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
