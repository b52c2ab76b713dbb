/* Pipes (OpenCL 3.0 pipe objects, OpenCL C __opencl_c_pipes) through the loader: clCreatePipe
 * and clGetPipeInfo with every error, pipe kernel arguments, and kernels that write and read
 * pipes — the convenience forms, work-item, work-group and sub-group reservations, struct
 * packets, a full and an empty pipe, invalid reservations (CLK_NULL_RESERVE_ID among them), the
 * packet-count queries, the order packets come out in,
 * and a pipe that carries packets across several producer and consumer launches. */
#include "builtins_harness.h"

#include <CL/cl_icd.h>
#include <string.h>

static cl_mem make_pipe(struct kiln_test_env *env, cl_uint packet_size, cl_uint max_packets) {
  cl_int err;
  cl_mem pipe = clCreatePipe(env->context, 0, packet_size, max_packets, NULL, &err);
  assert_cl_success(err);
  return pipe;
}

static cl_mem make_buffer(struct kiln_test_env *env, size_t bytes, const void *init) {
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
  assert_cl_success(err);
  return mem;
}

/* Runs kernel `name` of `program` with the memory objects as arguments 0.. (by cl_mem). */
static void launch(struct kiln_test_env *env, cl_program program, const char *name, size_t global, size_t local,
                   size_t count, const cl_mem *args) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  for (size_t i = 0; i < count; i++) assert_cl_success(clSetKernelArg(kernel, (cl_uint)i, sizeof(cl_mem), &args[i]));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseKernel(kernel));
}

static void read_ints(struct kiln_test_env *env, cl_mem mem, cl_int *out, size_t count) {
  assert_cl_success(clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, count * sizeof *out, out, 0, NULL, NULL));
}

static int compare_ints(const void *a, const void *b) {
  cl_int x = *(const cl_int *)a, y = *(const cl_int *)b;
  return (x > y) - (x < y);
}

static void test_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_bool support = CL_FALSE;
  cl_uint args = 0, reservations = 0, packet = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT, sizeof support, &support, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_PIPE_ARGS, sizeof args, &args, NULL));
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, sizeof reservations, &reservations, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE, sizeof packet, &packet, NULL));
  assert_int_equal(CL_TRUE, support);
  assert_true(args >= 16 && reservations >= 1 && packet >= 1024); /* the OpenCL 2.x minimums */
}

