/* program_build.c: clBuildProgram, clCompileProgram and clLinkProgram. Each validates in
 * the caller, marks the target busy (CL_BUILD_IN_PROGRESS), then runs the compiler either
 * in the caller or, when a notification callback is given, on a thread of its own that
 * calls the callback once the result is observable. */
#include "runtime/program.h"
#include "runtime/debug_err.h"

#include "device/cpu/compiler/options.h"
#include "device/cpu/compiler/program_cache.h"
#include "device/cpu/compiler/spirv_translator.h"
#include "runtime/context.h"

#include <stdlib.h>
#include <string.h>

/* ---- option strings ---- */

/* Options are read as the compiler reads them (compiler/options.h). */
bool kiln_program_options_have(const char *options, const char *option) {
  char **tokens = options ? kiln_options_tokenize(options) : NULL;
  bool found = false;
  for (char **t = tokens; t && *t && !found; t++) found = strcmp(*t, option) == 0;
  kiln_options_tokens_free(tokens);
  return found;
}

struct kiln_program_option_flags kiln_program_parse_option_flags(const char *options) {
  bool cl2_or_later = kiln_program_options_have(options, "-cl-std=CL2.0") ||
                      kiln_program_options_have(options, "-cl-std=CL3.0");
  return (struct kiln_program_option_flags){
      .uniform_work_groups = !cl2_or_later || kiln_program_options_have(options, "-cl-uniform-work-group-size"),
      .kernel_arg_info = kiln_program_options_have(options, "-cl-kernel-arg-info"),
  };
}

/* An IL program: SPIR-V carries its arguments' descriptions (the translator's kernel_arg_*
 * metadata, names from OpName), and -cl-std does not apply: work-groups may be non-uniform
 * unless the options say otherwise. */
static struct kiln_program_option_flags il_option_flags(const char *options) {
  return (struct kiln_program_option_flags){
      .uniform_work_groups = kiln_program_options_have(options, "-cl-uniform-work-group-size"),
      .kernel_arg_info = true,
  };
}

static char *copy_string(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *copy = malloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}

void kiln_program_append_log(char **log, char *more) {
  if (!more) return;
  if (!*log || !**log) {
    free(*log);
    *log = more;
    return;
  }
  if (!*more) {
    free(more);
    return;
  }
  size_t a = strlen(*log), b = strlen(more);
  char *joined = malloc(a + b + 2);
  if (joined) {
    memcpy(joined, *log, a);
    joined[a] = '\n';
    memcpy(joined + a + 1, more, b + 1);
    free(*log);
    *log = joined;
  }
  free(more);
}

static cl_int map_status(int status, cl_int failure, cl_int invalid_options) {
  switch (status) {
  case KILN_COMPILE_OK: return CL_SUCCESS;
  case KILN_COMPILE_INVALID_OPTIONS: return invalid_options;
  case KILN_COMPILE_INVALID_BINARY: return CL_INVALID_BINARY;
  case KILN_COMPILE_OUT_OF_MEMORY: return CL_OUT_OF_HOST_MEMORY;
  default: return failure;
  }
}

/* ---- the jobs ---- */

enum build_kind { JOB_BUILD, JOB_COMPILE, JOB_LINK };

struct build_job {
  enum build_kind kind;
  cl_program program;              /* internal reference */
  char *options;                   /* as given ("" for NULL) */
  bool create_library;
  struct kiln_cl_header *headers;  /* compile: copies */
  size_t num_headers;
  cl_program *inputs;              /* link: internal references, link_readers taken */
  size_t num_inputs;
  void(CL_CALLBACK *notify)(cl_program, void *);
  void *user_data;
};

