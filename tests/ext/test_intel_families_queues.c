/* cl_intel_command_queue_families 1.0.0, the interface: the extension strings and version,
 * the tokens, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL (size query, data, the clGetDeviceInfo
 * size rules, the three families Kiln documents and the spec's rules for them), queues on
 * every (family, index) with every property set the family lists, every creation error
 * (family or index alone, out of range, above 32 bits, given twice, CL_QUEUE_PROPERTIES bits
 * the family does not list, cl_qcom_recordable_queues' bit on a copy family),
 * clGetCommandQueueInfo of CL_QUEUE_FAMILY_INTEL and
 * CL_QUEUE_INDEX_INTEL (as given; for queues created without them, by both creation APIs, a
 * default family and the lanes in turn), CL_QUEUE_PROPERTIES_ARRAY, the combination with
 * cl_arm_scheduling_controls' properties, and released or invalid queues. What the families
 * allow and do is test_intel_families_enqueue.c's subject. */
#include "intel_families_test.h"

#include <CL/cl_ext_qcom.h>
#include <CL/kiln_arm_scheduling_controls.h>

/* The registry's values (cl.xml). */
_Static_assert(CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL == 0x418B, "cl.xml");
_Static_assert(CL_QUEUE_FAMILY_INTEL == 0x418C, "cl.xml");
_Static_assert(CL_QUEUE_INDEX_INTEL == 0x418D, "cl.xml");
_Static_assert(CL_QUEUE_FAMILY_MAX_NAME_SIZE_INTEL == 64, "cl.xml");
_Static_assert(CL_QUEUE_DEFAULT_CAPABILITIES_INTEL == 0, "cl.xml");
_Static_assert(CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL == (1 << 3), "cl.xml");
_Static_assert(CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL == (1 << 8), "cl.xml");
_Static_assert(CL_QUEUE_CAPABILITY_MARKER_INTEL == (1 << 24), "cl.xml");
_Static_assert(sizeof(cl_queue_family_properties_intel) == 8 + 8 + 4 + 64 + 4, "the struct's layout");

static const char *source = "kernel void triple(global int *p) { size_t i = get_global_id(0); p[i] = p[i] * 3 + 1; }\n";

static cl_program program;

