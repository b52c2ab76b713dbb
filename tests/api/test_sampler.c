/* Samplers: clCreateSampler and clCreateSamplerWithProperties for every valid state (the
 * properties' defaults, CL_SAMPLER_PROPERTIES as given), clGetSamplerInfo, retain and
 * release, and the errors: invalid context, values, unknown and repeated properties,
 * released handles. */
#include "kiln_test.h"

#include <string.h>

static const cl_addressing_mode modes[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
                                           CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
static const cl_filter_mode filters[] = {CL_FILTER_NEAREST, CL_FILTER_LINEAR};

static void expect_state(cl_sampler sampler, cl_bool normalized, cl_addressing_mode mode, cl_filter_mode filter) {
  cl_bool n = 99;
  cl_addressing_mode m = 0;
  cl_filter_mode f = 0;
  size_t size = 0;
  assert_cl_success(clGetSamplerInfo(sampler, CL_SAMPLER_NORMALIZED_COORDS, sizeof n, &n, &size));
  assert_int_equal(size, sizeof n);
  assert_cl_success(clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof m, &m, &size));
  assert_int_equal(size, sizeof m);
  assert_cl_success(clGetSamplerInfo(sampler, CL_SAMPLER_FILTER_MODE, sizeof f, &f, &size));
  assert_int_equal(size, sizeof f);
  assert_int_equal(n, normalized);
  assert_int_equal(m, mode);
  assert_int_equal(f, filter);
}

/* Every combination, the repeat modes with unnormalized coordinates included (OpenCL C
 * leaves their results undefined; the combination is not an error). */
static void test_every_state(void **state) {
  struct kiln_test_env *env = *state;
  for (int n = 0; n < 2; n++)
    for (int m = 0; m < 5; m++)
      for (int f = 0; f < 2; f++) {
        cl_int err = -1;
        cl_sampler s = clCreateSampler(env->context, (cl_bool)n, modes[m], filters[f], &err);
        assert_cl_success(err);
        expect_state(s, (cl_bool)n, modes[m], filters[f]);
        size_t size = 99;
        assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &size));
        assert_int_equal(size, 0);
        assert_cl_success(clReleaseSampler(s));
        const cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE,
                                               filters[f],
                                               CL_SAMPLER_NORMALIZED_COORDS,
                                               (cl_sampler_properties)n,
                                               CL_SAMPLER_ADDRESSING_MODE,
                                               modes[m],
                                               0};
        s = clCreateSamplerWithProperties(env->context, props, &err);
        assert_cl_success(err);
        expect_state(s, (cl_bool)n, modes[m], filters[f]);
        cl_sampler_properties got[8];
        assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof got, got, &size));
        assert_int_equal(size, sizeof props);
        assert_memory_equal(got, props, sizeof props);
        assert_cl_success(clReleaseSampler(s));
      }
}

/* Properties left out take the table's defaults: normalized, CL_ADDRESS_CLAMP, nearest. */
static void test_property_defaults(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_sampler s = clCreateSamplerWithProperties(env->context, NULL, &err);
  assert_cl_success(err);
  expect_state(s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
  size_t size = 99;
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &size));
  assert_int_equal(size, 0);
  assert_cl_success(clReleaseSampler(s));
  const cl_sampler_properties empty[] = {0};
  s = clCreateSamplerWithProperties(env->context, empty, &err);
  assert_cl_success(err);
  expect_state(s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
  cl_sampler_properties got[2] = {7, 7};
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof got, got, &size));
  assert_int_equal(size, sizeof(cl_sampler_properties));
  assert_int_equal(got[0], 0);
  assert_cl_success(clReleaseSampler(s));
  const cl_sampler_properties filter_only[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
  s = clCreateSamplerWithProperties(env->context, filter_only, &err);
  assert_cl_success(err);
  expect_state(s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR);
  assert_cl_success(clReleaseSampler(s));
}

static void test_info_and_reference_count(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_sampler s = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  cl_context context = NULL;
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof context, &context, NULL));
  assert_ptr_equal(context, env->context);
  cl_uint refs = 0;
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 1);
  assert_cl_success(clRetainSampler(s));
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 2);
  assert_cl_success(clReleaseSampler(s));
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 1);
  /* sizes */
  cl_bool b;
  assert_int_equal(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof b - 1, &b, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof context - 1, &context, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetSamplerInfo(s, 0x7777, sizeof refs, &refs, NULL), CL_INVALID_VALUE);
  size_t size = 0;
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, 0, NULL, &size));
  assert_int_equal(size, sizeof(cl_addressing_mode));
  assert_cl_success(clReleaseSampler(s));
}

