/* mem_map.c: clEnqueueMapBuffer and clEnqueueUnmapMemObject, and the map command that
 * clEnqueueMapImage (image_map.c) shares. Storage is host memory, so a map hands out a
 * pointer into it at once (the data is current once the map command completes) and
 * neither command moves data. Each object keeps a list of its live mappings so that
 * unmap can reject pointers it never handed out. */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

#include <stdlib.h>

static cl_int run_nothing(struct kiln_command *command) {
  (void)command;
  return CL_SUCCESS;
}

#define MAP_WRITES (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)

bool kiln_mem_map_flags_ok(cl_map_flags flags) {
  if (flags & ~(cl_map_flags)(CL_MAP_READ | MAP_WRITES)) return false;
  return !((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)));
}

bool kiln_mem_map_access_ok(cl_mem mem, cl_map_flags flags) {
  if ((flags & CL_MAP_READ) && !kiln_mem_host_can_read(mem)) return false;
  if ((flags & MAP_WRITES) && !kiln_mem_host_can_write(mem)) return false;
  return true;
}

static bool intervals_meet(size_t a, size_t a_size, size_t b, size_t b_size) {
  return a < b + b_size && b < a + a_size;
}

/* Whether two mappings of `mem` share an element: byte ranges for buffers, boxes for images
 * (two column strips of one image share no element though their byte ranges interleave). */
static bool mappings_overlap(cl_mem mem, const struct kiln_mem_mapping *a, const struct kiln_mem_mapping *b) {
  if (!mem->image) return intervals_meet(a->offset, a->size, b->offset, b->size);
  for (int d = 0; d < 3; d++)
    if (!intervals_meet(a->origin[d], a->region[d], b->origin[d], b->region[d])) return false;
  return true;
}

/* Caller holds mem->lock. */
static bool overlaps_write_mapping(cl_mem mem, const struct kiln_mem_mapping *mapping) {
  for (struct kiln_mem_mapping *m = mem->mappings; m; m = m->next)
    if ((m->flags & MAP_WRITES) && mappings_overlap(mem, m, mapping)) return true;
  return false;
}

/* Records the mapping (map count + list); CL_INVALID_OPERATION when a write mapping
 * would overlap another live write mapping. */
static cl_int mapping_add(cl_mem mem, struct kiln_mem_mapping *mapping) {
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&mem->lock);
  if ((mapping->flags & MAP_WRITES) && overlaps_write_mapping(mem, mapping)) {
    err = KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                    "(mapping->flags & MAP_WRITES) && overlaps_write_mapping(mem, mapping)");
  } else {
    mapping->next = mem->mappings;
    mem->mappings = mapping;
    mem->map_count++;
  }
  pthread_mutex_unlock(&mem->lock);
  return err;
}

/* Unlinks the live mapping `ptr` (the newest with that address); NULL when none. */
static struct kiln_mem_mapping *mapping_take(cl_mem mem, const void *ptr) {
  pthread_mutex_lock(&mem->lock);
  struct kiln_mem_mapping **link = &mem->mappings, *found = NULL;
  for (; *link; link = &(*link)->next) {
    if ((*link)->ptr == ptr) {
      found = *link;
      *link = found->next;
      mem->map_count--;
      break;
    }
  }
  pthread_mutex_unlock(&mem->lock);
  return found;
}

static bool mapping_exists(cl_mem mem, const void *ptr) {
  pthread_mutex_lock(&mem->lock);
  bool found = false;
  for (struct kiln_mem_mapping *m = mem->mappings; m && !found; m = m->next) found = m->ptr == ptr;
  pthread_mutex_unlock(&mem->lock);
  return found;
}

cl_int kiln_mem_map_submit(cl_command_queue queue, cl_mem mem, cl_command_type type, struct kiln_mem_mapping *mapping,
                           cl_bool blocking, cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  cl_int err;
  void *ptr = mapping->ptr;
  struct kiln_command *command = kiln_command_create(queue, type, run_nothing, &err);
  if (!command) {
    free(mapping);
    return err;
  }
  if ((err = mapping_add(mem, mapping)) != CL_SUCCESS) {
    free(mapping);
    kiln_command_discard(command);
    return err;
  }
  kiln_command_hold(command, &mem->obj);
  err = kiln_command_submit(command, num_events, wait_list, event, blocking);
  /* A blocking map whose dependencies failed maps nothing. */
  if (err != CL_SUCCESS) free(mapping_take(mem, ptr));
  return err;
}

