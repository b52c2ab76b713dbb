/* program_enqueue.c: a program's table for device-side enqueue
 * (device/cpu/device_enqueue.h): the launcher and limits of every block kernel, which the
 * program's running kernels find by index, and its context's default device queue. Made
 * with the first kernel object once the code exists, freed with the code. */
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/program.h"

#include <stdlib.h>

static bool needs_table(const kiln_module *module) {
  for (size_t i = 0; i < kiln_module_kernel_count(module); i++) {
    const struct kiln_kernel_desc *desc = kiln_module_kernel(module, i);
    if (desc->is_block || desc->enqueues) return true;
  }
  return false;
}

cl_int kiln_program_enqueue_table_locked(cl_program program) {
  if (program->enqueue || !needs_table(program->module)) return CL_SUCCESS;
  size_t count = kiln_module_kernel_count(program->module);
  struct kiln_enqueue_program *table = calloc(1, sizeof *table);
  struct kiln_block_kernel *kernels = calloc(count, sizeof *kernels);
  if (!table || !kernels) {
    free(table);
    free(kernels);
    return CL_OUT_OF_HOST_MEMORY;
  }
  const struct kiln_device_limits *limits = kiln_device_limits();
  table->count = count;
  table->kernels = kernels;
  table->default_queue = &program->context->default_device_queue;
  table->local_mem_size = limits->local_mem_size;
  table->detailed_errors = kiln_module_has_debug_option(program->module);
  table->blocks_fit = true;
  bool uniform = program->flags.uniform_work_groups || !limits->non_uniform_work_groups;
  for (size_t i = 0; i < count; i++) {
    const struct kiln_kernel_desc *desc = kiln_module_kernel(program->module, i);
    if (!desc->is_block) continue;
    struct kiln_block_kernel *block = &kernels[i];
    block->launcher = kiln_jit_launcher(program->jit, i);
    block->desc = desc;
    block->profile.name = desc->name;
    block->profile.stack_bytes = kiln_jit_launcher_stack(program->jit, i);
    block->profile.fibers = kiln_jit_launcher_uses_fibers(program->jit, i);
    atomic_init(&block->profile.ns_per_kilo_item, 0);
    block->profile.enqueue = desc->enqueues ? table : NULL;
    block->max_work_group_size = (uint32_t)limits->max_work_group_size;
    block->preferred_multiple = (uint32_t)limits->preferred_multiple;
    for (int d = 0; d < 3; d++) block->max_work_item_sizes[d] = (uint32_t)limits->max_work_item_sizes[d];
    block->uniform_work_groups = uniform;
    if (block->profile.stack_bytes > table->stack_bytes) table->stack_bytes = block->profile.stack_bytes;
    table->blocks_fit &= kiln_kernel_profile_stack_fits(&block->profile);
  }
  program->enqueue = table;
  return CL_SUCCESS;
}

void kiln_program_enqueue_table_free(struct kiln_enqueue_program *table) {
  if (!table) return;
  free(table->kernels);
  free(table);
}
