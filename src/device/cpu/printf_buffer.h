/* printf_buffer.h: the output buffer of one NDRange command whose kernel calls printf.
 *
 * Kernels format each printf call on the spot (builtins/printf_host.c) and append the text
 * as one record to the buffer of the command they run for; records never split, so the
 * output of one printf call is never interleaved with another's. When the command's last
 * batch finishes, that thread writes the records to stdout (one locked stream, then
 * fflush) — before the command's event becomes CL_COMPLETE, so the output is there when
 * clFinish / clWaitForEvents return.
 *
 * Order (implementation-defined in OpenCL C): by batch (consecutive work-groups, in linear
 * group order), and within a batch in the order the calls ran. A kernel without barriers
 * runs each work-group's work-items one after the other in linear local-id order, so its
 * output comes out in work-group, then work-item order; with barriers, work-items take
 * turns between barriers.
 *
 * Capacity: CL_DEVICE_PRINTF_BUFFER_SIZE bytes per launch, counting the text and a small
 * header per call. A call that does not fit fails (printf returns -1) and so does every
 * later call of the launch: the output is dropped, never truncated mid-call. The memory is
 * allocated at the launch's first printf call and freed when the output is written. */
#ifndef KILN_DEVICE_CPU_PRINTF_BUFFER_H
#define KILN_DEVICE_CPU_PRINTF_BUFFER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CL_DEVICE_PRINTF_BUFFER_SIZE (runtime/device_info.c reports this value). 8 MiB rather
 * than the 1 MiB minimum: a record's header makes a one-character printf cost 13 bytes,
 * and the CTS's command-buffer printf test prints some 85 000 characters one call each.
 * The memory is only touched as far as a launch prints. */
#define KILN_PRINTF_BUFFER_SIZE (8u * 1024u * 1024u)
/* Bytes a call's record takes besides its text. */
#define KILN_PRINTF_RECORD_HEADER 12u

struct kiln_printf_buffer {
  _Atomic(unsigned char *) data;   /* capacity bytes, allocated by the first call */
  size_t capacity;
  atomic_size_t used;              /* bytes of complete reservations, <= capacity */
  atomic_size_t batches_left;      /* the thread that takes it to 0 writes the output */
  atomic_bool full;                /* a call did not fit: every later one fails too */
};

/* Prepares `buffer` for a launch of `batch_count` batches (also before each re-run). */
void kiln_printf_buffer_init(struct kiln_printf_buffer *buffer, size_t capacity, size_t batch_count);

/* Around each batch of a launch that uses printf, on the thread that runs it: the kernel's
 * printf calls append to `buffer`. kiln_printf_batch_end returns the thread to its
 * previous state and, for the launch's last batch, writes the output. */
struct kiln_printf_target {
  struct kiln_printf_buffer *buffer;
  uint64_t batch;
};
struct kiln_printf_target kiln_printf_batch_begin(struct kiln_printf_buffer *buffer, uint64_t batch);
void kiln_printf_batch_end(struct kiln_printf_buffer *buffer, struct kiln_printf_target previous);

/* Appends one call's text to the calling thread's current buffer. False when there is no
 * current buffer, memory is short, or the text does not fit (the buffer is then full). */
bool kiln_printf_append(const char *text, size_t length);
/* The current buffer's capacity (0 when none): no call can produce more text. */
size_t kiln_printf_capacity(void);

/* Writes the records to stdout in order and frees the memory (the last batch does this). */
void kiln_printf_buffer_flush(struct kiln_printf_buffer *buffer);

#endif
