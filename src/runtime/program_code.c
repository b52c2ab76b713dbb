/* program_code.c: an executable's machine code is generated when the first kernel is
 * created from it, not by clBuildProgram / clLinkProgram (PoCL, too, generates code at the
 * first launch). A build runs clang, links the program's own objects and checks that
 * everything it calls exists, so every build error is still reported by the build; what
 * waits for the first kernel is linking the builtin library, optimization and code
 * generation (most of the time of a build), which programs that are only built, queried
 * or turned into binaries never need. A build served by the disk cache has its code. */
#include "runtime/program.h"

#include <stdlib.h>
#include <string.h>

cl_int kiln_program_load_code_locked(cl_program program) {
  if (program->jit) return CL_SUCCESS;
  char *log = NULL;
  int status = kiln_jit_load(program->module, &program->jit, &log);
  if (status == KILN_COMPILE_OK) {
    free(log);
    if (program->cache_store_pending)
      kiln_program_cache_store(&program->cache_key, program->module, program->jit, program->log ? program->log : "");
    program->cache_store_pending = false;
    return CL_SUCCESS;
  }
  program->jit = NULL;
  kiln_program_append_log(&program->log, log);
  return status == KILN_COMPILE_OUT_OF_MEMORY ? CL_OUT_OF_HOST_MEMORY : CL_OUT_OF_RESOURCES;
}