static void test_create_and_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint max_packet = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE, sizeof max_packet, &max_packet, NULL));
  cl_int err = CL_SUCCESS;
  cl_pipe_properties properties[] = {0};
  assert_null(clCreatePipe(NULL, 0, 4, 8, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  /* Another object's handle where the context goes (through Kiln's table, as the loader would). */
  assert_null(kiln_test_dispatch_of(env->queue)->clCreatePipe((cl_context)env->queue, 0, 4, 8, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  assert_int_equal(CL_INVALID_MEM_OBJECT, kiln_test_dispatch_of(env->queue)->clGetPipeInfo(
                                              (cl_mem)env->queue, CL_PIPE_MAX_PACKETS, 0, NULL, NULL));
  assert_null(clCreatePipe(env->context, CL_MEM_READ_ONLY, 4, 8, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreatePipe(env->context, CL_MEM_COPY_HOST_PTR, 4, 8, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreatePipe(env->context, 0, 4, 8, properties, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreatePipe(env->context, 0, 0, 8, NULL, &err));
  assert_int_equal(CL_INVALID_PIPE_SIZE, err);
  assert_null(clCreatePipe(env->context, 0, max_packet + 1, 8, NULL, &err));
  assert_int_equal(CL_INVALID_PIPE_SIZE, err);
  assert_null(clCreatePipe(env->context, 0, 4, 0, NULL, &err));
  assert_int_equal(CL_INVALID_PIPE_SIZE, err);
  assert_null(clCreatePipe(env->context, 0, max_packet, 0xffffffffu, NULL, &err)); /* 2^48 bytes */
  assert_int_equal(CL_MEM_OBJECT_ALLOCATION_FAILURE, err);

  cl_mem pipe = clCreatePipe(env->context, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, max_packet, 3, NULL, NULL);
  assert_non_null(pipe);
  cl_mem defaults = make_pipe(env, 12, 1000);
  cl_uint value = 0;
  size_t size = 99;
  assert_cl_success(clGetPipeInfo(defaults, CL_PIPE_PACKET_SIZE, sizeof value, &value, &size));
  assert_int_equal(12, value);
  assert_int_equal(sizeof value, size);
  assert_cl_success(clGetPipeInfo(defaults, CL_PIPE_MAX_PACKETS, sizeof value, &value, NULL));
  assert_int_equal(1000, value);
  assert_cl_success(clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, sizeof value, &value, NULL));
  assert_int_equal(max_packet, value);
  assert_cl_success(clGetPipeInfo(defaults, CL_PIPE_PROPERTIES, 0, NULL, &size));
  assert_int_equal(0, size);
  assert_int_equal(CL_INVALID_VALUE, clGetPipeInfo(defaults, CL_PIPE_MAX_PACKETS, 2, &value, NULL));
  assert_int_equal(CL_INVALID_VALUE, clGetPipeInfo(defaults, CL_MEM_SIZE, sizeof value, &value, NULL));
  assert_int_equal(CL_INVALID_MEM_OBJECT, clGetPipeInfo(NULL, CL_PIPE_MAX_PACKETS, sizeof value, &value, NULL));
  cl_mem buffer = make_buffer(env, 64, NULL);
  assert_int_equal(CL_INVALID_MEM_OBJECT, clGetPipeInfo(buffer, CL_PIPE_MAX_PACKETS, sizeof value, &value, NULL));

  /* The common queries; flags 0 means CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS. */
  cl_mem_object_type type = 0;
  cl_mem_flags flags = 0;
  assert_cl_success(clGetMemObjectInfo(defaults, CL_MEM_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_MEM_OBJECT_PIPE, type);
  assert_cl_success(clGetMemObjectInfo(defaults, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  assert_int_equal(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, flags);
  size_t bytes = 0;
  assert_cl_success(clGetMemObjectInfo(defaults, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
  assert_true(bytes >= 12 * 1000);

  /* No buffer entry point takes a pipe. */
  char host[16];
  assert_int_equal(CL_INVALID_MEM_OBJECT, clEnqueueReadBuffer(env->queue, defaults, CL_TRUE, 0, 4, host, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(env->queue, defaults, buffer, 0, 0, 4, 0, NULL, NULL));
  cl_buffer_region region = {0, 4};
  assert_null(clCreateSubBuffer(defaults, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
  assert_int_equal(CL_INVALID_MEM_OBJECT, err);

  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseMemObject(defaults));
  assert_cl_success(clReleaseMemObject(pipe));
}

static const char *arg_source = "kernel void k(write_only pipe int p, global int *b) { write_pipe(p, b); }\n";

static void test_kernel_arguments(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, arg_source, BT_CL30 " -cl-kernel-arg-info");
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  assert_cl_success(err);
  cl_mem pipe = make_pipe(env, 4, 8), buffer = make_buffer(env, 64, NULL);
  assert_int_equal(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer));
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArg(kernel, 0, sizeof(cl_mem), NULL));
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 0, 4, &pipe));
  assert_int_equal(CL_INVALID_MEM_OBJECT, clSetKernelArg(kernel, 1, sizeof(cl_mem), &pipe));
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof(cl_mem), &pipe));

  cl_kernel_arg_type_qualifier qualifier = 0;
  cl_kernel_arg_address_qualifier address = 0;
  cl_kernel_arg_access_qualifier access = 0;
  char type_name[32];
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifier, &qualifier, NULL));
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL));
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type_name, type_name, NULL));
  assert_true(qualifier & CL_KERNEL_ARG_TYPE_PIPE);
  assert_int_equal(CL_KERNEL_ARG_ADDRESS_GLOBAL, address);
  assert_int_equal(CL_KERNEL_ARG_ACCESS_WRITE_ONLY, access);
  assert_string_equal("int", type_name);

  /* A pipe released after it was set: the enqueue refuses the kernel's arguments. */
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof(cl_mem), &buffer));
  assert_cl_success(clReleaseMemObject(pipe));
  size_t one = 1;
  assert_int_equal(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));

  /* Pipes are an OpenCL C 2.0/3.0 feature: an OpenCL C 1.2 kernel cannot declare one. */
  program = clCreateProgramWithSource(env->context, 1, &arg_source, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, "-cl-std=CL1.2", NULL, NULL));
  assert_cl_success(clReleaseProgram(program));
}