static void job_free(struct build_job *job) {
  for (size_t i = 0; i < job->num_headers; i++) {
    free((char *)job->headers[i].include_name);
    free((char *)job->headers[i].source);
  }
  free(job->headers);
  for (size_t i = 0; i < job->num_inputs; i++) {
    cl_program input = job->inputs[i];
    pthread_mutex_lock(&input->lock);
    input->link_readers--;
    pthread_mutex_unlock(&input->lock);
    kiln_object_release(&input->obj);
  }
  free(job->inputs);
  free(job->options);
  kiln_object_release(&job->program->obj);
  free(job);
}

/* A compiled object -> an executable (the object is freed); the link's log is appended. */
static int link_object(kiln_module *object, const char *options, kiln_module **out, char **log) {
  char *more_log = NULL;
  int status = kiln_compiler_link(&object, 1, options, false, out, &more_log);
  kiln_program_append_log(log, more_log);
  kiln_module_free(object);
  return status;
}

/* Source + options -> an executable module: from the compiled-code disk cache
 * (device/cpu/compiler/program_cache.h) with its machine code when it has them, else
 * compiled and linked; *store_key is then set when the result may be cached (it is, once
 * the first kernel generates the code: program_code.c). */
static int program_build_cached(const char *source, size_t length, const char *options, kiln_module **out,
                                kiln_jit_program **jit, bool *store, struct kiln_program_cache_key *store_key,
                                char **log) {
  *store = kiln_program_cache_key_for_source(source, length, options, NULL, 0, store_key);
  if (*store && kiln_program_cache_load(store_key, out, jit, log)) {
    *store = false;
    return KILN_COMPILE_OK;
  }
  kiln_module *object = NULL;
  int status = kiln_compiler_compile(source, length, options, NULL, 0, &object, log);
  return status == KILN_COMPILE_OK ? link_object(object, options, out, log) : status;
}

/* The same for a SPIR-V module (the words with its specialization constants written in). */
static int program_build_il_cached(const struct kiln_spirv_module *il, const char *options, kiln_module **out,
                                   kiln_jit_program **jit, bool *store, struct kiln_program_cache_key *store_key,
                                   char **log) {
  const struct kiln_spirv_translator *translator = kiln_spirv_translator();
  *store = translator &&
           kiln_program_cache_key_for_il(il->words, il->num_words, translator->path, options, store_key);
  if (*store && kiln_program_cache_load(store_key, out, jit, log)) {
    *store = false;
    return KILN_COMPILE_OK;
  }
  kiln_module *object = NULL;
  int status = kiln_compiler_compile_il(il, options, &object, log);
  return status == KILN_COMPILE_OK ? link_object(object, options, out, log) : status;
}

/* Snapshot of an IL program's module with the constants set so far (a concurrent
 * clSetProgramSpecializationConstant affects later builds only). */
static bool snapshot_il(cl_program program, struct kiln_spirv_module *il) {
  pthread_mutex_lock(&program->lock);
  bool ok = kiln_program_specialized_il_locked(program, il);
  pthread_mutex_unlock(&program->lock);
  return ok;
}

/* Joins the kernel names of an executable as "a;b;c". */
static char *kernel_names_of(const kiln_module *module) {
  size_t count = kiln_module_kernel_count(module), total = 1;
  for (size_t i = 0; i < count; i++) total += strlen(kiln_module_kernel(module, i)->name) + 1;
  char *names = malloc(total);
  if (!names) return NULL;
  names[0] = '\0';
  for (size_t i = 0, at = 0; i < count; i++) {
    if (kiln_module_kernel(module, i)->is_block) continue; /* enqueue_kernel's, not the API's */
    const char *name = kiln_module_kernel(module, i)->name;
    size_t n = strlen(name);
    if (at) names[at++] = ';';
    memcpy(names + at, name, n + 1);
    at += n;
  }
  return names;
}

