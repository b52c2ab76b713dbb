/* image_pipeline.c: the shape of a mobile imaging pipeline. Frames arrive in a plain
 * buffer; a 2D image is created over that buffer (cl_khr_image2d_from_buffer: no copy,
 * the image is the buffer's memory); a blur kernel reads it through a constant bilinear
 * sampler (four reads at pixel corners: the [1 2 1] x [1 2 1] / 16 tent filter) and writes
 * an image, which is copied into an output buffer. Kernel and copy are recorded once in
 * a command buffer (clCommandCopyImageToBufferKHR) and replayed for every frame; the host
 * checks every pixel against its own tent filter. */
#include "demo.h"

#include <math.h>
#include <stdbool.h>

static const char *blur_source =
    "constant sampler_t corners = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
    "kernel void blur(read_only image2d_t src, write_only image2d_t dst) {\n"
    "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 c = convert_float2(p) + 0.5f;\n"
    "  float4 v = read_imagef(src, corners, c + (float2)(-0.5f, -0.5f)) + read_imagef(src, corners, c + (float2)(0.5f, -0.5f))\n"
    "           + read_imagef(src, corners, c + (float2)(-0.5f, 0.5f)) + read_imagef(src, corners, c + (float2)(0.5f, 0.5f));\n"
    "  write_imagef(dst, p, 0.25f * v);\n"
    "}\n";

enum { W = 320, H = 240, FRAMES = 3 };

static int clamp_index(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

/* The host's tent filter of channel c at (x, y), in 0..255. */
static float tent(const unsigned char *frame, size_t row_pitch, int x, int y, int c) {
  static const float w[3] = {0.25f, 0.5f, 0.25f};
  float sum = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      sum += w[dx + 1] * w[dy + 1] * frame[clamp_index(y + dy, H) * row_pitch + 4 * clamp_index(x + dx, W) + c];
  return sum;
}

size_t image_pipeline(cl_platform_id platform, cl_device_id device, cl_context context, cl_command_queue queue) {
  __typeof__(&clCreateCommandBufferKHR) create = GET_FUNCTION(platform, clCreateCommandBufferKHR);
  __typeof__(&clCommandNDRangeKernelKHR) record_kernel = GET_FUNCTION(platform, clCommandNDRangeKernelKHR);
  __typeof__(&clCommandCopyImageToBufferKHR) record_copy = GET_FUNCTION(platform, clCommandCopyImageToBufferKHR);
  __typeof__(&clFinalizeCommandBufferKHR) finalize = GET_FUNCTION(platform, clFinalizeCommandBufferKHR);
  __typeof__(&clEnqueueCommandBufferKHR) enqueue = GET_FUNCTION(platform, clEnqueueCommandBufferKHR);
  __typeof__(&clReleaseCommandBufferKHR) release = GET_FUNCTION(platform, clReleaseCommandBufferKHR);
  cl_bool images = CL_FALSE;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
  if (!images || !create || !record_kernel || !record_copy || !finalize || !enqueue || !release) {
    fprintf(stderr, "kiln_demo: images or cl_khr_command_buffer missing\n");
    return 1;
  }
  /* Rows of the frame buffer padded to the device's image pitch alignment (in pixels). */
  cl_uint pitch_pixels = 1;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch_pixels, &pitch_pixels, NULL));
  size_t row_pitch = (W + pitch_pixels - 1) / pitch_pixels * pitch_pixels * 4;

  cl_int err;
  cl_mem frames_in = clCreateBuffer(context, CL_MEM_READ_WRITE, row_pitch * H, NULL, &err);
  CHECK(err);
  cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc over_buffer = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H,
                               .image_row_pitch = row_pitch, .mem_object = frames_in};
  cl_mem src = clCreateImage(context, CL_MEM_READ_ONLY, &rgba8, &over_buffer, NULL, &err);
  CHECK(err);
  cl_image_desc plain = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
  cl_mem dst = clCreateImage(context, CL_MEM_READ_WRITE, &rgba8, &plain, NULL, &err);
  CHECK(err);
  cl_mem frames_out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, (size_t)W * H * 4, NULL, &err);
  CHECK(err);

  cl_program program = clCreateProgramWithSource(context, 1, &blur_source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel blur = clCreateKernel(program, "blur", &err);
  CHECK(err);
  CHECK(clSetKernelArg(blur, 0, sizeof src, &src));
  CHECK(clSetKernelArg(blur, 1, sizeof dst, &dst));

  cl_command_buffer_khr pipeline = create(1, &queue, NULL, &err);
  CHECK(err);
  size_t global[2] = {W, H}, origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  cl_sync_point_khr blurred;
  CHECK(record_kernel(pipeline, NULL, NULL, blur, 2, NULL, global, NULL, 0, NULL, &blurred, NULL));
  CHECK(record_copy(pipeline, NULL, NULL, dst, frames_out, origin, region, 0, 1, &blurred, NULL, NULL));
  CHECK(finalize(pipeline));

  unsigned char *frame = calloc(row_pitch, H), *result = malloc((size_t)W * H * 4);
  size_t wrong = 0;
  for (int f = 0; f < FRAMES; f++) {
    for (int y = 0; y < H; y++) /* a moving gradient with a sharp square: edges to blur */
      for (int x = 0; x < W; x++) {
        unsigned char *p = frame + y * row_pitch + 4 * x;
        bool square = x >= 40 + 30 * f && x < 120 + 30 * f && y >= 60 && y < 140;
        p[0] = (unsigned char)(x * 255 / W), p[1] = (unsigned char)(y * 255 / H);
        p[2] = square ? 255 : 0, p[3] = (unsigned char)(128 + f);
      }
    /* Written into the buffer; the kernel reads it through the image over it. */
    CHECK(clEnqueueWriteBuffer(queue, frames_in, CL_FALSE, 0, row_pitch * H, frame, 0, NULL, NULL));
    CHECK(enqueue(0, NULL, pipeline, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, frames_out, CL_TRUE, 0, (size_t)W * H * 4, result, 0, NULL, NULL));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < 4; c++)
          wrong += fabsf(result[(y * W + x) * 4 + c] - tent(frame, row_pitch, x, y, c)) > 1.0f;
  }
  printf("images: %dx%d RGBA8 frames in an image over a buffer, tent-blurred through a bilinear sampler and "
         "copied out by a command buffer, %d frames; %zu wrong values\n",
         W, H, FRAMES, wrong);
  free(frame);
  free(result);
  CHECK(release(pipeline));
  CHECK(clReleaseKernel(blur));
  CHECK(clReleaseProgram(program));
  CHECK(clReleaseMemObject(frames_out));
  CHECK(clReleaseMemObject(dst));
  CHECK(clReleaseMemObject(src));
  CHECK(clReleaseMemObject(frames_in));
  return wrong;
}
