/* cl_arm_import_memory with images. The extension's imports are "compatible with all other
 * uses of cl_mem ..., including creating images from the resulting cl_mem": a 2D image and
 * a 1D image buffer over an import read the application's memory in a kernel. And the
 * image calls of its list — clEnqueueReadImage, WriteImage, MapImage, CopyImage,
 * FillImage, CopyImageToBuffer, CopyBufferToImage, UnmapMemObject — refuse such an image,
 * and an import as their buffer operand, with CL_INVALID_OPERATION, as do their
 * cl_khr_command_buffer forms; the imported memory stays as it was. */
#include "khr_command_buffer_test.h"

#include "arm_import_test.h"

static const char *source =
    "kernel void sum_rows(read_only image2d_t im, global uint *out) {\n"
    "  int y = get_global_id(0);\n"
    "  uint s = 0;\n"
    "  for (int x = 0; x < get_image_width(im); x++) s += read_imageui(im, (int2)(x, y)).x;\n"
    "  out[y] = s;\n"
    "}\n"
    "kernel void first(read_only image1d_buffer_t im, global uint4 *out) { out[0] = read_imageui(im, 0); }\n";

static cl_program program;

static int setup(void **state) {
  kiln_test_program_setup(state, aim_setup, &program, source, NULL);
  struct kiln_test_env *env = *state;
  kcb_load(env->platform);
  return 0;
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* RGBA UNSIGNED_INT8 images over `memory` (one page): 2D of 16-pixel rows, and 1D buffer. */
enum { WIDTH = 16 };
static cl_mem image_over(cl_context context, cl_mem buffer, cl_mem_object_type type, size_t page) {
  cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc d = {.image_type = type, .image_width = type == CL_MEM_OBJECT_IMAGE2D ? WIDTH : page / 4,
                     .image_height = type == CL_MEM_OBJECT_IMAGE2D ? page / (4 * WIDTH) : 1, .mem_object = buffer};
  cl_int err;
  cl_mem im = clCreateImage(context, CL_MEM_READ_WRITE, &f, &d, NULL, &err);
  assert_cl_success(err);
  return im;
}

static void test_kernels_read_images_over_imports(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page(), rows = page / (4 * WIDTH);
  unsigned char *memory = aim_map_pages(1);
  for (size_t i = 0; i < page; i++) memory[i] = (unsigned char)(i / 4 % 251);
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, memory, page);
  cl_mem im2 = image_over(env->context, imp, CL_MEM_OBJECT_IMAGE2D, page);
  cl_mem im1 = image_over(env->context, imp, CL_MEM_OBJECT_IMAGE1D_BUFFER, page);
  cl_mem out = kcb_buffer(env->context, rows * sizeof(cl_uint));
  cl_kernel k = kcb_kernel(program, "sum_rows");
  kcb_arg_mem(k, 0, im2);
  kcb_arg_mem(k, 1, out);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &rows, NULL, 0, NULL, NULL));
  cl_uint *sums = malloc(rows * sizeof *sums);
  kcb_read(env->queue, out, rows * sizeof *sums, sums);
  for (size_t y = 0; y < rows; y++) {
    cl_uint want = 0;
    for (size_t x = 0; x < WIDTH; x++) want += memory[(y * WIDTH + x) * 4];
    assert_int_equal(want, sums[y]);
  }
  /* Written by the host after the images were made: seen through them (no copy). */
  memory[0] = 200, memory[1] = 201, memory[2] = 202, memory[3] = 203;
  cl_kernel k1 = kcb_kernel(program, "first");
  kcb_arg_mem(k1, 0, im1);
  kcb_arg_mem(k1, 1, out);
  size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k1, 1, NULL, &one, NULL, 0, NULL, NULL));
  cl_uint first[4];
  kcb_read(env->queue, out, sizeof first, first);
  for (int c = 0; c < 4; c++) assert_int_equal(200 + c, first[c]);
  free(sums);
  assert_cl_success(clReleaseKernel(k1));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseMemObject(im1));
  assert_cl_success(clReleaseMemObject(im2));
  assert_cl_success(clReleaseMemObject(imp));
  aim_unmap_pages(memory, 1);
}

