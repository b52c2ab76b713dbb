/* clock.c: see clock.h. */
#include "runtime/clock.h"

#include <time.h>

cl_ulong kiln_time_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}