/* Producers write `value(i)` for every global id i that the pipe has room for, counting
 * successes; consumers read. Each scheme: convenience (one packet per call), work-item
 * reservations of two packets, work-group reservations of a group's packets, sub-group
 * reservations. */
static const char *transfer_source =
    "#define VALUE(i) ((int)(i) * 7 + 3)\n"
    "kernel void put(write_only pipe int p, global int *ok) {\n"
    "  size_t i = get_global_id(0);\n"
    "  ok[i] = write_pipe(p, &(int){VALUE(i)}) == 0;\n"
    "}\n"
    "kernel void get(read_only pipe int p, global int *out, global int *ok) {\n"
    "  size_t i = get_global_id(0); int v = -1;\n"
    "  ok[i] = read_pipe(p, &v) == 0; out[i] = v;\n"
    "}\n"
    "kernel void put2(write_only pipe int p, global int *ok) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = reserve_write_pipe(p, 2);\n"
    "  ok[i] = is_valid_reserve_id(r);\n"
    "  if (ok[i]) {\n"
    "    write_pipe(p, r, 1, &(int){VALUE(2 * i + 1)});\n"
    "    write_pipe(p, r, 0, &(int){VALUE(2 * i)});\n"
    "    commit_write_pipe(p, r);\n"
    "  }\n"
    "}\n"
    "kernel void get2(read_only pipe int p, global int *out, global int *ok) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = reserve_read_pipe(p, 2);\n"
    "  ok[i] = is_valid_reserve_id(r);\n"
    "  out[2 * i] = out[2 * i + 1] = -1;\n"
    "  if (ok[i]) {\n"
    "    ok[i] = read_pipe(p, r, 0, &out[2 * i]) == 0 && read_pipe(p, r, 1, &out[2 * i + 1]) == 0;\n"
    "    commit_read_pipe(p, r);\n"
    "  }\n"
    "}\n"
    "kernel void put_group(write_only pipe int p, global int *ok) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  reserve_id_t r = work_group_reserve_write_pipe(p, get_local_size(0));\n"
    "  ok[i] = is_valid_reserve_id(r);\n"
    "  if (is_valid_reserve_id(r)) write_pipe(p, r, l, &(int){VALUE(i)});\n"
    "  if (is_valid_reserve_id(r)) work_group_commit_write_pipe(p, r);\n"
    "}\n"
    "kernel void get_group(read_only pipe int p, global int *out, global int *ok) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0); int v = -1;\n"
    "  local reserve_id_t r;\n" /* as the CTS writes it: every work-item stores the same id */
    "  r = work_group_reserve_read_pipe(p, get_local_size(0));\n"
    "  ok[i] = is_valid_reserve_id(r);\n"
    "  if (is_valid_reserve_id(r)) { read_pipe(p, r, l, &v); work_group_commit_read_pipe(p, r); }\n"
    "  out[i] = v;\n"
    "}\n"
    "kernel void put_sub(write_only pipe int p, global int *ok) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = sub_group_reserve_write_pipe(p, get_sub_group_size());\n"
    "  ok[i] = is_valid_reserve_id(r);\n"
    "  if (is_valid_reserve_id(r)) {\n"
    "    write_pipe(p, r, get_sub_group_local_id(), &(int){VALUE(i)});\n"
    "    sub_group_commit_write_pipe(p, r);\n"
    "  }\n"
    "}\n"
    "kernel void get_sub(read_only pipe int p, global int *out, global int *ok) {\n"
    "  size_t i = get_global_id(0); int v = -1;\n"
    "  reserve_id_t r = sub_group_reserve_read_pipe(p, get_sub_group_size());\n"
    "  ok[i] = is_valid_reserve_id(r);\n"
    "  if (is_valid_reserve_id(r)) { read_pipe(p, r, get_sub_group_local_id(), &v); sub_group_commit_read_pipe(p, r); }\n"
    "  out[i] = v;\n"
    "}\n"
    "kernel void edges(write_only pipe int p, global int *out) {\n"
    "  reserve_id_t none = CLK_NULL_RESERVE_ID;\n"
    "  out[0] = is_valid_reserve_id(none);\n"
    "  out[1] = is_valid_reserve_id(reserve_write_pipe(p, 0));\n"
    "  out[2] = is_valid_reserve_id(reserve_write_pipe(p, get_pipe_max_packets(p) + 1));\n"
    "  reserve_id_t r = reserve_write_pipe(p, 2);\n"
    "  out[3] = is_valid_reserve_id(r);\n"
    "  write_pipe(p, r, 0, &(int){1}); write_pipe(p, r, 1, &(int){2});\n"
    "  commit_write_pipe(p, r);\n"
    "  out[4] = get_pipe_num_packets(p);\n"
    "}\n"
    "kernel void counts(write_only pipe int p, global int *out) {\n"
    "  out[0] = get_pipe_num_packets(p); out[1] = get_pipe_max_packets(p);\n"
    "}\n"
    "kernel void counts_ro(read_only pipe int p, global int *out) {\n"
    "  out[0] = get_pipe_num_packets(p); out[1] = get_pipe_max_packets(p);\n"
    "}\n";

