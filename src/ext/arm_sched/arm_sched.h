/* src/ext/arm_sched/ — cl_arm_scheduling_controls. Not implemented yet: nothing here is
 * built or advertised until its issue is done. It will talk to the core only through
 * src/runtime/'s internal headers and hooks (see docs/architecture.md). */
#ifndef KILN_EXT_ARM_SCHED_H
#define KILN_EXT_ARM_SCHED_H
#endif
