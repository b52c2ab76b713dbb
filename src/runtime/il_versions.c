/* il_versions.c: the device's IL version queries, from the translator's probe. */
#include "runtime/il_versions.h"

#include "device/cpu/compiler/spirv_translator.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define MAX_VERSIONS 16

static char version_string[MAX_VERSIONS * 12];
static cl_name_version versions[MAX_VERSIONS];
static size_t version_count;

static void compute(void) {
  const struct kiln_spirv_translator *translator = kiln_spirv_translator();
  if (!translator) return;
  for (unsigned minor = 0; minor <= translator->max_minor && minor < MAX_VERSIONS; minor++) {
    size_t used = strlen(version_string);
    snprintf(version_string + used, sizeof version_string - used, "%sSPIR-V_1.%u", used ? " " : "", minor);
    versions[version_count].version = CL_MAKE_VERSION(1, minor, 0);
    snprintf(versions[version_count].name, sizeof versions[version_count].name, "SPIR-V");
    version_count++;
  }
}

static void init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, compute);
}

const char *kiln_spirv_version_string(void) {
  init();
  return version_string;
}

const cl_name_version *kiln_spirv_versions(size_t *count) {
  init();
  *count = version_count;
  return versions;
}

bool kiln_il_supported(void) {
  init();
  return version_count > 0;
}