/* Runs the job's compiler work; returns the CL status and sets the results. */
static cl_int job_execute(struct build_job *job, kiln_module **module, kiln_jit_program **jit, bool *store,
                          struct kiln_program_cache_key *store_key, char **log,
                          struct kiln_program_option_flags *flags) {
  cl_program program = job->program;
  int status;
  switch (job->kind) {
  case JOB_BUILD:
    if (program->origin == KILN_PROGRAM_FROM_SOURCE) {
      *flags = kiln_program_parse_option_flags(job->options);
      status = program_build_cached(program->source, program->source_length, job->options, module, jit, store,
                                    store_key, log);
      return map_status(status, CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS);
    }
    if (program->origin == KILN_PROGRAM_FROM_IL) {
      struct kiln_spirv_module il;
      if (!snapshot_il(program, &il)) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!snapshot_il");
      *flags = il_option_flags(job->options);
      status = program_build_il_cached(&il, job->options, module, jit, store, store_key, log);
      kiln_spirv_module_free(&il);
      return map_status(status, CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS);
    }
    /* From a binary: an executable is used as it is, an object or library is linked. The
     * module is stable: the program is busy, so nothing else replaces it. */
    *flags = program->flags;
    if (kiln_module_get_kind(program->module) == KILN_MODULE_EXECUTABLE) return CL_SUCCESS;
    status = kiln_compiler_link(&program->module, 1, job->options, false, module, log);
    return map_status(status, CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS);
  case JOB_COMPILE:
    if (program->origin == KILN_PROGRAM_FROM_IL) {
      struct kiln_spirv_module il;
      if (!snapshot_il(program, &il)) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!snapshot_il");
      *flags = il_option_flags(job->options);
      status = kiln_compiler_compile_il(&il, job->options, module, log);
      kiln_spirv_module_free(&il);
      return map_status(status, CL_COMPILE_PROGRAM_FAILURE, CL_INVALID_COMPILER_OPTIONS);
    }
    *flags = kiln_program_parse_option_flags(job->options);
    status = kiln_compiler_compile(program->source, program->source_length, job->options, job->headers,
                                   job->num_headers, module, log);
    return map_status(status, CL_COMPILE_PROGRAM_FAILURE, CL_INVALID_COMPILER_OPTIONS);
  case JOB_LINK: {
    kiln_module **inputs = malloc(job->num_inputs * sizeof *inputs);
    if (!inputs) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!inputs");
    flags->uniform_work_groups = false;
    flags->kernel_arg_info = true;
    for (size_t i = 0; i < job->num_inputs; i++) {
      inputs[i] = job->inputs[i]->module;
      flags->uniform_work_groups |= job->inputs[i]->flags.uniform_work_groups;
      flags->kernel_arg_info &= job->inputs[i]->flags.kernel_arg_info;
    }
    status = kiln_compiler_link(inputs, job->num_inputs, job->options, job->create_library, module, log);
    free(inputs);
    return map_status(status, CL_LINK_PROGRAM_FAILURE, CL_INVALID_LINKER_OPTIONS);
  }
  }
  return CL_INVALID_OPERATION;
}

/* Runs the job, publishes its result in the program, calls the callback, frees the job. */
/* The log's first line that reports an error (else its first line), copied into `out`,
 * for KILN_DEBUG=err. */
static const char *log_error_line(const char *log, char *out, size_t size) {
  if (!log || !*log) return "(empty build log)";
  const char *line = strstr(log, "error");
  if (line)
    while (line > log && line[-1] != '\n') line--;
  else
    line = log;
  size_t n = strcspn(line, "\n");
  if (n >= size) n = size - 1;
  memcpy(out, line, n);
  out[n] = '\0';
  return out;
}

