/* import_pages.c: which pages host imports map, per context, and whether a range is
 * mapped in the process at all. */
#include "ext/arm_import/arm_import.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct kiln_import_pages {
  cl_context context;
  uintptr_t first, last; /* page numbers */
  bool unaligned;
  struct kiln_import_pages *next;
};

static pthread_mutex_t pages_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kiln_import_pages *live_imports;

static uintptr_t page_size(void) { return (uintptr_t)sysconf(_SC_PAGESIZE); }

struct kiln_import_pages *kiln_import_pages_claim(cl_context context, const void *memory, size_t size,
                                                  bool *conflict) {
  uintptr_t page = page_size(), start = (uintptr_t)memory, end = start + size;
  struct kiln_import_pages *pages = malloc(sizeof *pages);
  *conflict = false;
  if (!pages) return NULL;
  *pages = (struct kiln_import_pages){context, start / page, (end - 1) / page, start % page || end % page, NULL};
  pthread_mutex_lock(&pages_lock);
  for (struct kiln_import_pages *p = live_imports; p && !*conflict; p = p->next)
    *conflict = p->context == context && (p->unaligned || pages->unaligned) && p->first <= pages->last &&
                pages->first <= p->last;
  if (!*conflict) {
    pages->next = live_imports;
    live_imports = pages;
  }
  pthread_mutex_unlock(&pages_lock);
  if (*conflict) {
    free(pages);
    return NULL;
  }
  return pages;
}

void kiln_import_pages_release(struct kiln_import_pages *pages) {
  pthread_mutex_lock(&pages_lock);
  struct kiln_import_pages **link = &live_imports;
  while (*link != pages) link = &(*link)->next;
  *link = pages->next;
  pthread_mutex_unlock(&pages_lock);
  free(pages);
}

bool kiln_import_range_mapped(const void *memory, size_t size) {
  uintptr_t page = page_size(), start = (uintptr_t)memory / page * page, end = (uintptr_t)memory + size;
  /* mincore fails with ENOMEM when the range holds an unmapped page; it only reports
   * residency otherwise (pages never touched are mapped but not resident: fine). */
  unsigned char residency[1024];
  for (uintptr_t at = start; at < end; at += sizeof residency * page) {
    uintptr_t length = end - at < sizeof residency * page ? end - at : sizeof residency * page;
    if (mincore((void *)at, length, residency) != 0) return false;
  }
  return true;
}
