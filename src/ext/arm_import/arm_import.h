/* src/ext/arm_import/ — cl_arm_import_memory (+ _host, + _dma_buf where the system has
 * dma-bufs): clImportMemoryARM (import_memory.c), the page bookkeeping of unaligned host
 * imports (import_pages.c) and dma-buf mapping (import_dma_buf.c).
 *
 * An imported buffer is an ordinary core buffer whose storage is the imported range
 * (never copied, never freed by Kiln) and which is marked `imported`: the core's host
 * transfers (read, write, copy, fill, map, unmap, their rect and command-buffer forms)
 * then refuse it with CL_INVALID_OPERATION, as the extension requires; kernels,
 * sub-buffers, command buffers and recordings use it like any buffer. */
#ifndef KILN_EXT_ARM_IMPORT_H
#define KILN_EXT_ARM_IMPORT_H

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "runtime/platform.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- import_pages.c ---- */

/* The pages [first, last] an import in `context` maps; `unaligned` when the imported
 * range does not start and end on page boundaries. */
struct kiln_import_pages;

/* Claims the pages of a new import. Two imports of a context may not share a page when
 * one of them is unaligned ("if the page is already mapped by another unaligned import,
 * an error will occur"): NULL then. Released by kiln_import_pages_release. */
struct kiln_import_pages *kiln_import_pages_claim(cl_context context, const void *memory, size_t size,
                                                  bool *conflict);
void kiln_import_pages_release(struct kiln_import_pages *pages);

/* True when every page of [memory, memory + size) is mapped in the process. */
bool kiln_import_range_mapped(const void *memory, size_t size);

/* ---- import_dma_buf.c ---- */

/* True when the system offers dma-buf exporters (/dev/udmabuf or /dev/dma_heap/): only
 * then is cl_arm_import_memory_dma_buf reported and CL_IMPORT_TYPE_DMA_BUF_ARM accepted. */
bool kiln_dma_buf_supported(void);

/* Maps the dma-buf `fd` for an import of `size` bytes: CL_INVALID_VALUE when fd is not a
 * dma-buf, CL_INVALID_BUFFER_SIZE when size exceeds it, CL_INVALID_OPERATION when it
 * cannot be mapped. *read_only when the dma-buf was opened read-only (its mode takes
 * precedence over the import's flags). kiln_dma_buf_unmap undoes it. */
cl_int kiln_dma_buf_map(int fd, size_t size, void **storage, bool *read_only);
void kiln_dma_buf_unmap(void *storage, size_t size);

/* ---- import_memory.c: the descriptors (src/ext/extensions.c lists them) ---- */

extern const struct kiln_extension kiln_ext_arm_import_memory;
extern const struct kiln_extension kiln_ext_arm_import_memory_host;
extern const struct kiln_extension kiln_ext_arm_import_memory_dma_buf; /* where dma-bufs exist */

#endif
