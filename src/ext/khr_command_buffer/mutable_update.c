/* mutable_update.c: clUpdateMutableCommandsKHR. Every config is checked and applied, in
 * array order, to its command's dispatch: arguments and exec info to the dispatch's kernel
 * clone, whose state is saved first (once per command however many configs name it), the
 * geometry to a copy. Every named command is rebuilt through the core's NDRange path, and
 * only then is anything switched: the copies' geometry replaces the handles', and a new
 * version, sharing every command not named, replaces the command buffer's. A config that
 * fails restores the clones: everything is as it was. */
#include "ext/khr_command_buffer/khr_command_buffer.h"
#include "runtime/debug_err.h"

#include "runtime/kernel.h"

#include <stdlib.h>
#include <string.h>

/* One command the update names, and what it becomes. */
struct kiln_pending_update {
  cl_mutable_command_khr command;
  struct kiln_recorded_dispatch next; /* the command's clone (changed in place), the new geometry */
  struct kiln_recorded_dispatch_saved saved;
  struct kiln_command *rebuilt;
};

struct update {
  cl_command_buffer_khr command_buffer;
  struct kiln_pending_update *pending; /* one per distinct command, at most one per config */
  size_t count;
};

/* What this update does to `command`, begun on first use (the clone's state saved). The
 * command points at its entry meanwhile (updates of a command buffer hold its lock). */
static cl_int pending_of(struct update *u, cl_mutable_command_khr command, struct kiln_pending_update **found) {
  if (command->pending) {
    *found = command->pending;
    return CL_SUCCESS;
  }
  struct kiln_pending_update *p = &u->pending[u->count];
  *p = (struct kiln_pending_update){.command = command, .next = command->dispatch};
  cl_int err = kiln_recorded_dispatch_save(&p->next, &p->saved);
  if (err != CL_SUCCESS) return KILN_FAIL(err, "no memory to save the dispatch's arguments");
  u->count++;
  command->pending = p;
  *found = p;
  return CL_SUCCESS;
}

/* The checks of one config that need no kernel: the spec's list for
 * cl_mutable_dispatch_config_khr. */