static void test_image_calls_refused(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  size_t page = aim_page();
  unsigned char *memory = aim_map_pages(1);
  memset(memory, 0x22, page);
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, memory, page);
  cl_mem ord = kcb_buffer(env->context, page);
  cl_mem ord_image = image_over(env->context, ord, CL_MEM_OBJECT_IMAGE2D, page);
  cl_mem views[] = {image_over(env->context, imp, CL_MEM_OBJECT_IMAGE2D, page),
                    image_over(env->context, imp, CL_MEM_OBJECT_IMAGE1D_BUFFER, page)};
  const char *names[] = {"a 2D image over an import", "a 1D image buffer over an import"};
  cl_command_buffer_khr cb = kcb_create(q, 0);
  unsigned char host[256];
  memset(host, 0x33, sizeof host);
  const size_t zero[3] = {0, 0, 0}, region[3] = {4, 1, 1};
  const cl_uint4 color = {{1, 2, 3, 4}};
  for (size_t v = 0; v < 2; v++) {
    cl_mem x = views[v];
    const char *n = names[v];
    cl_event ev = NULL;
    cl_int err;
    for (cl_bool blocking = CL_FALSE; blocking <= CL_TRUE; blocking++) {
      err = clEnqueueReadImage(q, x, blocking, zero, region, 0, 0, host, 0, NULL, &ev);
      aim_expect_refused(err, ev, "clEnqueueReadImage", n);
      err = clEnqueueWriteImage(q, x, blocking, zero, region, 0, 0, host, 0, NULL, &ev);
      aim_expect_refused(err, ev, "clEnqueueWriteImage", n);
      size_t row_pitch = 0, slice_pitch = 0;
      void *mapped = clEnqueueMapImage(q, x, blocking, CL_MAP_READ, zero, region, &row_pitch, &slice_pitch, 0, NULL,
                                       &ev, &err);
      assert_null(mapped);
      aim_expect_refused(err, ev, "clEnqueueMapImage", n);
    }
    err = clEnqueueCopyImage(q, x, ord_image, zero, zero, region, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyImage (source)", n);
    err = clEnqueueCopyImage(q, ord_image, x, zero, zero, region, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyImage (destination)", n);
    err = clEnqueueFillImage(q, x, &color, zero, region, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueFillImage", n);
    err = clEnqueueCopyImageToBuffer(q, x, ord, zero, region, 0, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyImageToBuffer", n);
    err = clEnqueueCopyBufferToImage(q, ord, x, 0, zero, region, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyBufferToImage", n);
    err = clEnqueueUnmapMemObject(q, x, memory, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueUnmapMemObject", n);
    err = kcb.clCommandCopyImageKHR(cb, NULL, NULL, x, ord_image, zero, zero, region, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyImageKHR (source)", n);
    err = kcb.clCommandCopyImageKHR(cb, NULL, NULL, ord_image, x, zero, zero, region, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyImageKHR (destination)", n);
    err = kcb.clCommandFillImageKHR(cb, NULL, NULL, x, &color, zero, region, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandFillImageKHR", n);
    err = kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, x, ord, zero, region, 0, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyImageToBufferKHR", n);
    err = kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, ord, x, 0, zero, region, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyBufferToImageKHR", n);
  }
  /* The import as the buffer operand of an ordinary image's copies. */
  cl_event ev = NULL;
  cl_int err = clEnqueueCopyImageToBuffer(q, ord_image, imp, zero, region, 0, 0, NULL, &ev);
  aim_expect_refused(err, ev, "clEnqueueCopyImageToBuffer", "an imported buffer");
  err = clEnqueueCopyBufferToImage(q, imp, ord_image, 0, zero, region, 0, NULL, &ev);
  aim_expect_refused(err, ev, "clEnqueueCopyBufferToImage", "an imported buffer");
  err = kcb.clCommandCopyImageToBufferKHR(cb, NULL, NULL, ord_image, imp, zero, region, 0, 0, NULL, NULL, NULL);
  aim_expect_refused(err, NULL, "clCommandCopyImageToBufferKHR", "an imported buffer");
  err = kcb.clCommandCopyBufferToImageKHR(cb, NULL, NULL, imp, ord_image, 0, zero, region, 0, NULL, NULL, NULL);
  aim_expect_refused(err, NULL, "clCommandCopyBufferToImageKHR", "an imported buffer");
  assert_cl_success(clFinish(q));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(cb));
  aim_expect_bytes(memory, page, 0x22, "the imported memory after refused image calls");
  aim_expect_bytes(host, sizeof host, 0x33, "the host array after refused reads");
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  for (size_t v = 0; v < 2; v++) assert_cl_success(clReleaseMemObject(views[v]));
  assert_cl_success(clReleaseMemObject(ord_image));
  assert_cl_success(clReleaseMemObject(ord));
  assert_cl_success(clReleaseMemObject(imp));
  aim_unmap_pages(memory, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernels_read_images_over_imports),
      cmocka_unit_test(test_image_calls_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
