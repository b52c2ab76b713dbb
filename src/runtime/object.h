/* src/runtime/ — the core of Kiln: object model, platform, device, context, queue,
 * memory, event entry points, the command model and the scheduler.
 *
 * object.h: the header every OpenCL handle starts with, reference counting and
 * the live-object registry that turns released or foreign handles into
 * CL_INVALID_* errors instead of crashes. */
#ifndef KILN_RUNTIME_OBJECT_H
#define KILN_RUNTIME_OBJECT_H

#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef enum kiln_object_type {
  KILN_OBJECT_PLATFORM = 1,
  KILN_OBJECT_DEVICE,
  KILN_OBJECT_CONTEXT,
  KILN_OBJECT_QUEUE,
  KILN_OBJECT_MEM,
  KILN_OBJECT_SAMPLER,
  KILN_OBJECT_PROGRAM,
  KILN_OBJECT_KERNEL,
  KILN_OBJECT_EVENT,
  KILN_OBJECT_COMMAND_BUFFER,
  KILN_OBJECT_RECORDING,
  KILN_OBJECT_DEVICE_QUEUE, /* a cl_command_queue with CL_QUEUE_ON_DEVICE (queue.h) */
  KILN_OBJECT_MUTABLE_COMMAND, /* cl_mutable_command_khr: lives as long as its command buffer */
  KILN_OBJECT_TYPE_COUNT
} kiln_object_type;

struct kiln_object;
typedef void (*kiln_object_destroy_fn)(struct kiln_object *object);

/* Two counts: `api_refs` is what the clRetain and clRelease entry points see; `refs` counts every holder
 * (the API as a whole holds one, commands, events and child objects hold others).
 * When api_refs reaches zero the handle leaves the registry (so the application can no
 * longer use it) and the API's hold on `refs` is dropped; memory goes when `refs` does. */
struct kiln_object {
  const struct _cl_icd_dispatch *dispatch; /* must stay first: the ICD loader reads it */
  kiln_object_type type;
  atomic_uint api_refs;
  atomic_uint refs;
  kiln_object_destroy_fn destroy;
};

extern const struct _cl_icd_dispatch kiln_dispatch;

/* Sets the header up with api_refs = refs = 1 and registers the handle. */
void kiln_object_init(struct kiln_object *object, kiln_object_type type, kiln_object_destroy_fn destroy);
/* Sets the header up for an object the application never sees (refs = 1, api_refs = 0, not registered). */
void kiln_object_init_internal(struct kiln_object *object, kiln_object_type type, kiln_object_destroy_fn destroy);

/* True when `handle` is a live, API-visible object of `type`. Inside an entry point's call
 * (KILN_API_CALL), the object then stays allocated until the call returns, even when
 * another thread releases it meanwhile: validating a handle and then using it is no race. */
bool kiln_object_is_valid(const void *handle, kiln_object_type type);

/* The first statement of every entry point: the call's scope. Objects validated during
 * the call are held (an internal reference each) and released when it returns; nested
 * entry-point calls have scopes of their own. Threads outside any call (workers) hold
 * nothing: they only work on objects their commands hold. */
struct kiln_call_scope {
  size_t mark;
};
struct kiln_call_scope kiln_call_scope_enter(void);
void kiln_call_scope_exit(struct kiln_call_scope *scope);
#define KILN_API_CALL                                                                       \
  struct kiln_call_scope kiln_api_call_scope __attribute__((cleanup(kiln_call_scope_exit))) = \
      kiln_call_scope_enter()

void kiln_object_retain(struct kiln_object *object);          /* internal hold */
/* An internal hold unless the object is already being destroyed (refs reached 0): for
 * walking lists whose members unlink themselves in their destructor. */
bool kiln_object_try_retain(struct kiln_object *object);
void kiln_object_release(struct kiln_object *object);         /* internal hold; may destroy */
/* API retain/release; return CL_SUCCESS or `invalid_code` for a dead/foreign handle. */
cl_int kiln_object_api_retain(void *handle, kiln_object_type type, cl_int invalid_code);
cl_int kiln_object_api_release(void *handle, kiln_object_type type, cl_int invalid_code);
/* Makes an internal-only object visible to the API (events returned to the user). */
void kiln_object_publish(struct kiln_object *object);

/* Number of live registered handles (tests use it to check that everything was released). */
size_t kiln_object_registry_count(void);

#define KILN_OBJECT(handle) ((struct kiln_object *)(handle))



/* Memory for handle structs. Freed blocks are kept per type for reuse rather than given
 * back to malloc, and keep their dispatch pointer: the ICD loader reads a handle's
 * dispatch table before Kiln sees the call, so a released handle must stay readable
 * memory for Kiln to answer CL_INVALID_* instead of the loader crashing. A freed block is
 * reused only after KILN_OBJECT_QUARANTINE others of its type were freed (first freed,
 * first reused): a handle the application still uses after releasing it is not taken for
 * the next object of its type. The pool grows to the peak number of live objects of each
 * type plus the quarantine. */
#define KILN_OBJECT_QUARANTINE 256u
void *kiln_object_alloc(kiln_object_type type, size_t size);
void kiln_object_free(struct kiln_object *object);
/* Handle structs currently allocated (all types, internal ones included). */
size_t kiln_object_count_in_use(void);

#endif