static size_t count_ok(const cl_int *ok, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += ok[i] != 0;
  return count;
}

/* `writers` producers of `per_writer` packets each into a pipe of `capacity` packets, then
 * `readers` consumers of as many each: exactly the packets that fit arrive, each once,
 * and readers past them find the pipe empty. `group`: the local size (0: any). */
static void transfer(struct kiln_test_env *env, cl_program program, const char *put, const char *get, size_t writers,
                     size_t readers, size_t per_item, size_t group, cl_uint capacity, size_t expect_writes) {
  cl_mem pipe = make_pipe(env, sizeof(cl_int), capacity);
  size_t slots = (writers > readers ? writers : readers) * per_item;
  cl_int *ok = calloc(slots, sizeof *ok), *out = malloc(slots * sizeof *out), *got = malloc(slots * sizeof *got);
  cl_mem ok_buffer = make_buffer(env, slots * sizeof *ok, ok), out_buffer = make_buffer(env, slots * sizeof *out, NULL);
  launch(env, program, put, writers, group, 2, (cl_mem[]){pipe, ok_buffer});
  read_ints(env, ok_buffer, ok, writers);
  size_t written = count_ok(ok, writers);
  assert_int_equal(expect_writes, written * per_item);

  cl_int counts[2];
  cl_mem counts_buffer = make_buffer(env, sizeof counts, NULL);
  launch(env, program, "counts_ro", 1, 0, 2, (cl_mem[]){pipe, counts_buffer});
  read_ints(env, counts_buffer, counts, 2);
  assert_int_equal(expect_writes, counts[0]);
  assert_int_equal(capacity, counts[1]);

  launch(env, program, get, readers, group, 3, (cl_mem[]){pipe, out_buffer, ok_buffer});
  read_ints(env, ok_buffer, ok, readers);
  read_ints(env, out_buffer, out, readers * per_item);
  size_t read = count_ok(ok, readers) * per_item;
  assert_int_equal(expect_writes < readers * per_item ? expect_writes : readers * per_item, read);

  /* The multiset read equals the multiset written: the values of the writers that succeeded. */
  size_t n = 0;
  for (size_t i = 0; i < readers; i++)
    if (ok[i])
      for (size_t k = 0; k < per_item; k++) got[n++] = out[i * per_item + k];
  assert_int_equal(read, n);
  qsort(got, n, sizeof *got, compare_ints);
  for (size_t i = 1; i < n; i++) assert_true(got[i] > got[i - 1]); /* no packet twice */
  for (size_t i = 0; i < n; i++) {
    cl_int v = got[i];
    assert_true(v >= 3 && (v - 3) % 7 == 0 && (size_t)((v - 3) / 7) < writers * per_item);
  }
  launch(env, program, "counts", 1, 0, 2, (cl_mem[]){pipe, counts_buffer});
  read_ints(env, counts_buffer, counts, 2);
  assert_int_equal(expect_writes - read, counts[0]);

  assert_cl_success(clReleaseMemObject(counts_buffer));
  assert_cl_success(clReleaseMemObject(ok_buffer));
  assert_cl_success(clReleaseMemObject(out_buffer));
  assert_cl_success(clReleaseMemObject(pipe));
  free(ok);
  free(out);
  free(got);
}

