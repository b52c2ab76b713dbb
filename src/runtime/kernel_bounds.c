/* kernel_bounds.c: the extent table of a bounds-checked launch (kernel_abi.h,
 * device/cpu/bounds_check.h), written after the argument block's snapshot. */
#include "runtime/kernel.h"

#include "runtime/mem_object.h"
#include "runtime/svm.h"

#include <string.h>

/* An address argument (SVM, USM or any pointer a program passes): the registered allocation
 * around it, or, for an address Kiln does not know, no limit a program could reach. */
static void pointer_extent(const unsigned char *args, const struct kiln_kernel_arg_desc *arg, uint64_t entry[2]) {
  void *pointer;
  memcpy(&pointer, args + arg->offset, sizeof pointer);
  struct kiln_svm_allocation allocation;
  if (pointer && kiln_svm_lookup(pointer, &allocation)) {
    entry[0] = (uint64_t)((char *)pointer - allocation.base);
    entry[1] = allocation.size;
  } else {
    entry[0] = UINT64_MAX / 4;
    entry[1] = UINT64_MAX / 2;
  }
}

void kiln_kernel_bounds_table(cl_kernel kernel, unsigned char *args) {
  const struct kiln_kernel_desc *desc = kernel->desc;
  unsigned char *table = args + kiln_bounds_table_offset(desc->args_block_size);
  for (uint32_t i = 0; i < desc->num_args; i++) {
    uint64_t entry[2] = {0, 0}; /* below, span */
    const struct kiln_kernel_arg_value *v = &kernel->values[i];
    switch (desc->args[i].kind) {
      case KILN_ARG_GLOBAL_PTR:
      case KILN_ARG_CONSTANT_PTR:
        if (v->pointer)
          pointer_extent(args, &desc->args[i], entry);
        else if (v->mem) /* a NULL buffer has no byte to reach */
          entry[1] = v->mem->size;
        break;
      case KILN_ARG_LOCAL_PTR:
        entry[1] = v->local_bytes;
        break;
      default:
        break;
    }
    memcpy(table + 16 * (size_t)i, entry, sizeof entry);
  }
}
