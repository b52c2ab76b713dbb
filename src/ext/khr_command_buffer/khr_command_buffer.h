/* src/ext/khr_command_buffer/ — cl_khr_command_buffer. Not implemented yet: nothing here is
 * built or advertised until its issue is done. It will talk to the core only through
 * src/runtime/'s internal headers and hooks (see docs/architecture.md). */
#ifndef KILN_EXT_KHR_COMMAND_BUFFER_H
#define KILN_EXT_KHR_COMMAND_BUFFER_H
#endif