static cl_int check_config(const struct update *u, const cl_mutable_dispatch_config_khr *config) {
  cl_mutable_command_khr command = config->command;
  if (!kiln_mutable_command_is_valid(command))
    return KILN_FAIL_HANDLE(CL_INVALID_MUTABLE_COMMAND_KHR, command, cl_mutable_command_khr);
  if (command->command_buffer != u->command_buffer)
    return KILN_FAIL(CL_INVALID_MUTABLE_COMMAND_KHR, "the mutable command belongs to another command buffer");
  if ((config->arg_list == NULL) != (config->num_args == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "arg_list is %s but num_args is %u", config->arg_list ? "set" : "NULL",
                     config->num_args);
  if ((config->arg_svm_list == NULL) != (config->num_svm_args == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "arg_svm_list is %s but num_svm_args is %u",
                     config->arg_svm_list ? "set" : "NULL", config->num_svm_args);
  if ((config->exec_info_list == NULL) != (config->num_exec_infos == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "exec_info_list is %s but num_exec_infos is %u",
                     config->exec_info_list ? "set" : "NULL", config->num_exec_infos);
  if (config->work_dim != 0 && config->work_dim != command->dispatch.work_dim)
    return KILN_FAIL(CL_INVALID_OPERATION, "work_dim %u differs from the recorded %u", config->work_dim,
                     command->dispatch.work_dim);
  cl_mutable_dispatch_fields_khr fields = command->updatable;
  if (config->global_work_offset && !(fields & CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command was recorded without CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR");
  if (config->global_work_size && !(fields & CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command was recorded without CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR");
  if (config->local_work_size && !(fields & CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command was recorded without CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR");
  if ((config->num_args || config->num_svm_args) && !(fields & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command was recorded without CL_MUTABLE_DISPATCH_ARGUMENTS_KHR");
  if (config->num_exec_infos && !(fields & CL_MUTABLE_DISPATCH_EXEC_INFO_KHR))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command was recorded without CL_MUTABLE_DISPATCH_EXEC_INFO_KHR");
  return CL_SUCCESS;
}

/* Applies one checked config to its command's copy: arguments, SVM arguments and exec
 * info through the kernel entry points (their errors), then the geometry. */
static cl_int apply_config(struct update *u, const cl_mutable_dispatch_config_khr *config) {
  struct kiln_pending_update *p;
  cl_int err = pending_of(u, config->command, &p);
  if (err != CL_SUCCESS) return err;
  cl_kernel kernel = p->next.kernel;
  for (cl_uint i = 0; i < config->num_args; i++) {
    const cl_mutable_dispatch_arg_khr *arg = &config->arg_list[i];
    if ((err = kiln_kernel_set_arg(kernel, arg->arg_index, arg->arg_size, arg->arg_value)) != CL_SUCCESS) return err;
  }
  for (cl_uint i = 0; i < config->num_svm_args; i++) { /* arg_size is ignored */
    const cl_mutable_dispatch_arg_khr *arg = &config->arg_svm_list[i];
    if ((err = kiln_kernel_set_arg_pointer(kernel, arg->arg_index, arg->arg_value)) != CL_SUCCESS) return err;
  }
  for (cl_uint i = 0; i < config->num_exec_infos; i++) {
    const cl_mutable_dispatch_exec_info_khr *info = &config->exec_info_list[i];
    if ((err = kiln_kernel_set_exec_info(kernel, info->param_name, info->param_value_size, info->param_value)) !=
        CL_SUCCESS)
      return err;
  }
  size_t dims = p->next.work_dim * sizeof(size_t);
  if (config->global_work_offset) memcpy(p->next.offset, config->global_work_offset, dims);
  if (config->global_work_size) memcpy(p->next.global, config->global_work_size, dims);
  if (config->local_work_size) {
    memcpy(p->next.local, config->local_work_size, dims);
    p->next.local_given = true;
  }
  return CL_SUCCESS;
}

/* Rebuilds every named command; the geometry is validated here, as clEnqueueNDRangeKernel would. */
static cl_int rebuild(struct update *u) {
  for (size_t i = 0; i < u->count; i++) {
    struct kiln_pending_update *p = &u->pending[i];
    if (kiln_recorded_dispatch_is_uniform(&p->command->dispatch) != kiln_recorded_dispatch_is_uniform(&p->next))
      return KILN_FAIL(CL_INVALID_OPERATION, "the update changes whether the work-groups are uniform");
    cl_int err = kiln_recorded_dispatch_build(u->command_buffer->queue, &p->next, &p->rebuilt);
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

/* Switches the locked command buffer to the updated commands; false when there is no
 * memory for the new version (nothing changed then). */
static bool commit(struct update *u) {
  cl_command_buffer_khr cb = u->command_buffer;
  size_t *indices = malloc(u->count * sizeof *indices);
  struct kiln_command **rebuilt = malloc(u->count * sizeof *rebuilt);
  struct kiln_replay_version *version = NULL;
  if (indices && rebuilt) {
    for (size_t i = 0; i < u->count; i++) {
      indices[i] = u->pending[i].command->index;
      rebuilt[i] = u->pending[i].rebuilt;
    }
    version = kiln_replay_version_replace(cb->version, indices, rebuilt, u->count);
  }
  free(indices);
  free(rebuilt);
  if (!version) return false;
  for (size_t i = 0; i < u->count; i++) {
    struct kiln_pending_update *p = &u->pending[i];
    p->rebuilt = NULL; /* the version's now */
    kiln_recorded_dispatch_forget(&p->saved);
    pthread_mutex_lock(&p->command->lock);
    p->command->dispatch = p->next; /* the same clone, the new geometry */
    pthread_mutex_unlock(&p->command->lock);
  }
  kiln_replay_version_release(cb->version); /* executions holding it keep it */
  cb->version = version;
  return true;
}

static cl_int update_locked(struct update *u, cl_uint num_configs, const void **configs) {
  cl_int err;
  for (cl_uint i = 0; i < num_configs; i++)
    if ((err = check_config(u, configs[i])) != CL_SUCCESS ||
        (err = apply_config(u, configs[i])) != CL_SUCCESS)
      return err;
  if ((err = rebuild(u)) != CL_SUCCESS) return err;
  return commit(u) ? CL_SUCCESS : KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory for the updated command buffer");
}

CL_API_ENTRY cl_int CL_API_CALL clUpdateMutableCommandsKHR(cl_command_buffer_khr command_buffer, cl_uint num_configs,
                                                           const cl_command_buffer_update_type_khr *config_types,
                                                           const void **configs) {
  KILN_API_CALL;
  if (!kiln_command_buffer_is_valid(command_buffer))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_BUFFER_KHR, command_buffer, cl_command_buffer_khr);
  if (!atomic_load_explicit(&command_buffer->finalized, memory_order_acquire))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command buffer is not finalized");
  if (!(command_buffer->flags & CL_COMMAND_BUFFER_MUTABLE_KHR))
    return KILN_FAIL(CL_INVALID_OPERATION, "the command buffer was not created with CL_COMMAND_BUFFER_MUTABLE_KHR");
  if ((config_types == NULL) != (num_configs == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "config_types is %s but num_configs is %u", config_types ? "set" : "NULL",
                     num_configs);
  if ((configs == NULL) != (num_configs == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "configs is %s but num_configs is %u", configs ? "set" : "NULL", num_configs);
  for (cl_uint i = 0; i < num_configs; i++) {
    if (config_types[i] != CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR)
      return KILN_FAIL(CL_INVALID_VALUE, "config_types[%u] is %u: not a cl_command_buffer_update_type_khr", i,
                       (unsigned)config_types[i]);
    if (!configs[i]) return KILN_FAIL(CL_INVALID_VALUE, "configs[%u] is NULL", i);
  }
  if (num_configs == 0) return CL_SUCCESS;

  struct update u = {.command_buffer = command_buffer, .pending = calloc(num_configs, sizeof *u.pending)};
  if (!u.pending) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory for the update");
  pthread_mutex_lock(&command_buffer->lock);
  cl_int err = update_locked(&u, num_configs, configs);
  /* After a failure: the clones as they were, and the commands this call built dropped. */
  for (size_t i = 0; i < u.count; i++) {
    u.pending[i].command->pending = NULL;
    kiln_recorded_dispatch_restore(&u.pending[i].saved);
    if (u.pending[i].rebuilt) kiln_command_discard(u.pending[i].rebuilt);
  }
  pthread_mutex_unlock(&command_buffer->lock);
  free(u.pending);
  return err;
}