static cl_int create_error(cl_context context, const cl_sampler_properties *props) {
  cl_int err = CL_SUCCESS;
  assert_null(clCreateSamplerWithProperties(context, props, &err));
  return err;
}

static void test_creation_errors(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_int err = CL_SUCCESS;
  assert_null(d->clCreateSampler((cl_context)env->queue, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  assert_null(d->clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  assert_null(d->clCreateSamplerWithProperties((cl_context)env->queue, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  /* values out of their enums */
  assert_null(clCreateSampler(env->context, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  assert_null(clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP + 100, CL_FILTER_NEAREST, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  assert_null(clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR + 5, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  /* an invalid context comes first */
  assert_null(d->clCreateSampler((cl_context)env->queue, 2, 0, 0, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  /* properties: unknown names, bad values, repeated names */
  const cl_sampler_properties unknown[] = {0x7777, 1, 0};
  assert_int_equal(create_error(env->context, unknown), CL_INVALID_VALUE);
  const cl_sampler_properties bad_bool[] = {CL_SAMPLER_NORMALIZED_COORDS, 3, 0};
  assert_int_equal(create_error(env->context, bad_bool), CL_INVALID_VALUE);
  const cl_sampler_properties wide_bool[] = {CL_SAMPLER_NORMALIZED_COORDS, (cl_sampler_properties)1 << 32, 0};
  assert_int_equal(create_error(env->context, wide_bool), CL_INVALID_VALUE);
  const cl_sampler_properties bad_mode[] = {CL_SAMPLER_ADDRESSING_MODE, CL_FILTER_LINEAR, 0};
  assert_int_equal(create_error(env->context, bad_mode), CL_INVALID_VALUE);
  const cl_sampler_properties wide_mode[] = {CL_SAMPLER_ADDRESSING_MODE,
                                             ((cl_sampler_properties)1 << 32) | CL_ADDRESS_CLAMP, 0};
  assert_int_equal(create_error(env->context, wide_mode), CL_INVALID_VALUE);
  const cl_sampler_properties bad_filter[] = {CL_SAMPLER_FILTER_MODE, CL_ADDRESS_CLAMP, 0};
  assert_int_equal(create_error(env->context, bad_filter), CL_INVALID_VALUE);
  const cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, CL_SAMPLER_FILTER_MODE,
                                         CL_FILTER_LINEAR, 0};
  assert_int_equal(create_error(env->context, twice), CL_INVALID_VALUE);
  const cl_sampler_properties twice_apart[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                               CL_TRUE,
                                               CL_SAMPLER_FILTER_MODE,
                                               CL_FILTER_LINEAR,
                                               CL_SAMPLER_NORMALIZED_COORDS,
                                               CL_FALSE,
                                               0};
  assert_int_equal(create_error(env->context, twice_apart), CL_INVALID_VALUE);
  /* no error code asked for */
  assert_null(clCreateSampler(env->context, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, NULL));
}

/* A released sampler is no sampler; a sampler keeps its context alive. */
static void test_released_handles(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_int err;
  cl_sampler s = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseSampler(s));
  cl_uint refs;
  assert_int_equal(d->clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_INVALID_SAMPLER);
  assert_int_equal(d->clRetainSampler(s), CL_INVALID_SAMPLER);
  assert_int_equal(d->clReleaseSampler(s), CL_INVALID_SAMPLER);
  assert_int_equal(d->clReleaseSampler(NULL), CL_INVALID_SAMPLER);
  cl_sampler not_a_sampler = (cl_sampler)env->context;
  assert_int_equal(d->clGetSamplerInfo(not_a_sampler, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL),
                   CL_INVALID_SAMPLER);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_int_equal(clRetainSampler((cl_sampler)&fake), CL_INVALID_SAMPLER);

  cl_context ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseContext(ctx));
  cl_context got = NULL;
  assert_cl_success(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof got, &got, NULL));
  assert_ptr_equal(got, ctx);
  assert_cl_success(clReleaseSampler(s));
  assert_null(d->clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_state),
      cmocka_unit_test(test_property_defaults),
      cmocka_unit_test(test_info_and_reference_count),
      cmocka_unit_test(test_creation_errors),
      cmocka_unit_test(test_released_handles),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
