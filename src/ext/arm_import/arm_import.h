/* src/ext/arm_import/ — cl_arm_import_memory. Not implemented yet: nothing here is
 * built or advertised until its issue is done. It will talk to the core only through
 * src/runtime/'s internal headers and hooks (see docs/architecture.md). */
#ifndef KILN_EXT_ARM_IMPORT_H
#define KILN_EXT_ARM_IMPORT_H
#endif