static cl_int job_run(struct build_job *job) {
  cl_program program = job->program;
  kiln_module *module = NULL;
  char *log = NULL;
  struct kiln_program_option_flags flags = {0};
  kiln_jit_program *jit = NULL; /* set by a build from source served by the cache */
  bool store = false;
  struct kiln_program_cache_key store_key = {{0}};
  cl_int err = job_execute(job, &module, &jit, &store, &store_key, &log, &flags);
  if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE || err == CL_LINK_PROGRAM_FAILURE ||
      err == CL_INVALID_BUILD_OPTIONS || err == CL_INVALID_COMPILER_OPTIONS || err == CL_INVALID_LINKER_OPTIONS) {
    char line[200];
    err = KILN_FAIL(err, "%s of program %p failed; see clGetProgramBuildInfo(CL_PROGRAM_BUILD_LOG): %s",
                    job->kind == JOB_COMPILE ? "compilation"
                    : job->kind == JOB_LINK  ? "link"
                                             : "build",
                    (void *)program, log_error_line(log, line, sizeof line));
  }
  bool reuse_binary = err == CL_SUCCESS && !module; /* an executable binary built as it is */
  char *names = NULL;
  kiln_module *executable = reuse_binary ? program->module : module;
  if (err == CL_SUCCESS && kiln_module_get_kind(executable) == KILN_MODULE_EXECUTABLE) {
    /* Its machine code is generated when the first kernel is created (program_code.c). */
    names = kernel_names_of(executable);
    if (!names) {
      err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!names");
      if (jit) kiln_jit_free(jit);
      jit = NULL;
    }
  }

  kiln_module *old_module = NULL;
  kiln_jit_program *old_jit;
  struct kiln_enqueue_program *old_enqueue;
  char *old_names, *old_log, *old_options;
  pthread_mutex_lock(&program->lock);
  old_jit = program->jit;
  old_enqueue = program->enqueue; /* it points into the old code */
  program->enqueue = NULL;
  old_names = program->kernel_names;
  old_log = program->log;
  old_options = program->options;
  if (!reuse_binary && module && err == CL_SUCCESS) {
    old_module = program->module;
    program->module = module;
    module = NULL;
  } else if (err != CL_SUCCESS && program->origin != KILN_PROGRAM_FROM_BINARY) {
    /* A failed build, compile or link leaves no binary behind (a loaded binary stays). */
    old_module = program->module;
    program->module = NULL;
  }
  program->jit = jit;
  program->cache_store_pending = err == CL_SUCCESS && store;
  if (program->cache_store_pending) program->cache_key = store_key;
  program->kernel_names = names;
  program->log = log;
  program->options = job->options;
  job->options = NULL;
  program->flags = flags;
  program->build_status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  program->busy = false;
  pthread_mutex_unlock(&program->lock);
  if (module) kiln_module_free(module);
  if (old_module) kiln_module_free(old_module);
  if (old_jit) kiln_jit_free(old_jit);
  kiln_program_enqueue_table_free(old_enqueue);
  free(old_names);
  free(old_log);
  free(old_options);

  if (job->notify) job->notify(program, job->user_data);
  job_free(job);
  return err;
}

static void *job_thread(void *arg) {
  job_run(arg);
  return NULL;
}

/* Starts the job: in the caller without a callback (returning its status), else on a
 * thread of its own (CL_SUCCESS: the build began). */
static cl_int job_start(struct build_job *job) {
  if (!job->notify) return job_run(job);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int failed = pthread_create(&thread, &attr, job_thread, job);
  pthread_attr_destroy(&attr);
  if (failed) job_run(job); /* no thread: build here, the callback still runs */
  return CL_SUCCESS;
}

/* ---- validation shared by the entry points ---- */

static cl_int check_device_list(cl_uint num_devices, const cl_device_id *device_list) {
  return (device_list == NULL) != (num_devices == 0) ? CL_INVALID_VALUE : CL_SUCCESS;
}

static cl_int check_devices_in_program(cl_program program, cl_uint num_devices, const cl_device_id *device_list) {
  for (cl_uint i = 0; i < num_devices; i++)
    if (!kiln_program_has_device(program, device_list[i]))
      return KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!kiln_program_has_device(program, device_list[i])");
  return CL_SUCCESS;
}