/* CLK_NULL_RESERVE_ID, a reservation of no packets and one of more than the pipe holds are
 * invalid; a valid one's packets count once committed. */
static void test_invalid_reservations(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, transfer_source, BT_CL30);
  cl_mem pipe = make_pipe(env, sizeof(cl_int), 8);
  cl_int out[5] = {-1, -1, -1, -1, -1};
  cl_mem out_buffer = make_buffer(env, sizeof out, out);
  launch(env, program, "edges", 1, 0, 2, (cl_mem[]){pipe, out_buffer});
  read_ints(env, out_buffer, out, 5);
  assert_int_equal(0, out[0]);
  assert_int_equal(0, out[1]);
  assert_int_equal(0, out[2]);
  assert_int_equal(1, out[3]);
  assert_int_equal(2, out[4]);
  assert_cl_success(clReleaseMemObject(out_buffer));
  assert_cl_success(clReleaseMemObject(pipe));
  assert_cl_success(clReleaseProgram(program));
}

static void test_convenience(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, transfer_source, BT_CL30);
  transfer(env, program, "put", "get", 4096, 4096, 1, 64, 4096, 4096); /* all fit */
  transfer(env, program, "put", "get", 1000, 1200, 1, 0, 300, 300);    /* full, then empty */
  assert_cl_success(clReleaseProgram(program));
}

static void test_work_item_reservations(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, transfer_source, BT_CL30);
  transfer(env, program, "put2", "get2", 2048, 2048, 2, 32, 4096, 4096);
  transfer(env, program, "put2", "get2", 700, 800, 2, 0, 501, 500); /* an odd packet left over */
  assert_cl_success(clReleaseProgram(program));
}

static void test_work_group_reservations(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, transfer_source, BT_CL30);
  transfer(env, program, "put_group", "get_group", 1024, 1024, 1, 64, 1024, 1024);
  /* Room for 5 groups of 48 and part of a sixth: whole groups only. */
  transfer(env, program, "put_group", "get_group", 480, 480, 1, 48, 250, 240);
  assert_cl_success(clReleaseProgram(program));
}

static void test_sub_group_reservations(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, transfer_source, BT_CL30);
  transfer(env, program, "put_sub", "get_sub", 512, 512, 1, 16, 512, 512);
  assert_cl_success(clReleaseProgram(program));
}

