/* clSetMemObjectDestructorCallback: callbacks run newest first, once, when the memory
 * object is really freed — after the last command using it has finished and after its
 * sub-buffers are gone — before its USE_HOST_PTR memory is given up, and without any
 * runtime lock held (a callback may call back into OpenCL). */
#include "kiln_test.h"

#include <CL/cl_icd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct record {
  atomic_int count;
  int order[8];
  cl_mem seen[8];
};

struct tag {
  struct record *record;
  int id;
};

static void CL_CALLBACK note(cl_mem mem, void *user_data) {
  struct tag *tag = user_data;
  int slot = atomic_load(&tag->record->count);
  tag->record->order[slot] = tag->id;
  tag->record->seen[slot] = mem;
  atomic_store(&tag->record->count, slot + 1);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Destruction may finish on a worker right after the last command completes. */
static bool wait_for_count(atomic_int *count, int expected) {
  for (int i = 0; i < 2000 && atomic_load(count) < expected; i++) sleep_ms(1);
  return atomic_load(count) == expected;
}

static cl_mem make_buffer(struct kiln_test_env *env, cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, flags, size, host, &err);
  assert_cl_success(err);
  return mem;
}

static void test_reverse_order(void **state) {
  struct kiln_test_env *env = *state;
  struct record rec = {0};
  struct tag tags[3] = {{&rec, 1}, {&rec, 2}, {&rec, 3}};
  cl_mem mem = make_buffer(env, 0, 64, NULL);
  for (int i = 0; i < 3; i++) assert_cl_success(clSetMemObjectDestructorCallback(mem, note, &tags[i]));
  assert_cl_success(clRetainMemObject(mem));
  assert_cl_success(clReleaseMemObject(mem));
  assert_int_equal(atomic_load(&rec.count), 0); /* still referenced */
  assert_cl_success(clReleaseMemObject(mem));
  assert_true(wait_for_count(&rec.count, 3));
  assert_int_equal(rec.order[0], 3);
  assert_int_equal(rec.order[1], 2);
  assert_int_equal(rec.order[2], 1);
  for (int i = 0; i < 3; i++) assert_ptr_equal(rec.seen[i], mem);
  sleep_ms(5);
  assert_int_equal(atomic_load(&rec.count), 3); /* once each */
}

struct host_owner {
  atomic_int calls;
  int *host;
  int expected_first;
  int seen_first;
};

static void CL_CALLBACK free_host(cl_mem mem, void *user_data) {
  (void)mem;
  struct host_owner *owner = user_data;
  owner->seen_first = owner->host[0]; /* what the last command left there */
  free(owner->host);                  /* allowed: the buffer no longer uses it */
  owner->host = NULL;
  atomic_fetch_add(&owner->calls, 1);
}

/* The callback runs only after the last command using the buffer has finished. */
static void test_after_last_command(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  struct host_owner owner = {0};
  owner.host = calloc(64, sizeof(int));
  cl_mem mem = make_buffer(env, CL_MEM_USE_HOST_PTR, 64 * sizeof(int), owner.host);
  assert_cl_success(clSetMemObjectDestructorCallback(mem, free_host, &owner));
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  static const int value[64] = {777, 1, 2, 3};
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_FALSE, 0, sizeof value, value, 1, &gate, NULL));
  assert_cl_success(clReleaseMemObject(mem)); /* the API's last reference; a command still uses it */
  sleep_ms(20);
  assert_int_equal(atomic_load(&owner.calls), 0);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(env->queue));
  assert_true(wait_for_count(&owner.calls, 1));
  assert_int_equal(owner.seen_first, 777); /* the write had run */
  assert_null(owner.host);
  clReleaseEvent(gate);
}

/* A parent is freed only after its sub-buffers. */
static void test_parent_after_sub_buffers(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint bits;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
  struct record rec = {0};
  struct tag parent_tag = {&rec, 10}, sub_tag = {&rec, 20};
  cl_mem parent = make_buffer(env, 0, 4 * bits / 8, NULL);
  cl_buffer_region region = {bits / 8, bits / 8};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  assert_cl_success(clSetMemObjectDestructorCallback(parent, note, &parent_tag));
  assert_cl_success(clSetMemObjectDestructorCallback(sub, note, &sub_tag));
  assert_cl_success(clReleaseMemObject(parent));
  sleep_ms(10);
  assert_int_equal(atomic_load(&rec.count), 0);
  assert_cl_success(clReleaseMemObject(sub));
  assert_true(wait_for_count(&rec.count, 2));
  assert_int_equal(rec.order[0], 20);
  assert_int_equal(rec.order[1], 10);
}

struct reentry {
  cl_context context;
  atomic_int calls;
  cl_int create_err, release_err;
};

static void CL_CALLBACK call_back_in(cl_mem mem, void *user_data) {
  (void)mem;
  struct reentry *r = user_data;
  cl_mem other = clCreateBuffer(r->context, 0, 16, NULL, &r->create_err);
  r->release_err = other ? clReleaseMemObject(other) : CL_INVALID_MEM_OBJECT;
  atomic_fetch_add(&r->calls, 1);
}

static void test_callback_may_call_opencl(void **state) {
  struct kiln_test_env *env = *state;
  struct reentry r = {.context = env->context, .create_err = 1, .release_err = 1};
  cl_mem mem = make_buffer(env, 0, 64, NULL);
  assert_cl_success(clSetMemObjectDestructorCallback(mem, call_back_in, &r));
  char buf[64] = {0};
  assert_cl_success(clEnqueueWriteBuffer(env->queue, mem, CL_FALSE, 0, sizeof buf, buf, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(mem));
  assert_cl_success(clFinish(env->queue));
  assert_true(wait_for_count(&r.calls, 1));
  assert_cl_success(r.create_err);
  assert_cl_success(r.release_err);
}

static void test_errors(void **state) {
  struct kiln_test_env *env = *state;
  struct record rec = {0};
  struct tag tag = {&rec, 1};
  cl_mem mem = make_buffer(env, 0, 64, NULL);
  assert_int_equal(clSetMemObjectDestructorCallback(mem, NULL, &tag), CL_INVALID_VALUE);
  assert_int_equal(clSetMemObjectDestructorCallback(mem, NULL, NULL), CL_INVALID_VALUE);
  assert_cl_success(clSetMemObjectDestructorCallback(mem, note, &tag));
  assert_cl_success(clReleaseMemObject(mem));
  assert_true(wait_for_count(&rec.count, 1));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(d->clSetMemObjectDestructorCallback(mem, note, &tag), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clSetMemObjectDestructorCallback(NULL, note, &tag), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clSetMemObjectDestructorCallback((cl_mem)env->context, note, &tag), CL_INVALID_MEM_OBJECT);
  assert_int_equal(atomic_load(&rec.count), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reverse_order),          cmocka_unit_test(test_after_last_command),
      cmocka_unit_test(test_parent_after_sub_buffers), cmocka_unit_test(test_callback_may_call_opencl),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
