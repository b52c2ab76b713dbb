/* svm.c: clSVMAlloc and clSVMFree. Kiln's one device offers every SVM capability (a CPU
 * shares the host's address space), so every valid context supports SVM and the only
 * refusals are the flag, size and alignment rules. */
#include "runtime/svm.h"

#include "runtime/context.h"

/* The SVM Memory Flags table: at most one access flag; SVM_ATOMICS only with
 * SVM_FINE_GRAIN_BUFFER; nothing else. */
static bool svm_flags_ok(cl_svm_mem_flags flags) {
  const cl_svm_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
  if (flags & ~(access | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS)) return false;
  cl_svm_mem_flags a = flags & access;
  if (a & (a - 1)) return false;
  return !(flags & CL_MEM_SVM_ATOMICS) || (flags & CL_MEM_SVM_FINE_GRAIN_BUFFER);
}

CL_API_ENTRY void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                                          cl_uint alignment) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context) || !svm_flags_ok(flags)) return NULL;
  if (!(flags & (CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY))) flags |= CL_MEM_READ_WRITE;
  struct kiln_svm_allocation desc = {.context = context, .kind = KILN_SVM_BUFFER, .flags = flags};
  return kiln_svm_allocate(&desc, size, alignment, NULL);
}

CL_API_ENTRY void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer) {
  KILN_API_CALL;
  /* NULL, or a pointer clSVMAlloc did not return in this context: no action (the spec
   * leaves the last undefined; doing nothing is the safe reading). The context is matched
   * by address only, never dereferenced: an allocation holds its context, so a context
   * the application released first still finds its allocations freed, not leaked. */
  if (!svm_pointer) return;
  kiln_svm_release(context, svm_pointer, KILN_SVM_BUFFER);
}