static int setup(void **state) { return kiln_test_program_setup(state, kiln_test_env_setup, &program, source, NULL); }

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* A kernel on `queue` over 64 ints, its result checked (the queue runs kernels). */
static void expect_kernel_runs(struct kiln_test_env *env, cl_command_queue queue, const char *what) {
  enum { N = 64 };
  cl_int data[N], got[N], want[N];
  for (int i = 0; i < N; i++)
    data[i] = i * 5 - 70, want[i] = data[i] * 3 + 1;
  cl_mem buffer = kiln_test_buffer(env->context, sizeof data);
  kiln_test_write(queue, buffer, sizeof data, data);
  cl_kernel kernel = kiln_test_kernel(program, "triple");
  kiln_test_arg_mem(kernel, 0, buffer);
  const size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
  kiln_test_read(queue, buffer, sizeof got, got);
  kiln_test_expect_ints(want, got, N, what);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* ---- the extension ---- */

static void test_extension_reported(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_intel_command_queue_families", CL_MAKE_VERSION(1, 0, 0));
}

/* ---- CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL ---- */

static void test_family_query_sizes(void **state) {
  struct kiln_test_env *env = *state;
  const cl_device_info name = CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL;
  const size_t one = sizeof(cl_queue_family_properties_intel), all = IFAM_COUNT * one;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, name, 0, NULL, &size));
  assert_int_equal(all, size);
  assert_cl_success(clGetDeviceInfo(env->device, name, 0, NULL, NULL));
  cl_queue_family_properties_intel exact[IFAM_COUNT];
  ifam_families(env->device, exact);
  /* Too small for the whole array (a whole number of entries or not): refused, nothing written. */
  const size_t small[] = {1, one - 1, one, one + 1, 2 * one, all - 1};
  for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
    unsigned char bytes[IFAM_COUNT * sizeof(cl_queue_family_properties_intel) + 16];
    memset(bytes, 0xEE, sizeof bytes);
    if (clGetDeviceInfo(env->device, name, small[s], bytes, &size) != CL_INVALID_VALUE)
      fail_msg("a %zu-byte query (the array is %zu) was not CL_INVALID_VALUE", small[s], all);
    for (size_t i = 0; i < sizeof bytes; i++)
      if (bytes[i] != 0xEE)
        fail_msg("a refused %zu-byte query wrote byte %zu", small[s], i);
  }
  /* Larger than the array: the array, its size, the rest untouched. */
  cl_queue_family_properties_intel wide[IFAM_COUNT + 1];
  memset(wide, 0x5A, sizeof wide);
  assert_cl_success(clGetDeviceInfo(env->device, name, sizeof wide, wide, &size));
  assert_int_equal(all, size);
  assert_memory_equal(exact, wide, all);
  const unsigned char *rest = (const unsigned char *)&wide[IFAM_COUNT];
  for (size_t i = 0; i < one; i++)
    assert_int_equal(0x5A, rest[i]);
  /* The same answer every time. */
  cl_queue_family_properties_intel again[IFAM_COUNT];
  ifam_families(env->device, again);
  assert_memory_equal(exact, again, all);
  /* An invalid device. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->device);
  assert_int_equal(CL_INVALID_DEVICE, clGetDeviceInfo((cl_device_id)&fake, name, sizeof exact, exact, NULL));
}

static void expect_name(const cl_queue_family_properties_intel *family, const char *want, cl_uint index) {
  const char *end = memchr(family->name, '\0', CL_QUEUE_FAMILY_MAX_NAME_SIZE_INTEL);
  if (!end)
    fail_msg("family %u: name not NUL-terminated within %d bytes", index, CL_QUEUE_FAMILY_MAX_NAME_SIZE_INTEL);
  if (strcmp(family->name, want) != 0)
    fail_msg("family %u is named '%s', expected '%s'", index, family->name, want);
}

/* The three families Kiln documents. */
static void test_families_documented(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_family_properties_intel f[IFAM_COUNT];
  ifam_families(env->device, f);
  cl_command_queue_properties on_host = ifam_on_host_properties(env->device);
  assert_int_equal(IFAM_HOST_QUEUE_BITS, on_host);

  assert_int_equal(on_host, f[IFAM_COMPUTE].properties);
  assert_int_equal(CL_QUEUE_DEFAULT_CAPABILITIES_INTEL, f[IFAM_COMPUTE].capabilities);
  assert_int_equal(kiln_test_compute_units(env->device), f[IFAM_COMPUTE].count);
  expect_name(&f[IFAM_COMPUTE], "compute (worker pool lanes)", IFAM_COMPUTE);

  assert_int_equal(IFAM_HOST_QUEUE_BITS, f[IFAM_COPY].properties);
  assert_int_equal(IFAM_EVENT_CAPS | IFAM_TRANSFER_CAPS, f[IFAM_COPY].capabilities);
  assert_int_equal(2, f[IFAM_COPY].count);
  expect_name(&f[IFAM_COPY], "copy (copy engine threads)", IFAM_COPY);

  assert_int_equal(0, f[IFAM_IMMEDIATE].properties);
  assert_int_equal(IFAM_TRANSFER_CAPS, f[IFAM_IMMEDIATE].capabilities);
  assert_int_equal(1, f[IFAM_IMMEDIATE].count);
  expect_name(&f[IFAM_IMMEDIATE], "immediate copy (calling thread)", IFAM_IMMEDIATE);
}

/* The spec's rules for any device: at least one family with CL_DEVICE_QUEUE_ON_HOST_PROPERTIES
 * and the default capabilities; properties within the on-host ones; capabilities made of
 * defined bits, with cross-queue event bits only beside their single-queue ones; a count
 * of at least one; a NUL-terminated name. */
