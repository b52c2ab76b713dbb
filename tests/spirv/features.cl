// The OpenCL C 2.0/3.0 features whose SPIR-V capabilities the device reports (Groups,
// Float16, Pipes, DeviceEnqueue, ImageBasic, LiteralSampler), built from this source and
// from the SPIR-V clang-15 and llvm-spirv-15 make of it (test_spirv.c).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void groups(global const int *in, global int *out) {
  size_t i = get_global_id(0);
  out[4 * i] = work_group_reduce_add(in[i]);
  out[4 * i + 1] = work_group_broadcast(in[i], 3);
  out[4 * i + 2] = sub_group_reduce_max(in[i]) + (int)get_sub_group_size();
  out[4 * i + 3] = work_group_scan_inclusive_add(in[i]);
}

kernel void halves(global const half *in, global half *out, global float *f) {
  size_t i = get_global_id(0);
  half h = in[i];
  out[i] = h * (half)2.0f + (half)1.0f;
  f[i] = vload_half(i, in) + (float)h;
}

kernel void copies(global const int *in, global int *out) {
  local int tile[16];
  event_t e = async_work_group_copy(tile, in + get_group_id(0) * 16, 16, 0);
  wait_group_events(1, &e);
  out[get_global_id(0)] = tile[15 - get_local_id(0)];
}

kernel void producer(write_only pipe int p, global const int *in) { write_pipe(p, &in[get_global_id(0)]); }

kernel void consumer(read_only pipe int p, global int *out) {
  int v = -1;
  if (read_pipe(p, &v) != 0) v = -2;
  out[get_global_id(0)] = v;
}

kernel void parent(global int *out) {
  if (get_global_id(0) == 0)
    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4),
                   ^{ out[get_global_id(0)] = 7 + (int)get_global_id(0); });
}

kernel void images(read_only image2d_t src, write_only image2d_t dst, sampler_t given, global int *size) {
  int2 p = (int2)((int)get_global_id(0), (int)get_global_id(1));
  float4 v = read_imagef(src, nearest, p) + read_imagef(src, given, (float2)(p.x + 0.5f, p.y + 0.5f));
  write_imagef(dst, p, v);
  if (p.x == 0 && p.y == 0) {
    size[0] = get_image_width(src);
    size[1] = get_image_height(dst);
  }
}

// Int64Atomics, ImageReadWrite, Sampled1D, SampledBuffer (reads), Image1D, ImageBuffer (writes).
kernel void more(global long *counter, read_write image2d_t rw, read_only image1d_buffer_t buffer_image,
                 read_only image1d_t line, global float4 *out, write_only image1d_t out_line,
                 write_only image1d_buffer_t out_buffer_image) {
  int x = (int)get_global_id(0);
  atom_add(counter, (long)x << 33);
  atomic_fetch_add_explicit((volatile global atomic_long *)counter + 1, 1L, memory_order_relaxed, memory_scope_device);
  float4 v = read_imagef(rw, (int2)(x, 0));
  write_imagef(rw, (int2)(x, 0), v * 3.0f);
  out[x] = read_imagef(buffer_image, x) + read_imagef(line, nearest, x);
  write_imagef(out_line, x, out[x] + 1.0f);
  write_imagef(out_buffer_image, x, out[x] + 2.0f);
}
