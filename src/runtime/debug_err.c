/* debug_err.c: see debug_err.h. The reason slot and the reporting of a failing call. */
#include "runtime/debug_err.h"

#include <stdarg.h>
#include <stdio.h>

#include "runtime/object.h"

/* Written only with err enabled (KILN_FAIL, the wrappers): success paths never touch it. */
static _Thread_local struct {
  cl_int code; /* CL_SUCCESS: no reason recorded */
  char text[384];
} reason;

void kiln_err_reason(cl_int code, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(reason.text, sizeof reason.text, format, ap);
  va_end(ap);
  reason.code = code;
}

void kiln_err_recode(cl_int code) {
  if (reason.code != CL_SUCCESS) reason.code = code;
}

void kiln_err_begin(void) { reason.code = CL_SUCCESS; }

cl_int kiln_err_end(const char *entry_point, cl_int code) {
  if (code == CL_SUCCESS) return code;
  const char *name = kiln_err_code_name(code);
  char unknown[32];
  if (!name) {
    snprintf(unknown, sizeof unknown, "error %d", (int)code);
    name = unknown;
  }
  if (reason.code == code)
    kiln_trace(KILN_TRACE_ERR, "%s %s: %s", entry_point, name, reason.text);
  else
    kiln_trace(KILN_TRACE_ERR, "%s %s: %s (no specific reason recorded)", entry_point, name,
               kiln_err_code_sentence(code));
  reason.code = CL_SUCCESS; /* never shown for a later call */
  return code;
}

const struct _cl_icd_dispatch *kiln_dispatch_for_handles(void) {
  return kiln_err_enabled() ? &kiln_dispatch_err : &kiln_dispatch;
}