static void test_families_follow_the_spec(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_family_properties_intel f[IFAM_COUNT];
  ifam_families(env->device, f);
  cl_command_queue_properties on_host = ifam_on_host_properties(env->device);
  const cl_command_queue_capabilities_intel defined =
      IFAM_EVENT_CAPS | IFAM_TRANSFER_CAPS | CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL |
      CL_QUEUE_CAPABILITY_MAP_IMAGE_INTEL | CL_QUEUE_CAPABILITY_FILL_IMAGE_INTEL |
      CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_IMAGE_INTEL | CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_BUFFER_INTEL |
      CL_QUEUE_CAPABILITY_KERNEL_INTEL;
  size_t defaults = 0;
  for (cl_uint i = 0; i < IFAM_COUNT; i++) {
    if (f[i].properties == on_host && f[i].capabilities == CL_QUEUE_DEFAULT_CAPABILITIES_INTEL)
      defaults++;
    if (f[i].properties & ~on_host)
      fail_msg("family %u lists properties beyond the on-host ones", i);
    if (f[i].capabilities & ~defined)
      fail_msg("family %u has undefined capability bits", i);
    if ((f[i].capabilities & CL_QUEUE_CAPABILITY_CREATE_CROSS_QUEUE_EVENTS_INTEL) &&
        !(f[i].capabilities & CL_QUEUE_CAPABILITY_CREATE_SINGLE_QUEUE_EVENTS_INTEL))
      fail_msg("family %u creates cross-queue but not single-queue events", i);
    if ((f[i].capabilities & CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL) &&
        !(f[i].capabilities & CL_QUEUE_CAPABILITY_SINGLE_QUEUE_EVENT_WAIT_LIST_INTEL))
      fail_msg("family %u waits on cross-queue but not single-queue events", i);
    if (f[i].count < 1)
      fail_msg("family %u has no queues", i);
    if (!memchr(f[i].name, '\0', CL_QUEUE_FAMILY_MAX_NAME_SIZE_INTEL) || f[i].name[0] == '\0')
      fail_msg("family %u: empty or unterminated name", i);
  }
  assert_true(defaults >= 1);
}

/* ---- creation ---- */

/* The CL_QUEUE_PROPERTIES sets a family lists: every subset of its properties. */
static size_t property_subsets(cl_command_queue_properties listed, cl_command_queue_properties out[4]) {
  const cl_command_queue_properties bits[2] = {CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE};
  size_t n = 0;
  for (unsigned mask = 0; mask < 4; mask++) {
    cl_command_queue_properties set = (mask & 1 ? bits[0] : 0) | (mask & 2 ? bits[1] : 0);
    if ((set & ~listed) == 0)
      out[n++] = set;
  }
  return n;
}

/* A queue created from `props` (`count` entries with the terminator) answers every query
 * as given. */
