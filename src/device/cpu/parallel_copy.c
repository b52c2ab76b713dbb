/* parallel_copy.c: the chunked copy launch (parallel_copy.h). Chunk g is work-group g of a
 * 1D range of one-item groups; the batch plan spreads them as it spreads a kernel's
 * work-groups with loops (big batches first, single chunks at the end). */
#include "device/cpu/parallel_copy.h"

#include "device/cpu/worker_pool.h"

#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* One profile for every copy: its measured cost per chunk keeps waiting threads from
 * helping with copies too long to share a core with. */
static struct kiln_kernel_profile copy_profile = {.name = "(parallel copy)"};

/* Copies with non-temporal stores where the CPU has them: the destination of a large copy
 * is not read again soon, and ordinary stores would first read every destination line
 * (half again the memory traffic) and evict the caches. glibc's memcpy makes the same
 * choice, but only above a size a 1 MiB chunk never reaches. */
static void copy_streaming(char *dst, const char *src, size_t size) {
#if defined(__x86_64__)
  size_t head = (size_t)(-(uintptr_t)dst & 15);
  if (head > size) head = size;
  memcpy(dst, src, head);
  dst += head, src += head, size -= head;
  size_t body = size & ~(size_t)63;
  for (size_t i = 0; i < body; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src + i)), b = _mm_loadu_si128((const __m128i *)(src + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32)), d = _mm_loadu_si128((const __m128i *)(src + i + 48));
    _mm_stream_si128((__m128i *)(dst + i), a);
    _mm_stream_si128((__m128i *)(dst + i + 16), b);
    _mm_stream_si128((__m128i *)(dst + i + 32), c);
    _mm_stream_si128((__m128i *)(dst + i + 48), d);
  }
  _mm_sfence(); /* streaming stores are weakly ordered: complete them before the launch ends */
  memcpy(dst + body, src + body, size - body);
#else
  memcpy(dst, src, size);
#endif
}

static int copy_chunks(const void *args, const struct kiln_ndrange *range, uint64_t first_group, uint64_t group_count,
                       void *local_mem) {
  (void)range, (void)local_mem;
  const struct kiln_parallel_copy *c = args;
  uint64_t begin = first_group * KILN_PARALLEL_COPY_CHUNK_BYTES;
  uint64_t end = (first_group + group_count) * KILN_PARALLEL_COPY_CHUNK_BYTES;
  if (end > c->size) end = c->size;
  copy_streaming(c->dst + begin, c->src + begin, end - begin);
  return 0;
}

size_t kiln_parallel_copy_launch(struct kiln_ndrange_launch *launch, const struct kiln_parallel_copy *copy,
                                 unsigned threads) {
  uint64_t chunks = (copy->size + KILN_PARALLEL_COPY_CHUNK_BYTES - 1) / KILN_PARALLEL_COPY_CHUNK_BYTES;
  memset(launch, 0, sizeof *launch);
  struct kiln_ndrange *r = &launch->range;
  r->work_dim = 1;
  for (int d = 0; d < 3; d++) r->global_size[d] = r->local_size[d] = r->num_groups[d] = 1;
  r->global_size[0] = r->num_groups[0] = chunks;
  launch->launcher = copy_chunks;
  launch->args = copy;
  launch->profile = &copy_profile;
  struct kiln_plan_request request = {
      .groups = chunks,
      .items = chunks,
      .group_items = 1,
      .threads = threads ? threads : 1,
      .long_items = true, /* a chunk is long: spread over every thread */
      .queues = kiln_worker_pool_every_worker(threads),
      .item_ns_x1024 = atomic_load_explicit(&copy_profile.ns_per_kilo_item, memory_order_relaxed),
  };
  return (size_t)kiln_batch_plan_make(&launch->plan, &request);
}