/* Records a failure to begin (bad options) as the program's last result. A binary
 * program keeps the options of its binary: a later build without options reuses them. */
static void record_failure_locked(cl_program program, const char *options, char *log) {
  if (program->origin != KILN_PROGRAM_FROM_BINARY) {
    free(program->options);
    program->options = copy_string(options);
  }
  free(program->log);
  program->log = log;
  program->build_status = CL_BUILD_ERROR;
}

/* Takes the program for a build/compile when allowed: CL_INVALID_OPERATION while one runs,
 * kernels exist or a link reads it. Caller holds the lock. */
static cl_int check_idle_locked(cl_program program) {
  if (program->busy || program->kernel_objects || program->link_readers)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "program->busy || program->kernel_objects || program->link_readers");
  return CL_SUCCESS;
}

static struct build_job *job_new(enum build_kind kind, cl_program program, const char *options,
                                 void(CL_CALLBACK *notify)(cl_program, void *), void *user_data) {
  struct build_job *job = calloc(1, sizeof *job);
  if (!job) return NULL;
  job->options = copy_string(options);
  if (!job->options) {
    free(job);
    return NULL;
  }
  job->kind = kind;
  job->program = program;
  kiln_object_retain(&program->obj);
  job->notify = notify;
  job->user_data = user_data;
  return job;
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *device_list,
                                               const char *options,
                                               void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  cl_int err = check_device_list(num_devices, device_list);
  if (err != CL_SUCCESS) return err;
  if (!pfn_notify && user_data) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!pfn_notify && user_data");
  if ((err = check_devices_in_program(program, num_devices, device_list)) != CL_SUCCESS) return err;
  if (program->origin == KILN_PROGRAM_FROM_LINK)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "program->origin == KILN_PROGRAM_FROM_LINK");
  /* A binary program rebuilt without options keeps the options it was built with. */
  const char *effective = options;
  char *binary_options = NULL;
  struct build_job *job = NULL;
  pthread_mutex_lock(&program->lock);
  if ((err = check_idle_locked(program)) != CL_SUCCESS) goto out;
  if (program->origin == KILN_PROGRAM_FROM_BINARY) {
    if (!program->module) {
      err = KILN_FAIL(CL_INVALID_BINARY, "rejected since (%s)", "!program->module");
      goto out;
    }
    if (!options && !(effective = binary_options = copy_string(program->options))) {
      err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)",
                      "!options && !(effective = binary_options = copy_string(program->options))");
      goto out;
    }
  }
  char *log = NULL;
  if (kiln_compiler_check_options(effective, false, &log) != KILN_COMPILE_OK) {
    record_failure_locked(program, effective, log);
    err = CL_INVALID_BUILD_OPTIONS;
    goto out;
  }
  free(log);
  if ((program->origin == KILN_PROGRAM_FROM_SOURCE || program->origin == KILN_PROGRAM_FROM_IL) &&
      !kiln_program_compiler_available(program->device)) {
    err = KILN_FAIL(CL_COMPILER_NOT_AVAILABLE, "rejected since (%s)",
                    "a source or IL program and !kiln_program_compiler_available(program->device)");
    goto out;
  }
  job = job_new(JOB_BUILD, program, effective, pfn_notify, user_data);
  if (!job) {
    err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!job");
    goto out;
  }
  program->busy = true;
  program->build_status = CL_BUILD_IN_PROGRESS;
out:
  pthread_mutex_unlock(&program->lock);
  free(binary_options);
  return job ? job_start(job) : err;
}