static void expect_queue(struct kiln_test_env *env, const cl_queue_properties *props, size_t count, cl_uint family,
                         cl_uint index, cl_command_queue_properties bits, const char *what) {
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  if (err != CL_SUCCESS || !q)
    fail_msg("%s: error %d", what, err);
  if (ifam_queue_uint(q, CL_QUEUE_FAMILY_INTEL) != family)
    fail_msg("%s: CL_QUEUE_FAMILY_INTEL is wrong", what);
  if (ifam_queue_uint(q, CL_QUEUE_INDEX_INTEL) != index)
    fail_msg("%s: CL_QUEUE_INDEX_INTEL is wrong", what);
  cl_command_queue_properties got_bits = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof got_bits, &got_bits, NULL));
  if (got_bits != bits)
    fail_msg("%s: CL_QUEUE_PROPERTIES 0x%llx", what, (unsigned long long)got_bits);
  cl_queue_properties array[16];
  size_t size = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof array, array, &size));
  if (size != count * sizeof *props || memcmp(array, props, size) != 0)
    fail_msg("%s: CL_QUEUE_PROPERTIES_ARRAY differs from the list given", what);
  cl_context context = NULL;
  cl_device_id device = NULL;
  cl_uint refs = 0;
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof context, &context, NULL));
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, NULL));
  assert_cl_success(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_ptr_equal(env->context, context);
  assert_ptr_equal(env->device, device);
  assert_int_equal(1, refs);
  assert_cl_success(clFinish(q));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* Every (family, index), with every CL_QUEUE_PROPERTIES set the family lists (given
 * explicitly, also as 0, or left out), the two properties in both orders. */
static void test_create_every_family_and_index(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_family_properties_intel f[IFAM_COUNT];
  ifam_families(env->device, f);
  char what[160];
  size_t created = 0;
  for (cl_uint family = 0; family < IFAM_COUNT; family++)
    for (cl_uint index = 0; index < f[family].count; index++) {
      cl_queue_properties bare[] = {CL_QUEUE_FAMILY_INTEL, family, CL_QUEUE_INDEX_INTEL, index, 0};
      cl_queue_properties reversed[] = {CL_QUEUE_INDEX_INTEL, index, CL_QUEUE_FAMILY_INTEL, family, 0};
      snprintf(what, sizeof what, "family %u index %u", family, index);
      expect_queue(env, bare, 5, family, index, 0, what);
      expect_queue(env, reversed, 5, family, index, 0, what);
      cl_command_queue_properties sets[4];
      size_t n = property_subsets(f[family].properties, sets);
      for (size_t s = 0; s < n; s++) {
        cl_queue_properties before[] = {
            CL_QUEUE_PROPERTIES, sets[s], CL_QUEUE_FAMILY_INTEL, family, CL_QUEUE_INDEX_INTEL, index, 0};
        cl_queue_properties between[] = {
            CL_QUEUE_INDEX_INTEL, index, CL_QUEUE_PROPERTIES, sets[s], CL_QUEUE_FAMILY_INTEL, family, 0};
        snprintf(what, sizeof what, "family %u index %u properties 0x%llx", family, index, (unsigned long long)sets[s]);
        expect_queue(env, before, 7, family, index, sets[s], what);
        expect_queue(env, between, 7, family, index, sets[s], what);
        created += 2;
      }
    }
  /* 2 compute lanes x 4 sets + 2 copy engines x 4 sets + 1 immediate x 1 set, at least. */
  assert_true(created >= 2 * 4 + 2 * 4 + 1 * 1);
  /* errcode_ret may be NULL. */
  cl_queue_properties copy[] = {CL_QUEUE_FAMILY_INTEL, IFAM_COPY, CL_QUEUE_INDEX_INTEL, 1, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, copy, NULL);
  assert_non_null(q);
  assert_int_equal(IFAM_COPY, ifam_queue_uint(q, CL_QUEUE_FAMILY_INTEL));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* "If a command-queue family is specified then a command-queue index must also be
 * specified", and the reverse: CL_INVALID_VALUE. */
static void test_create_family_and_index_both_or_neither(void **state) {
  struct kiln_test_env *env = *state;
  char what[128];
  for (cl_uint v = 0; v < 2; v++) {
    cl_queue_properties family_alone[] = {CL_QUEUE_FAMILY_INTEL, v, 0};
    cl_queue_properties index_alone[] = {CL_QUEUE_INDEX_INTEL, v, 0};
    cl_queue_properties family_with_bits[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_FAMILY_INTEL, v,
                                              0};
    cl_queue_properties index_with_bits[] = {CL_QUEUE_INDEX_INTEL, v, CL_QUEUE_PROPERTIES, 0, 0};
    cl_queue_properties family_with_arm[] = {CL_QUEUE_FAMILY_INTEL, v, CL_QUEUE_KERNEL_BATCHING_ARM, CL_TRUE, 0};
    snprintf(what, sizeof what, "CL_QUEUE_FAMILY_INTEL %u without an index", v);
    ifam_expect_refused(env->context, env->device, family_alone, CL_INVALID_VALUE, what);
    ifam_expect_refused(env->context, env->device, family_with_bits, CL_INVALID_VALUE, what);
    ifam_expect_refused(env->context, env->device, family_with_arm, CL_INVALID_VALUE, what);
    snprintf(what, sizeof what, "CL_QUEUE_INDEX_INTEL %u without a family", v);
    ifam_expect_refused(env->context, env->device, index_alone, CL_INVALID_VALUE, what);
    ifam_expect_refused(env->context, env->device, index_with_bits, CL_INVALID_VALUE, what);
  }
}

/* A family >= the number of families, or above 32 bits (whose low 32 bits name a family). */
static void test_create_family_out_of_range(void **state) {
  struct kiln_test_env *env = *state;
  const cl_queue_properties bad[] = {IFAM_COUNT,       IFAM_COUNT + 1,   100,  0xFFFFFFFFu, 1ull << 32,
                                     (1ull << 32) | 1, (1ull << 32) | 2, ~0ull};
  char what[128];
  for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
    cl_queue_properties props[] = {CL_QUEUE_FAMILY_INTEL, bad[v], CL_QUEUE_INDEX_INTEL, 0, 0};
    snprintf(what, sizeof what, "CL_QUEUE_FAMILY_INTEL 0x%llx", (unsigned long long)bad[v]);
    ifam_expect_refused(env->context, env->device, props, CL_INVALID_VALUE, what);
  }
}

/* An index >= its family's count, or above 32 bits (whose low 32 bits are a valid index). */
static void test_create_index_out_of_range(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_family_properties_intel f[IFAM_COUNT];
  ifam_families(env->device, f);
  char what[128];
  for (cl_uint family = 0; family < IFAM_COUNT; family++) {
    const cl_queue_properties bad[] = {f[family].count, f[family].count + 1, 1000, 0xFFFFFFFFu,
                                       1ull << 32,      (1ull << 32) | 1,    ~0ull};
    for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
      cl_queue_properties props[] = {CL_QUEUE_FAMILY_INTEL, family, CL_QUEUE_INDEX_INTEL, bad[v], 0};
      snprintf(what, sizeof what, "family %u (count %u) index 0x%llx", family, f[family].count,
               (unsigned long long)bad[v]);
      ifam_expect_refused(env->context, env->device, props, CL_INVALID_VALUE, what);
    }
  }
}

