/* Device-side enqueue built-ins (OpenCL C §6.13.17, __opencl_c_device_enqueue) that are
 * library functions: ndrange_1D/2D/3D build the descriptor here; get_default_queue,
 * enqueue_marker and the event functions reach the host (device/cpu/device_enqueue.c),
 * where a queue_t is a struct kiln_device_queue and a clk_event_t a struct
 * kiln_device_event. enqueue_kernel and the kernel queries are not here: clang generates
 * their calls itself and the compiler rewrites them (compiler/device_enqueue.cpp). */
#include "kiln_cl.h"

/* opencl-c-base.h's, which the library is compiled without (its layout is also
 * device_enqueue.c's struct device_ndrange). */
#define MAX_WORK_DIM 3
typedef struct {
  unsigned int workDimension;
  size_t globalWorkOffset[MAX_WORK_DIM];
  size_t globalWorkSize[MAX_WORK_DIM];
  size_t localWorkSize[MAX_WORK_DIM];
} ndrange_t;
typedef int clk_profiling_info;

queue_t __kiln_default_queue(void);
int __kiln_enqueue_marker(queue_t queue, uint num_events, const clk_event_t *wait_list, clk_event_t *event_ret);
void __kiln_retain_event(clk_event_t event);
void __kiln_release_event(clk_event_t event);
clk_event_t __kiln_create_user_event(void);
int __kiln_is_valid_event(clk_event_t event);
void __kiln_set_user_event_status(clk_event_t event, int status);
void __kiln_capture_event_profiling_info(clk_event_t event, clk_profiling_info name, __global void *value);

#define OVERLOAD __attribute__((overloadable))

/* Dimensions a descriptor does not use keep size 1 and offset 0, like a host launch's;
 * a local size not given is 0 (enqueue_kernel picks one). */
static ndrange_t make_ndrange(uint dims, const size_t *offsets, const size_t *sizes, const size_t *group) {
  ndrange_t r;
  r.workDimension = dims;
  for (uint d = 0; d < MAX_WORK_DIM; d++) {
    r.globalWorkOffset[d] = d < dims && offsets ? offsets[d] : 0;
    r.globalWorkSize[d] = d < dims ? sizes[d] : 1;
    r.localWorkSize[d] = d >= dims ? 1 : group ? group[d] : 0;
  }
  return r;
}

ndrange_t OVERLOAD ndrange_1D(size_t size) { return make_ndrange(1, 0, &size, 0); }
ndrange_t OVERLOAD ndrange_1D(size_t size, size_t group) { return make_ndrange(1, 0, &size, &group); }
ndrange_t OVERLOAD ndrange_1D(size_t offset, size_t size, size_t group) {
  return make_ndrange(1, &offset, &size, &group);
}

#define NDRANGE_ND(n)                                                                                     \
  ndrange_t OVERLOAD ndrange_##n##D(const size_t sizes[n]) { return make_ndrange(n, 0, sizes, 0); }         \
  ndrange_t OVERLOAD ndrange_##n##D(const size_t sizes[n], const size_t group[n]) {                         \
    return make_ndrange(n, 0, sizes, group);                                                              \
  }                                                                                                       \
  ndrange_t OVERLOAD ndrange_##n##D(const size_t offsets[n], const size_t sizes[n], const size_t group[n]) { \
    return make_ndrange(n, offsets, sizes, group);                                                        \
  }
NDRANGE_ND(2)
NDRANGE_ND(3)

queue_t OVERLOAD get_default_queue(void) { return __kiln_default_queue(); }

int OVERLOAD enqueue_marker(queue_t queue, uint num_events, const clk_event_t *wait_list, clk_event_t *event_ret) {
  return __kiln_enqueue_marker(queue, num_events, wait_list, event_ret);
}

void OVERLOAD retain_event(clk_event_t event) { __kiln_retain_event(event); }
void OVERLOAD release_event(clk_event_t event) { __kiln_release_event(event); }
clk_event_t OVERLOAD create_user_event(void) { return __kiln_create_user_event(); }
bool OVERLOAD is_valid_event(clk_event_t event) { return __kiln_is_valid_event(event) != 0; }
void OVERLOAD set_user_event_status(clk_event_t event, int status) { __kiln_set_user_event_status(event, status); }
void OVERLOAD capture_event_profiling_info(clk_event_t event, clk_profiling_info name, __global void *value) {
  __kiln_capture_event_profiling_info(event, name, value);
}
