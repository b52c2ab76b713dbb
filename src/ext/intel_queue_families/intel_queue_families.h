/* src/ext/intel_queue_families/ — cl_intel_command_queue_families (1.0.0): the families
 * and their query, CL_QUEUE_FAMILY_INTEL / CL_QUEUE_INDEX_INTEL on queues
 * (queue_families.c), and the capability rules every enqueue is checked against
 * (family_rules.c, one table of commands and capabilities).
 *
 * Each family is an execution resource of the CPU device (runtime/queue.h's
 * kiln_queue_placement; docs/intel-command-queue-families.md):
 *   0 "compute": default capabilities; index i = submission lane i of the worker pool;
 *   1 "copy": transfers, fills, maps, markers, barriers and events; index i = copy
 *     engine thread i (device/cpu/copy_engine.h), so that transfers overlap kernels;
 *   2 "immediate copy": the same commands without events, run by the enqueueing thread
 *     before the call returns. */
#ifndef KILN_EXT_INTEL_QUEUE_FAMILIES_H
#define KILN_EXT_INTEL_QUEUE_FAMILIES_H

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "runtime/command.h"

#include <stdbool.h>

/* ---- family_rules.c: the extension's rules as functions of capabilities ---- */

/* CL_INVALID_OPERATION when a queue with capabilities `caps` may not run the enqueue call
 * identified by `type` (a command type or a KILN_ENQUEUE_* identity). */
cl_int kiln_family_check_command(cl_command_queue_capabilities_intel caps, cl_command_type type);

/* One wait-list event of an enqueue on a queue with capabilities `caps`: `same_queue`
 * when it belongs to that queue; `event_queue_caps` are those of its queue when it has
 * one (`has_queue`; user events have none). CL_INVALID_EVENT_WAIT_LIST when not allowed. */
cl_int kiln_family_check_wait_event(cl_command_queue_capabilities_intel caps, bool same_queue, bool has_queue,
                                    cl_command_queue_capabilities_intel event_queue_caps);

/* A non-empty wait list on such a queue: CL_INVALID_EVENT_WAIT_LIST when not allowed. */
cl_int kiln_family_check_wait_list(cl_command_queue_capabilities_intel caps);

/* An event requested from an enqueue on such a queue: CL_INVALID_EVENT when not allowed. */
cl_int kiln_family_check_event_request(cl_command_queue_capabilities_intel caps);

/* ---- queue_families.c ---- */

/* The extension's descriptor (device query CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, queue
 * properties and queries, enqueue check; src/ext/extensions.c lists it). */
extern const struct kiln_extension kiln_ext_intel_command_queue_families;

#endif