static void test_create_property_given_twice(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_properties family_twice[] = {CL_QUEUE_FAMILY_INTEL, 0, CL_QUEUE_INDEX_INTEL, 0, CL_QUEUE_FAMILY_INTEL, 0, 0};
  cl_queue_properties index_twice[] = {CL_QUEUE_FAMILY_INTEL, 1, CL_QUEUE_INDEX_INTEL, 0, CL_QUEUE_INDEX_INTEL, 1, 0};
  ifam_expect_refused(env->context, env->device, family_twice, CL_INVALID_VALUE, "CL_QUEUE_FAMILY_INTEL twice");
  ifam_expect_refused(env->context, env->device, index_twice, CL_INVALID_VALUE, "CL_QUEUE_INDEX_INTEL twice");
}

/* CL_QUEUE_PROPERTIES bits valid for the device but not listed by the family:
 * CL_INVALID_QUEUE_PROPERTIES (the immediate family lists none). */
static void test_create_properties_the_family_does_not_list(void **state) {
  struct kiln_test_env *env = *state;
  const cl_command_queue_properties bad[] = {CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                             CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
  char what[128];
  for (size_t b = 0; b < 3; b++) {
    cl_queue_properties props[] = {
        CL_QUEUE_FAMILY_INTEL, IFAM_IMMEDIATE, CL_QUEUE_INDEX_INTEL, 0, CL_QUEUE_PROPERTIES, bad[b], 0};
    snprintf(what, sizeof what, "immediate family with CL_QUEUE_PROPERTIES 0x%llx", (unsigned long long)bad[b]);
    ifam_expect_refused(env->context, env->device, props, CL_INVALID_QUEUE_PROPERTIES, what);
  }
}

/* CL_QUEUE_RECORDABLE_QCOM is a CL_QUEUE_PROPERTIES bit the copy families do not list
 * either (accepted, it would make a queue on which nothing can be enqueued: a recordable
 * queue takes only kernels, a copy queue none). */
static void test_create_recordable_copy_queue_refused(void **state) {
  struct kiln_test_env *env = *state;
  char what[128];
  for (cl_uint family = IFAM_COPY; family <= IFAM_IMMEDIATE; family++) {
    cl_queue_properties props[] = {CL_QUEUE_FAMILY_INTEL,    family, CL_QUEUE_INDEX_INTEL, 0, CL_QUEUE_PROPERTIES,
                                   CL_QUEUE_RECORDABLE_QCOM, 0};
    snprintf(what, sizeof what, "family %u with CL_QUEUE_RECORDABLE_QCOM", family);
    ifam_expect_refused(env->context, env->device, props, CL_INVALID_QUEUE_PROPERTIES, what);
  }
}

/* The core's errors come first: an invalid context or device with a valid family. */
static void test_create_invalid_context_or_device(void **state) {
  struct kiln_test_env *env = *state;
  cl_queue_properties props[] = {CL_QUEUE_FAMILY_INTEL, IFAM_COPY, CL_QUEUE_INDEX_INTEL, 0, 0};
  struct kiln_test_fake_handle fake_context = kiln_test_fake_handle_like(env->context);
  struct kiln_test_fake_handle fake_device = kiln_test_fake_handle_like(env->device);
  cl_int err = CL_SUCCESS;
  assert_null(clCreateCommandQueueWithProperties((cl_context)&fake_context, env->device, props, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_null(clCreateCommandQueueWithProperties(env->context, (cl_device_id)&fake_device, props, &err));
  assert_int_equal(CL_INVALID_DEVICE, err);
}

/* ---- queues created without a family ---- */

/* The family a queue reports without one given: the spec requires the on-host properties
 * and the default capabilities; Kiln says the compute family, on the lanes in turn. */
static void expect_default_placement(struct kiln_test_env *env, cl_command_queue q, cl_uint *index, const char *what) {
  cl_queue_family_properties_intel f[IFAM_COUNT];
  ifam_families(env->device, f);
  cl_command_queue_properties on_host = ifam_on_host_properties(env->device);
  cl_uint family = ifam_queue_uint(q, CL_QUEUE_FAMILY_INTEL);
  *index = ifam_queue_uint(q, CL_QUEUE_INDEX_INTEL);
  if (family != IFAM_COMPUTE)
    fail_msg("%s: CL_QUEUE_FAMILY_INTEL %u, expected the compute family", what, family);
  if (f[family].properties != on_host || f[family].capabilities != CL_QUEUE_DEFAULT_CAPABILITIES_INTEL)
    fail_msg("%s: family %u is not a default family", what, family);
  if (*index >= f[family].count)
    fail_msg("%s: CL_QUEUE_INDEX_INTEL %u >= count %u", what, *index, f[family].count);
}

/* Queues of both creation APIs, without a family: the compute family, indices taken in
 * turn (each next queue the next lane), every lane used; clCreateCommandQueue's queues
 * report no property array. */
static void test_queues_without_family(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint count = ifam_family_count(env->device, IFAM_COMPUTE);
  assert_true(count >= 2); /* the machine these suites run on has 2 cores */
  enum { QUEUES = 12 };
  cl_command_queue queues[QUEUES];
  cl_uint index[QUEUES];
  bool seen[64] = {false};
  char what[96];
  cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_queue_properties arm[] = {CL_QUEUE_KERNEL_BATCHING_ARM, CL_FALSE, 0};
  for (int i = 0; i < QUEUES; i++) {
    cl_int err = CL_INVALID_VALUE;
    switch (i % 4) {
    case 0:
      queues[i] = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
      break;
    case 1:
      queues[i] = clCreateCommandQueue(env->context, env->device, 0, &err);
      break;
    case 2:
      queues[i] = clCreateCommandQueueWithProperties(env->context, env->device, ooo, &err);
      break;
    default:
      queues[i] = clCreateCommandQueue(env->context, env->device, IFAM_HOST_QUEUE_BITS, &err);
      break;
    }
    assert_cl_success(err);
    snprintf(what, sizeof what, "queue %d (creation kind %d)", i, i % 4);
    expect_default_placement(env, queues[i], &index[i], what);
    if (index[i] < 64)
      seen[index[i]] = true;
    if (i > 0 && index[i] != (index[i - 1] + 1) % count)
      fail_msg("queue %d got index %u after %u: lanes are not taken in turn (%u lanes)", i, index[i], index[i - 1],
               count);
  }
  for (cl_uint l = 0; l < count && l < 64; l++)
    if (!seen[l])
      fail_msg("no queue got lane %u", l);
  /* A queue with a family takes no turn; one with other extension properties does. */
  cl_command_queue chosen = ifam_queue(env->context, env->device, IFAM_COMPUTE, 0, 0);
  cl_command_queue after = clCreateCommandQueueWithProperties(env->context, env->device, arm, NULL);
  assert_non_null(after);
  cl_uint next = 0;
  expect_default_placement(env, after, &next, "a queue with cl_arm_scheduling_controls properties only");
  assert_int_equal((index[QUEUES - 1] + 1) % count, next);
  /* Property arrays: none for clCreateCommandQueue or a NULL list. */
  size_t size = 99;
  assert_cl_success(clGetCommandQueueInfo(queues[1], CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size));
  assert_int_equal(0, size);
  size = 99;
  assert_cl_success(clGetCommandQueueInfo(queues[0], CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size));
  assert_int_equal(0, size);
  for (int i = 0; i < QUEUES; i++)
    assert_cl_success(clReleaseCommandQueue(queues[i]));
  assert_cl_success(clReleaseCommandQueue(chosen));
  assert_cl_success(clReleaseCommandQueue(after));
}

/* clCreateCommandQueue's queues are default queues: they run kernels. */
static void test_legacy_queue_runs_kernels(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue q = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
  assert_cl_success(err);
  cl_uint index = 0;
  expect_default_placement(env, q, &index, "clCreateCommandQueue");
  expect_kernel_runs(env, q, "kernel on a clCreateCommandQueue queue");
  assert_cl_success(clReleaseCommandQueue(q));
}

/* ---- clGetCommandQueueInfo ---- */

static void test_queue_info_sizes(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = ifam_queue(env->context, env->device, IFAM_COPY, 1, CL_QUEUE_PROFILING_ENABLE);
  const cl_command_queue_info names[] = {CL_QUEUE_FAMILY_INTEL, CL_QUEUE_INDEX_INTEL};
  const cl_uint want[] = {IFAM_COPY, 1};
  for (size_t n = 0; n < 2; n++) {
    size_t size = 0;
    assert_cl_success(clGetCommandQueueInfo(q, names[n], 0, NULL, &size));
    assert_int_equal(sizeof(cl_uint), size);
    assert_cl_success(clGetCommandQueueInfo(q, names[n], 0, NULL, NULL));
    unsigned char bytes[8];
    memset(bytes, 0xEE, sizeof bytes);
    assert_int_equal(CL_INVALID_VALUE, clGetCommandQueueInfo(q, names[n], sizeof(cl_uint) - 1, bytes, NULL));
    assert_int_equal(CL_INVALID_VALUE, clGetCommandQueueInfo(q, names[n], 1, bytes, NULL));
    for (size_t i = 0; i < sizeof bytes; i++)
      assert_int_equal(0xEE, bytes[i]);
    cl_uint wide[2] = {0xAAAAAAAA, 0xBBBBBBBB};
    assert_cl_success(clGetCommandQueueInfo(q, names[n], sizeof wide, wide, &size));
    assert_int_equal(sizeof(cl_uint), size);
    assert_int_equal(want[n], wide[0]);
    assert_int_equal(0xBBBBBBBB, wide[1]);
  }
  assert_cl_success(clReleaseCommandQueue(q));
}

/* Released and foreign queues: CL_INVALID_COMMAND_QUEUE, for the queries and the enqueues. */
static void test_invalid_queues(void **state) {
  struct kiln_test_env *env = *state;
  cl_mem buffer = kiln_test_buffer(env->context, 64);
  char host[64];
  for (cl_uint family = 0; family < IFAM_COUNT; family++) {
    cl_command_queue q = ifam_queue(env->context, env->device, family, 0, 0);
    assert_cl_success(clReleaseCommandQueue(q));
    cl_uint value = 77;
    assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                     clGetCommandQueueInfo(q, CL_QUEUE_FAMILY_INTEL, sizeof value, &value, NULL));
    assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                     clGetCommandQueueInfo(q, CL_QUEUE_INDEX_INTEL, sizeof value, &value, NULL));
    assert_int_equal(77, value);
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueReadBuffer(q, buffer, CL_TRUE, 0, 64, host, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueMarkerWithWaitList(q, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFinish(q));
    assert_int_equal(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(q));
  }
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  cl_uint value = 0;
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clGetCommandQueueInfo((cl_command_queue)&fake, CL_QUEUE_FAMILY_INTEL, sizeof value, &value, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   clGetCommandQueueInfo((cl_command_queue)&fake, CL_QUEUE_INDEX_INTEL, sizeof value, &value, NULL));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* ---- with cl_arm_scheduling_controls ---- */

static void test_combined_with_arm_scheduling_controls(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint lanes = ifam_family_count(env->device, IFAM_COMPUTE);
  cl_queue_properties compute[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM,
                                   1,
                                   CL_QUEUE_FAMILY_INTEL,
                                   IFAM_COMPUTE,
                                   CL_QUEUE_KERNEL_BATCHING_ARM,
                                   CL_FALSE,
                                   CL_QUEUE_INDEX_INTEL,
                                   lanes - 1,
                                   CL_QUEUE_PROPERTIES,
                                   CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                   0};
  expect_queue(env, compute, 11, IFAM_COMPUTE, lanes - 1, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
               "compute family with scheduling controls");
  cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, compute, NULL);
  assert_non_null(q);
  expect_kernel_runs(env, q, "kernel on a compute-family queue with scheduling controls");
  assert_cl_success(clReleaseCommandQueue(q));

  cl_queue_properties copy[] = {
      CL_QUEUE_FAMILY_INTEL, IFAM_COPY, CL_QUEUE_INDEX_INTEL, 1, CL_QUEUE_DEFERRED_FLUSH_ARM, CL_TRUE, 0};
  expect_queue(env, copy, 7, IFAM_COPY, 1, 0, "copy family with deferred flush");
  q = clCreateCommandQueueWithProperties(env->context, env->device, copy, NULL);
  assert_non_null(q);
  cl_int data[16], got[16];
  for (int i = 0; i < 16; i++)
    data[i] = 1000 + i;
  cl_mem a = kiln_test_buffer(env->context, sizeof data), b = kiln_test_buffer(env->context, sizeof data);
  assert_cl_success(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, sizeof data, data, 0, NULL, NULL));
  assert_cl_success(clEnqueueCopyBuffer(q, a, b, 0, 0, sizeof data, 0, NULL, NULL));
  assert_cl_success(clFlush(q));
  assert_cl_success(clFinish(q));
  kiln_test_read(env->queue, b, sizeof got, got);
  kiln_test_expect_ints(data, got, 16, "copy on a copy-family queue with deferred flush");
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseMemObject(b));
  assert_cl_success(clReleaseCommandQueue(q));

  /* Refusals of either extension still apply with the other's properties. */
  cl_queue_properties bad_limit[] = {
      CL_QUEUE_FAMILY_INTEL, IFAM_COMPUTE, CL_QUEUE_INDEX_INTEL, 0, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 0, 0};
  cl_queue_properties bad_index[] = {
      CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, CL_QUEUE_FAMILY_INTEL, IFAM_COMPUTE, CL_QUEUE_INDEX_INTEL, lanes, 0};
  ifam_expect_refused(env->context, env->device, bad_limit, CL_INVALID_VALUE, "compute unit limit 0 with a family");
  ifam_expect_refused(env->context, env->device, bad_index, CL_INVALID_VALUE, "index out of range with a CU limit");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extension_reported),
      cmocka_unit_test(test_family_query_sizes),
      cmocka_unit_test(test_families_documented),
      cmocka_unit_test(test_families_follow_the_spec),
      cmocka_unit_test(test_create_every_family_and_index),
      cmocka_unit_test(test_create_family_and_index_both_or_neither),
      cmocka_unit_test(test_create_family_out_of_range),
      cmocka_unit_test(test_create_index_out_of_range),
      cmocka_unit_test(test_create_property_given_twice),
      cmocka_unit_test(test_create_properties_the_family_does_not_list),
      cmocka_unit_test(test_create_recordable_copy_queue_refused),
      cmocka_unit_test(test_create_invalid_context_or_device),
      cmocka_unit_test(test_queues_without_family),
      cmocka_unit_test(test_legacy_queue_runs_kernels),
      cmocka_unit_test(test_queue_info_sizes),
      cmocka_unit_test(test_invalid_queues),
      cmocka_unit_test(test_combined_with_arm_scheduling_controls),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