/* Copies the embedded headers of clCompileProgram (their programs' sources). */
static cl_int copy_headers(struct build_job *job, cl_uint count, const cl_program *programs, const char **names) {
  job->headers = calloc(count ? count : 1, sizeof *job->headers);
  if (!job->headers) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!job->headers");
  for (cl_uint i = 0; i < count; i++) {
    const char *source = programs[i]->source ? programs[i]->source : "";
    char *name = copy_string(names[i]), *copy = copy_string(source);
    job->headers[i] = (struct kiln_cl_header){name, copy, copy ? strlen(copy) : 0};
    job->num_headers = i + 1;
    if (!name || !copy) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!name || !copy");
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(cl_program program, cl_uint num_devices,
                                                 const cl_device_id *device_list, const char *options,
                                                 cl_uint num_input_headers, const cl_program *input_headers,
                                                 const char **header_include_names,
                                                 void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data) {
  KILN_API_CALL;
  if (!kiln_program_is_valid(program)) return KILN_FAIL_HANDLE(CL_INVALID_PROGRAM, program, cl_program);
  cl_int err = check_device_list(num_devices, device_list);
  if (err != CL_SUCCESS) return err;
  if (num_input_headers == 0 ? (header_include_names || input_headers) : (!header_include_names || !input_headers))
    return KILN_FAIL(
        CL_INVALID_VALUE, "rejected since (%s)",
        "num_input_headers == 0 ? (header_include_names || input_headers) : (!header_include_names || !input_headers)");
  if (!pfn_notify && user_data) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!pfn_notify && user_data");
  if ((err = check_devices_in_program(program, num_devices, device_list)) != CL_SUCCESS) return err;
  for (cl_uint i = 0; i < num_input_headers; i++) {
    if (!kiln_program_is_valid(input_headers[i]))
      return KILN_FAIL(CL_INVALID_PROGRAM, "rejected since (%s)", "!kiln_program_is_valid(input_headers[i])");
    if (!header_include_names[i]) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!header_include_names[i]");
  }
  if (program->origin != KILN_PROGRAM_FROM_SOURCE && program->origin != KILN_PROGRAM_FROM_IL)
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "program->origin is neither source nor IL");

  struct build_job *job = job_new(JOB_COMPILE, program, options, pfn_notify, user_data);
  if (!job) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!job");
  if ((err = copy_headers(job, num_input_headers, input_headers, header_include_names)) != CL_SUCCESS) {
    job_free(job);
    return err;
  }
  pthread_mutex_lock(&program->lock);
  if ((err = check_idle_locked(program)) == CL_SUCCESS) {
    char *log = NULL;
    if (kiln_compiler_check_options(job->options, false, &log) != KILN_COMPILE_OK) {
      record_failure_locked(program, job->options, log);
      err = CL_INVALID_COMPILER_OPTIONS;
    } else {
      free(log);
      if (!kiln_program_compiler_available(program->device)) err = CL_COMPILER_NOT_AVAILABLE;
    }
  }
  if (err == CL_SUCCESS) {
    program->busy = true;
    program->build_status = CL_BUILD_IN_PROGRESS;
  }
  pthread_mutex_unlock(&program->lock);
  if (err != CL_SUCCESS) {
    job_free(job);
    return err;
  }
  return job_start(job);
}

/* Link options Kiln handles itself; the rest go to the compiler's check. */
static cl_int check_link_options(const char *options, bool *create_library, char **log) {
  *create_library = kiln_program_options_have(options, "-create-library");
  if (kiln_program_options_have(options, "-enable-link-options") && !*create_library)
    return KILN_FAIL(CL_INVALID_LINKER_OPTIONS, "rejected since (%s)",
                     "kiln_program_options_have(options, \"-enable-link-options\") && !*create_library");
  return kiln_compiler_check_options(options, true, log) == KILN_COMPILE_OK ? CL_SUCCESS
                                                                            : CL_INVALID_LINKER_OPTIONS;
}

/* Takes each input for reading; CL_INVALID_OPERATION when one is busy or holds no
 * compiled object or library. */
static cl_int take_inputs(struct build_job *job, cl_uint count, const cl_program *inputs) {
  job->inputs = calloc(count, sizeof *job->inputs);
  if (!job->inputs) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!job->inputs");
  for (cl_uint i = 0; i < count; i++) {
    cl_program input = inputs[i];
    pthread_mutex_lock(&input->lock);
    bool usable = !input->busy && input->module &&
                  kiln_module_get_kind(input->module) != KILN_MODULE_EXECUTABLE;
    if (usable) input->link_readers++;
    pthread_mutex_unlock(&input->lock);
    if (!usable) return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "!usable");
    kiln_object_retain(&input->obj);
    job->inputs[job->num_inputs++] = input;
  }
  return CL_SUCCESS;
}

