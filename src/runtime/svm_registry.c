/* svm_registry.c: the allocations Kiln made for SVM and USM, sorted by base address in
 * one array under a reader-writer lock: lookups (every buffer created over a host pointer,
 * every USM query) outnumber allocations, and a binary search finds the one containing a
 * pointer. Each allocation holds an internal reference to its context, so the context
 * stays valid for clSVMFree however the application orders its releases. */
#include "runtime/svm.h"

#include "runtime/context.h"
#include "runtime/device.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct kiln_svm_allocation *entries; /* sorted by base */
static size_t entry_count, entry_capacity;

/* Index of the first entry whose base is above `pointer` (under the lock). */
static size_t upper_bound(const void *pointer) {
  size_t lo = 0, hi = entry_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((const char *)entries[mid].base <= (const char *)pointer) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static bool insert(const struct kiln_svm_allocation *a) {
  pthread_rwlock_wrlock(&registry_lock);
  if (entry_count == entry_capacity) {
    size_t capacity = entry_capacity ? entry_capacity * 2 : 64;
    struct kiln_svm_allocation *grown = realloc(entries, capacity * sizeof *grown);
    if (!grown) {
      pthread_rwlock_unlock(&registry_lock);
      return false;
    }
    entries = grown, entry_capacity = capacity;
  }
  size_t at = upper_bound(a->base);
  memmove(entries + at + 1, entries + at, (entry_count - at) * sizeof *entries);
  entries[at] = *a;
  entry_count++;
  pthread_rwlock_unlock(&registry_lock);
  return true;
}

void *kiln_svm_allocate(const struct kiln_svm_allocation *desc, size_t size, size_t alignment, cl_int *errcode) {
  cl_int err = CL_SUCCESS;
  if (alignment == 0) alignment = KILN_SVM_DEFAULT_ALIGNMENT;
  if (size == 0 || size > kiln_device_get()->max_mem_alloc_size) err = CL_INVALID_BUFFER_SIZE;
  else if (alignment & (alignment - 1)) err = CL_INVALID_VALUE;
  struct kiln_svm_allocation a = *desc;
  a.base = NULL, a.size = size, a.alignment = alignment;
  /* aligned_alloc wants a multiple of the alignment; at least a pointer's alignment. */
  size_t align = alignment < sizeof(void *) ? sizeof(void *) : alignment;
  if (err == CL_SUCCESS && size > SIZE_MAX - align) err = CL_INVALID_BUFFER_SIZE;
  if (err == CL_SUCCESS && !(a.base = aligned_alloc(align, (size + align - 1) & ~(align - 1))))
    err = CL_OUT_OF_HOST_MEMORY;
  if (err == CL_SUCCESS) {
    kiln_object_retain(&a.context->obj);
    if (!insert(&a)) {
      kiln_object_release(&a.context->obj);
      free(a.base);
      a.base = NULL, err = CL_OUT_OF_HOST_MEMORY;
    }
  }
  if (errcode) *errcode = err;
  return a.base;
}

bool kiln_svm_release(cl_context context, void *base, unsigned kinds) {
  pthread_rwlock_wrlock(&registry_lock);
  size_t at = upper_bound(base);
  bool found = at > 0 && entries[at - 1].base == base && entries[at - 1].context == context &&
               (entries[at - 1].kind & kinds);
  struct kiln_svm_allocation a;
  if (found) {
    a = entries[at - 1];
    memmove(entries + at - 1, entries + at, (entry_count - at) * sizeof *entries);
    entry_count--;
  }
  pthread_rwlock_unlock(&registry_lock);
  if (!found) return false;
  free(a.base);
  kiln_object_release(&a.context->obj);
  return true;
}

bool kiln_svm_lookup(const void *pointer, struct kiln_svm_allocation *out) {
  pthread_rwlock_rdlock(&registry_lock);
  size_t at = upper_bound(pointer);
  bool found = at > 0 && (const char *)pointer - entries[at - 1].base < (ptrdiff_t)entries[at - 1].size;
  if (found) *out = entries[at - 1];
  pthread_rwlock_unlock(&registry_lock);
  return found;
}

size_t kiln_svm_count(void) {
  pthread_rwlock_rdlock(&registry_lock);
  size_t count = entry_count;
  pthread_rwlock_unlock(&registry_lock);
  return count;
}
