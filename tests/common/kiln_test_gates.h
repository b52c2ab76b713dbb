/* kiln_test_gates.h: user events that gate commands in a test. A test that fails between
 * creating such an event and setting it would leave commands waiting forever and the
 * suite would hang behind them; the per-test teardown sets every gate still unset to an
 * error status instead, so the failure is reported and the suite goes on. */
#ifndef KILN_TEST_GATES_H
#define KILN_TEST_GATES_H

#include "kiln_test.h"

#define KILN_TEST_MAX_GATES 64
static cl_event kiln_test_gates[KILN_TEST_MAX_GATES];
static size_t kiln_test_gate_count;

/* A user event; the gate list keeps a reference of its own. */
static inline cl_event kiln_test_gate_new(cl_context context) {
  cl_int err = CL_INVALID_VALUE;
  cl_event event = clCreateUserEvent(context, &err);
  assert_cl_success(err);
  if (kiln_test_gate_count < KILN_TEST_MAX_GATES) {
    assert_cl_success(clRetainEvent(event));
    kiln_test_gates[kiln_test_gate_count++] = event;
  }
  return event;
}

static inline int kiln_test_gates_open(void **state) {
  (void)state;
  for (size_t i = 0; i < kiln_test_gate_count; i++) {
    cl_int status = CL_COMPLETE;
    clGetEventInfo(kiln_test_gates[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (status == CL_SUBMITTED) clSetUserEventStatus(kiln_test_gates[i], -1);
    clReleaseEvent(kiln_test_gates[i]);
  }
  kiln_test_gate_count = 0;
  return 0;
}

/* A test whose teardown opens the gates it left closed. */
#define KILN_GATED_TEST(f) cmocka_unit_test_teardown(f, kiln_test_gates_open)

#endif
