/* src/ext/intel_queue_families/ — cl_intel_command_queue_families. Not implemented yet: nothing here is
 * built or advertised until its issue is done. It will talk to the core only through
 * src/runtime/'s internal headers and hooks (see docs/architecture.md). */
#ifndef KILN_EXT_INTEL_QUEUE_FAMILIES_H
#define KILN_EXT_INTEL_QUEUE_FAMILIES_H
#endif