/* Packets come out in the order they were reserved, also when a work-item commits its
 * reservations in another order; packets are whole structs of the pipe's packet size. */
static const char *order_source =
    "typedef struct { int a; short b; char c[9]; } S;\n"
    "kernel void put(write_only pipe S p, int n) {\n"
    "  for (int i = 0; i < n; i += 4) {\n"
    "    reserve_id_t first = reserve_write_pipe(p, 2), second = reserve_write_pipe(p, 2);\n"
    "    for (int k = 0; k < 4; k++) {\n"
    "      S s = {i + k, (short)(-(i + k)), {0}};\n"
    "      for (int c = 0; c < 9; c++) s.c[c] = (char)(i + k + c);\n"
    "      write_pipe(p, k < 2 ? first : second, k % 2, &s);\n"
    "    }\n"
    "    commit_write_pipe(p, second);\n"
    "    commit_write_pipe(p, first);\n"
    "  }\n"
    "}\n"
    "kernel void get(read_only pipe S p, global S *out, int n) {\n"
    "  for (int i = 0; i < n; i++) read_pipe(p, &out[i]);\n"
    "}\n";

struct packet {
  cl_int a;
  cl_short b;
  cl_char c[9];
};

static void test_order_and_structs(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, order_source, BT_CL30);
  enum { N = 400 };
  cl_mem pipe = make_pipe(env, sizeof(struct packet), 64); /* smaller than N: reused 6 times */
  cl_mem out = make_buffer(env, N * sizeof(struct packet), NULL);
  cl_int err;
  cl_kernel put = clCreateKernel(program, "put", &err), get = clCreateKernel(program, "get", &err);
  assert_cl_success(err);
  cl_int chunk = 64;
  assert_cl_success(clSetKernelArg(put, 0, sizeof pipe, &pipe));
  assert_cl_success(clSetKernelArg(put, 1, sizeof chunk, &chunk));
  assert_cl_success(clSetKernelArg(get, 0, sizeof pipe, &pipe));
  assert_cl_success(clSetKernelArg(get, 2, sizeof chunk, &chunk));
  size_t one = 1;
  for (int round = 0; round * chunk < N; round++) {
    /* Each round writes 64 packets numbered from 0 and reads them into the next slice. */
    cl_buffer_region region = {(size_t)round * chunk * sizeof(struct packet), (size_t)chunk * sizeof(struct packet)};
    if (region.origin + region.size > N * sizeof(struct packet)) break;
    cl_mem slice = clCreateSubBuffer(out, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(get, 1, sizeof slice, &slice));
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, put, 1, NULL, &one, NULL, 0, NULL, NULL));
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, get, 1, NULL, &one, NULL, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    assert_cl_success(clReleaseMemObject(slice));
  }
  struct packet *host = malloc(N * sizeof *host);
  size_t rounds = N / chunk;
  assert_cl_success(
      clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, rounds * chunk * sizeof *host, host, 0, NULL, NULL));
  for (size_t i = 0; i < rounds * (size_t)chunk; i++) {
    cl_int k = (cl_int)(i % (size_t)chunk);
    assert_int_equal(k, host[i].a);
    assert_int_equal(-k, host[i].b);
    for (int c = 0; c < 9; c++) assert_int_equal((cl_char)(k + c), host[i].c[c]);
  }
  free(host);
  assert_cl_success(clReleaseKernel(put));
  assert_cl_success(clReleaseKernel(get));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseMemObject(pipe));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_queries),         cmocka_unit_test(test_create_and_info),
      cmocka_unit_test(test_kernel_arguments),       cmocka_unit_test(test_invalid_reservations),
      cmocka_unit_test(test_convenience),
      cmocka_unit_test(test_work_item_reservations), cmocka_unit_test(test_work_group_reservations),
      cmocka_unit_test(test_sub_group_reservations), cmocka_unit_test(test_order_and_structs),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