static cl_program link_fail(cl_int *errcode_ret, cl_int err) {
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

CL_API_ENTRY cl_program CL_API_CALL clLinkProgram(cl_context context, cl_uint num_devices,
                                                  const cl_device_id *device_list, const char *options,
                                                  cl_uint num_input_programs, const cl_program *input_programs,
                                                  void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data,
                                                  cl_int *errcode_ret) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context))
    return link_fail(errcode_ret, KILN_FAIL_HANDLE(CL_INVALID_CONTEXT, context, cl_context));
  if ((device_list == NULL) != (num_devices == 0))
    return link_fail(errcode_ret,
                     KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "(device_list == NULL) != (num_devices == 0)"));
  if (num_input_programs == 0 || !input_programs)
    return link_fail(errcode_ret,
                     KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "num_input_programs == 0 || !input_programs"));
  for (cl_uint i = 0; i < num_input_programs; i++)
    if (!kiln_program_is_valid(input_programs[i]))
      return link_fail(errcode_ret, KILN_FAIL(CL_INVALID_PROGRAM, "rejected since (%s)",
                                              "!kiln_program_is_valid(input_programs[i])"));
  if (!pfn_notify && user_data)
    return link_fail(errcode_ret, KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!pfn_notify && user_data"));
  for (cl_uint i = 0; i < num_devices; i++) {
    bool found = false;
    for (cl_uint j = 0; j < context->num_devices && !found; j++) found = context->devices[j] == device_list[i];
    if (!found) return link_fail(errcode_ret, KILN_FAIL(CL_INVALID_DEVICE, "rejected since (%s)", "!found"));
  }
  for (cl_uint i = 0; i < num_input_programs; i++)
    if (input_programs[i]->context != context)
      return link_fail(errcode_ret,
                       KILN_FAIL(CL_INVALID_CONTEXT, "rejected since (%s)", "input_programs[i]->context != context"));
  bool create_library;
  char *log = NULL;
  cl_int err = check_link_options(options, &create_library, &log);
  free(log);
  if (err != CL_SUCCESS) return link_fail(errcode_ret, err);
  if (!kiln_program_linker_available(context->device))
    return link_fail(errcode_ret, KILN_FAIL(CL_LINKER_NOT_AVAILABLE, "rejected since (%s)",
                                            "!kiln_program_linker_available(context->device)"));

  cl_program program = kiln_program_create(context, KILN_PROGRAM_FROM_LINK, num_devices, device_list, &err);
  if (!program) return link_fail(errcode_ret, err);
  kiln_program_publish(program);
  struct build_job *job = job_new(JOB_LINK, program, options, pfn_notify, user_data);
  if (!job) err = CL_OUT_OF_HOST_MEMORY;
  else err = take_inputs(job, num_input_programs, input_programs);
  if (err != CL_SUCCESS) {
    if (job) job_free(job);
    clReleaseProgram(program);
    return link_fail(errcode_ret, err);
  }
  job->create_library = create_library;
  pthread_mutex_lock(&program->lock); /* readers of a recycled handle lock too */
  program->busy = true;
  program->build_status = CL_BUILD_IN_PROGRESS;
  pthread_mutex_unlock(&program->lock);
  /* The program is returned even when the link fails (its log says why). */
  err = job_start(job);
  if (errcode_ret) *errcode_ret = err;
  return program;
}
