/* debug_err.h: KILN_DEBUG=err, one line per failing entry point call, for users finding
 * why a call failed (docs/user-guide.md, "Finding why a call failed"):
 *
 *   kiln-debug err clSetKernelArg CL_INVALID_ARG_SIZE: argument 0 (buf) is a buffer: arg_size 4 is not sizeof(cl_mem) (8)
 *
 * Two halves:
 * - Error sites say why: `return KILN_FAIL(CL_INVALID_ARG_SIZE, "argument %u ...", ...);`.
 *   KILN_FAIL evaluates to the code; only when err is enabled (a relaxed load, on the
 *   error path only) does it format the reason into a thread-local slot. Helpers use it
 *   too: the slot does not care which function the error was found in.
 * - The entry point's name and the final code come from wrappers (debug_err_wrappers.c,
 *   generated): when err is enabled, handles carry a dispatch table of wrappers
 *   (kiln_dispatch_err) and clGetExtensionFunctionAddress* return wrappers, so the
 *   name is the one the application called, internal calls between entry points are
 *   not reported, and nothing at all changes on any path when err is off.
 * A wrapper clears the slot before the call and prints after a failing one; the recorded
 * reason is printed only when its code is the code returned (a reason recorded for an
 * error the call then handled or translated is not shown); otherwise a generic sentence
 * for the code, marked "(no specific reason recorded)". */
#ifndef KILN_RUNTIME_DEBUG_ERR_H
#define KILN_RUNTIME_DEBUG_ERR_H

#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <stdbool.h>

#include "runtime/trace.h"

static inline bool kiln_err_enabled(void) {
  unsigned topics = atomic_load_explicit(&kiln_trace_topics, memory_order_relaxed);
  if (!(topics & KILN_TRACE_READ)) topics = kiln_trace_topics_read();
  return (topics & KILN_TRACE_ERR) != 0;
}

/* Records the reason for `code` (err enabled only). KILN_FAIL's value is `code` itself, not
 * the function's result, so that the compiler still sees the constant error code (its
 * flow analysis, e.g. of variables set only on success, stays as without the macro);
 * `code` is evaluated twice: a constant or a plain variable. */
void kiln_err_reason(cl_int code, const char *format, ...) __attribute__((format(printf, 2, 3), cold));
#define KILN_FAIL(code, ...) (kiln_err_enabled() ? (kiln_err_reason((code), __VA_ARGS__), (code)) : (code))
/* An argument that is no live handle of its type (`type` a bare type name: cl_kernel). */
#define KILN_FAIL_HANDLE(code, arg, type)                                                              \
  KILN_FAIL((code), #arg " (%p) is not a valid " #type " (NULL, released, or another kind of object)", \
            (const void *)(arg))
/* A call that translates an error into another code (e.g. CL_INVALID_EVENT_WAIT_LIST into
 * CL_INVALID_EVENT) keeps the reason recorded for the first: it now stands for `code`. */
void kiln_err_recode(cl_int code) __attribute__((cold));
#define KILN_RECODE(code) (kiln_err_enabled() ? (kiln_err_recode(code), (code)) : (code))

/* Wrappers: clear the slot; report `code` (when not CL_SUCCESS) for `entry_point`, return it. */
void kiln_err_begin(void);
cl_int kiln_err_end(const char *entry_point, cl_int code);

/* The name of an error code ("CL_INVALID_VALUE"), NULL when unknown; and a sentence for
 * it, used when no reason was recorded. */
const char *kiln_err_code_name(cl_int code);
const char *kiln_err_code_sentence(cl_int code);

/* The table handles carry when err is enabled, and the wrapper of an extension function
 * (`address` itself when it has nothing to report). */
extern const struct _cl_icd_dispatch kiln_dispatch_err;
void *kiln_err_extension_function(const char *name, void *address);
/* The table new handles carry: kiln_dispatch, or kiln_dispatch_err with err enabled. */
const struct _cl_icd_dispatch *kiln_dispatch_for_handles(void);

#endif
