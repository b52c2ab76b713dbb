/* program_binary.c: the bytes of CL_PROGRAM_BINARIES. A Kiln program binary is a small
 * header carrying what the runtime needs besides the module (the options it was built
 * with and the flags derived from them) followed by the compiler's own serialized module,
 * which checks its version and checksum itself. Foreign or corrupt bytes are rejected
 * with CL_INVALID_BINARY. */
#include "runtime/program.h"
#include "runtime/debug_err.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BINARY_MAGIC "KILNPRG"  /* 8 bytes with the NUL */
#define BINARY_VERSION 1u
#define FLAG_UNIFORM_WORK_GROUPS 1u
#define FLAG_KERNEL_ARG_INFO 2u

struct binary_header {
  char magic[8];
  uint32_t version;
  uint32_t flags;
  uint32_t options_length;   /* bytes of options after the header, no NUL */
  uint32_t reserved;
};

cl_int kiln_program_binary_encode(cl_program program, void **bytes, size_t *size) {
  void *module_bytes = NULL;
  size_t module_size = 0;
  if (!program->module || kiln_module_serialize(program->module, &module_bytes, &module_size) != KILN_COMPILE_OK)
    return KILN_FAIL(
        CL_OUT_OF_HOST_MEMORY, "rejected since (%s)",
        "!program->module || kiln_module_serialize(program->module, &module_bytes, &module_size) != KILN_COMPILE_OK");
  const char *options = program->options ? program->options : "";
  size_t options_length = strlen(options);
  struct binary_header header = {.magic = BINARY_MAGIC, .version = BINARY_VERSION,
                                 .options_length = (uint32_t)options_length};
  if (program->flags.uniform_work_groups) header.flags |= FLAG_UNIFORM_WORK_GROUPS;
  if (program->flags.kernel_arg_info) header.flags |= FLAG_KERNEL_ARG_INFO;
  size_t total = sizeof header + options_length + module_size;
  unsigned char *out = malloc(total);
  if (!out) {
    free(module_bytes);
    return CL_OUT_OF_HOST_MEMORY;
  }
  memcpy(out, &header, sizeof header);
  memcpy(out + sizeof header, options, options_length);
  memcpy(out + sizeof header + options_length, module_bytes, module_size);
  free(module_bytes);
  *bytes = out;
  *size = total;
  return CL_SUCCESS;
}

cl_int kiln_program_binary_decode(const void *bytes, size_t size, kiln_module **module, char **options,
                                  struct kiln_program_option_flags *flags) {
  struct binary_header header;
  if (size < sizeof header) return KILN_FAIL(CL_INVALID_BINARY, "rejected since (%s)", "size < sizeof header");
  memcpy(&header, bytes, sizeof header);
  if (memcmp(header.magic, BINARY_MAGIC, sizeof header.magic) != 0 || header.version != BINARY_VERSION ||
      header.reserved != 0 || (header.flags & ~(FLAG_UNIFORM_WORK_GROUPS | FLAG_KERNEL_ARG_INFO)) ||
      header.options_length > size - sizeof header)
    return CL_INVALID_BINARY;
  const char *options_bytes = (const char *)bytes + sizeof header;
  if (memchr(options_bytes, '\0', header.options_length))
    return KILN_FAIL(CL_INVALID_BINARY, "rejected since (%s)", "memchr(options_bytes, '\\0', header.options_length)");
  size_t module_offset = sizeof header + header.options_length;
  if (module_offset == size) return KILN_FAIL(CL_INVALID_BINARY, "rejected since (%s)", "module_offset == size");
  char *log = NULL;
  int status = kiln_module_deserialize((const char *)bytes + module_offset, size - module_offset, module, &log);
  free(log);
  if (status != KILN_COMPILE_OK)
    return status == KILN_COMPILE_OUT_OF_MEMORY ? CL_OUT_OF_HOST_MEMORY : CL_INVALID_BINARY;
  *options = malloc(header.options_length + 1);
  if (!*options) {
    kiln_module_free(*module);
    *module = NULL;
    return CL_OUT_OF_HOST_MEMORY;
  }
  memcpy(*options, options_bytes, header.options_length);
  (*options)[header.options_length] = '\0';
  flags->uniform_work_groups = header.flags & FLAG_UNIFORM_WORK_GROUPS;
  flags->kernel_arg_info = header.flags & FLAG_KERNEL_ARG_INFO;
  return CL_SUCCESS;
}