static void *map_buffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags map_flags,
                        size_t offset, size_t size, cl_uint num_events, const cl_event *wait_list, cl_event *event,
                        cl_int *err) {
  if (!kiln_queue_is_valid(queue)) {
    *err = KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
    return NULL;
  }
  if ((*err = kiln_mem_check_queue_buffer(queue, buffer)) != CL_SUCCESS) return NULL;
  if ((*err = kiln_mem_check_host_transfer(buffer)) != CL_SUCCESS) return NULL;
  if (size == 0 || !kiln_mem_range_ok(buffer, offset, size) || !kiln_mem_map_flags_ok(map_flags)) {
    *err = KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "size == 0 || !kiln_mem_range_ok(buffer, offset, size) || !kiln_mem_map_flags_ok(map_flags)");
    return NULL;
  }
  if (!kiln_mem_map_access_ok(buffer, map_flags)) {
    *err = KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "!kiln_mem_map_access_ok(buffer, map_flags)");
    return NULL;
  }
  if ((*err = kiln_command_check_enqueue(queue, CL_COMMAND_MAP_BUFFER, num_events, wait_list, event)) != CL_SUCCESS)
    return NULL;
  if ((*err = kiln_mem_check_alignment(buffer)) != CL_SUCCESS) return NULL;

  struct kiln_mem_mapping *mapping = malloc(sizeof *mapping);
  if (!mapping) {
    *err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!mapping");
    return NULL;
  }
  *mapping = (struct kiln_mem_mapping){.ptr = buffer->storage + offset, .offset = offset, .size = size,
                                       .flags = map_flags};
  void *ptr = mapping->ptr;
  *err = kiln_mem_map_submit(queue, buffer, CL_COMMAND_MAP_BUFFER, mapping, blocking, num_events, wait_list, event);
  return *err == CL_SUCCESS ? ptr : NULL;
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking_map,
                                                  cl_map_flags map_flags, size_t offset, size_t size,
                                                  cl_uint num_events, const cl_event *wait_list, cl_event *event,
                                                  cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err;
  void *ptr = map_buffer(queue, buffer, blocking_map, map_flags, offset, size, num_events, wait_list, event, &err);
  if (errcode_ret) *errcode_ret = err;
  return ptr;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj, void *mapped_ptr,
                                                        cl_uint num_events, const cl_event *wait_list,
                                                        cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (!kiln_mem_is_valid(memobj)) return KILN_FAIL_HANDLE(CL_INVALID_MEM_OBJECT, memobj, cl_mem);
  if (memobj->context != kiln_queue_context(queue))
    return KILN_FAIL(CL_INVALID_CONTEXT, "rejected since (%s)", "memobj->context != kiln_queue_context(queue)");
  cl_int err = kiln_mem_check_host_transfer(memobj);
  if (err != CL_SUCCESS) return err;
  if (!mapped_ptr || !mapping_exists(memobj, mapped_ptr))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!mapped_ptr || !mapping_exists(memobj, mapped_ptr)");
  if ((err = kiln_command_check_enqueue(queue, CL_COMMAND_UNMAP_MEM_OBJECT, num_events, wait_list, event)) !=
      CL_SUCCESS)
    return err;
  struct kiln_command *command = kiln_command_create(queue, CL_COMMAND_UNMAP_MEM_OBJECT, run_nothing, &err);
  if (!command) return err;
  struct kiln_mem_mapping *mapping = mapping_take(memobj, mapped_ptr);
  if (!mapping) { /* another thread unmapped it in between */
    kiln_command_discard(command);
    return CL_INVALID_VALUE;
  }
  free(mapping);
  kiln_command_hold(command, &memobj->obj);
  return kiln_command_submit(command, num_events, wait_list, event, CL_FALSE);
}
