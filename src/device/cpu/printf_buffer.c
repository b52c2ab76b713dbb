#include "device/cpu/printf_buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record: uint64_t batch, uint32_t text length, then the text (unaligned; memcpy). */
_Static_assert(KILN_PRINTF_RECORD_HEADER == sizeof(uint64_t) + sizeof(uint32_t), "record header layout");

static _Thread_local struct kiln_printf_target current;

void kiln_printf_buffer_init(struct kiln_printf_buffer *buffer, size_t capacity, size_t batch_count) {
  atomic_init(&buffer->data, NULL);
  buffer->capacity = capacity;
  atomic_init(&buffer->used, 0);
  atomic_init(&buffer->batches_left, batch_count);
  atomic_init(&buffer->full, false);
}

struct kiln_printf_target kiln_printf_batch_begin(struct kiln_printf_buffer *buffer, uint64_t batch) {
  struct kiln_printf_target previous = current;
  current.buffer = buffer;
  current.batch = batch;
  return previous;
}

void kiln_printf_batch_end(struct kiln_printf_buffer *buffer, struct kiln_printf_target previous) {
  current = previous;
  /* acq_rel: the last batch sees every other batch's records. */
  if (atomic_fetch_sub_explicit(&buffer->batches_left, 1, memory_order_acq_rel) == 1) kiln_printf_buffer_flush(buffer);
}

size_t kiln_printf_capacity(void) { return current.buffer ? current.buffer->capacity : 0; }

static unsigned char *buffer_data(struct kiln_printf_buffer *buffer) {
  unsigned char *data = atomic_load_explicit(&buffer->data, memory_order_acquire);
  if (data) return data;
  unsigned char *fresh = malloc(buffer->capacity);
  if (!fresh) return NULL;
  if (atomic_compare_exchange_strong_explicit(&buffer->data, &data, fresh, memory_order_acq_rel,
                                              memory_order_acquire))
    return fresh;
  free(fresh); /* another thread's allocation won */
  return data;
}

bool kiln_printf_append(const char *text, size_t length) {
  struct kiln_printf_buffer *buffer = current.buffer;
  if (!buffer) return false;
  if (atomic_load_explicit(&buffer->full, memory_order_relaxed)) return false;
  if (length == 0) return true;
  unsigned char *data = buffer_data(buffer);
  if (!data) return false;
  size_t need = KILN_PRINTF_RECORD_HEADER + length;
  size_t used = atomic_load_explicit(&buffer->used, memory_order_relaxed);
  do {
    if (need > buffer->capacity - used) {
      atomic_store_explicit(&buffer->full, true, memory_order_relaxed);
      return false;
    }
  } while (!atomic_compare_exchange_weak_explicit(&buffer->used, &used, used + need, memory_order_relaxed,
                                                  memory_order_relaxed));
  uint64_t batch = current.batch;
  uint32_t length32 = (uint32_t)length; /* length < capacity */
  memcpy(data + used, &batch, sizeof batch);
  memcpy(data + used + sizeof batch, &length32, sizeof length32);
  memcpy(data + used + KILN_PRINTF_RECORD_HEADER, text, length);
  return true;
}

struct record_ref {
  uint64_t batch;
  size_t offset;
};

static int compare_records(const void *a, const void *b) {
  const struct record_ref *x = a, *y = b;
  if (x->batch != y->batch) return x->batch < y->batch ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void record_at(const unsigned char *data, size_t offset, uint64_t *batch, uint32_t *length) {
  memcpy(batch, data + offset, sizeof *batch);
  memcpy(length, data + offset + sizeof *batch, sizeof *length);
}

static void write_record(const unsigned char *data, size_t offset) {
  uint64_t batch;
  uint32_t length;
  record_at(data, offset, &batch, &length);
  fwrite(data + offset + KILN_PRINTF_RECORD_HEADER, 1, length, stdout);
}

void kiln_printf_buffer_flush(struct kiln_printf_buffer *buffer) {
  unsigned char *data = atomic_exchange_explicit(&buffer->data, NULL, memory_order_acquire);
  if (!data) return;
  size_t used = atomic_load_explicit(&buffer->used, memory_order_relaxed);

  /* Records of one batch are in call order already; batches run concurrently, so their
   * records interleave and are sorted by batch (stable: by offset within a batch). */
  size_t count = 0;
  bool sorted = true;
  uint64_t last_batch = 0;
  for (size_t offset = 0; offset < used; count++) {
    uint64_t batch;
    uint32_t length;
    record_at(data, offset, &batch, &length);
    if (count && batch < last_batch) sorted = false;
    last_batch = batch;
    offset += KILN_PRINTF_RECORD_HEADER + length;
  }
  struct record_ref *refs = sorted ? NULL : malloc(count * sizeof *refs);
  if (refs) {
    size_t i = 0;
    for (size_t offset = 0; offset < used; i++) {
      uint32_t length;
      record_at(data, offset, &refs[i].batch, &length);
      refs[i].offset = offset;
      offset += KILN_PRINTF_RECORD_HEADER + length;
    }
    qsort(refs, count, sizeof *refs, compare_records);
  }

  /* One locked stream: another launch's output cannot come between these records. */
  flockfile(stdout);
  if (refs) {
    for (size_t i = 0; i < count; i++) write_record(data, refs[i].offset);
  } else {
    for (size_t offset = 0; offset < used;) {
      write_record(data, offset);
      uint64_t batch;
      uint32_t length;
      record_at(data, offset, &batch, &length);
      offset += KILN_PRINTF_RECORD_HEADER + length;
    }
  }
  fflush(stdout);
  funlockfile(stdout);
  free(refs);
  free(data);
}
