#include "device/cpu/worker_pool.h"

#include "device/cpu/batch_queue.h"
#include "device/cpu/topology.h"
#include "runtime/device.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Helping threads get ids after the workers' from a small set of slots. */
#define HELPER_SLOTS 8
/* An idle worker sleeps at once, without spinning: on a machine with as many workers as
 * cores, a spinning worker takes its core from the application thread that is about to
 * enqueue (on 2 cores, 20 us of spinning doubled the launch latency and throughput
 * figures); a waiting application thread runs the work itself. */

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
/* Guards the job list. Adaptive (spins briefly before it sleeps): the workers woken for a
 * launch all take it at once, and a sleeping waiter's wake-up costs more than the few loads
 * the holder runs (16 cores: 4096 empty groups 51-53 us a launch, 54-59 with a plain mutex). */
static pthread_mutex_t pool_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
/* Submission lanes: one FIFO of queued jobs each. Threads look at the lanes in turn, from
 * the one after the lane of their last job, so a lane's backlog never holds up another's. */
struct lane {
  struct kiln_job *head, *tail;
};
static struct lane *lanes;
static unsigned lane_count;
static _Thread_local unsigned lane_cursor;
static atomic_uint jobs_queued;   /* jobs in the list, read without the lock by spinners */
static atomic_uint wake_seq;      /* futex word idle workers sleep on */
static atomic_uint sleepers;
/* Queued jobs whose wake-up was deferred: one-batch jobs, and the batches of the others. */
static atomic_size_t deferred_single_jobs, deferred_batches;
static _Thread_local bool takes_jobs; /* a worker, or a thread helping: it takes queued jobs next */
static _Thread_local bool is_worker;
static atomic_bool shutting_down;
static atomic_uint helper_slots;  /* bitmask of helper ids in use */
static unsigned configured_count;
static unsigned worker_count;
static pthread_t *workers;

static void futex_wait(atomic_uint *word, unsigned expected) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}
static void futex_wake(atomic_uint *word, int count) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

static void job_unqueue(struct kiln_job *job);

bool kiln_worker_pool_every_worker(unsigned threads) { return threads >= kiln_worker_pool_size(); }

/* Per-worker queues (batch_queue.h) for a job every worker may run: under a limit that
 * leaves workers out, their queues would only ever be stolen from, one half at a time. */
bool kiln_worker_pool_queues_for(const struct kiln_job *job) {
  return job->batch_count >= 2 && worker_count >= 2 &&
         (!job->limit || kiln_worker_pool_every_worker(job->limit->max)) && job->batch_count <= UINT32_MAX;
}

uint64_t kiln_worker_pool_queue_depth(const struct kiln_job *job) {
  return job->queues ? kiln_batch_queues_depth(job->batch_count, worker_count, job->queue_bound) : 1;
}

static void queues_create(struct kiln_job *job) {
  if (!kiln_worker_pool_queues_for(job)) return;
  /* Helping threads have queues too (empty at first): they steal halves like workers. */
  job->queues = kiln_batch_queues_create(worker_count + HELPER_SLOTS, worker_count, job->batch_count, job->queue_bound);
}

/* The next batch for the thread `worker_id`: its own queue's front, then stolen ones;
 * without queues, the shared counter's next. */
static bool batch_claim(struct kiln_job *job, unsigned worker_id, size_t *batch) {
  if (!job->queues) {
    *batch = atomic_fetch_add_explicit(&job->next_batch, 1, memory_order_relaxed);
    if (*batch >= job->batch_count) return false;
    if (*batch == job->batch_count - 1) job_unqueue(job); /* nothing left for others to claim */
    return true;
  }
  uint64_t taken;
  bool claimed = kiln_batch_queues_claim(job->queues, worker_id, &taken);
  *batch = (size_t)taken;
  return claimed;
}

static void job_release(struct kiln_job *job) {
  if (atomic_fetch_sub_explicit(&job->holds, 1, memory_order_acq_rel) == 1) {
    /* No thread claims any more; done (its trace reads job->queues) may free the job. */
    struct kiln_batch_queues *queues = job->queues;
    job->done(job);
    free(queues);
  }
}

static bool limit_enter(struct kiln_worker_limit *limit) {
  if (!limit) return true;
  unsigned active = atomic_load_explicit(&limit->active, memory_order_relaxed);
  do {
    if (active >= limit->max) return false;
  } while (!atomic_compare_exchange_weak(&limit->active, &active, active + 1));
  return true;
}

/* A thread left a limited job: a sleeping worker may now take a place in a queued one. */
static void limit_leave(struct kiln_worker_limit *limit) {
  atomic_fetch_sub(&limit->active, 1);
  if (atomic_load(&jobs_queued) == 0) return;
  atomic_fetch_add(&wake_seq, 1);
  if (atomic_load(&sleepers) > 0) futex_wake(&wake_seq, 1);
}

/* Whether a thread may take `job`: a helping thread takes one-batch jobs, and jobs of
 * several batches that welcome helpers; the others are the workers' (they are woken for
 * them): one thread per core. An application thread running batches of a long launch
 * beside all the workers made 17 threads on 16 cores, and a heavy launch 1-6 % slower than
 * 16 threads; beside one woken worker on 2 cores it could share that worker's core while
 * the other idled (6 % slower). */
static bool job_takeable(const struct kiln_job *job, bool helper) {
  return (!helper || job->helpers) && limit_enter(job->limit);
}

/* Takes a hold on the first queued job this thread may take whose limit has a free place
 * (taking the place), or returns NULL. */
static struct kiln_job *job_take(bool helper) {
  if (atomic_load_explicit(&jobs_queued, memory_order_acquire) == 0) return NULL;
  pthread_mutex_lock(&pool_lock);
  struct kiln_job *job = NULL;
  for (unsigned i = 0; i < lane_count && !job; i++) {
    unsigned lane = (lane_cursor + i) % lane_count;
    for (job = lanes[lane].head; job && !job_takeable(job, helper); job = job->next) continue;
    if (job) lane_cursor = lane + 1;
  }
  if (job) atomic_fetch_add_explicit(&job->holds, 1, memory_order_relaxed);
  pthread_mutex_unlock(&pool_lock);
  return job;
}

static void job_unqueue(struct kiln_job *job) {
  pthread_mutex_lock(&pool_lock);
  if (atomic_load_explicit(&job->queued, memory_order_relaxed)) {
    struct lane *lane = &lanes[job->lane];
    struct kiln_job **link = &lane->head, *prev = NULL;
    while (*link != job) {
      prev = *link;
      link = &(*link)->next;
    }
    *link = job->next;
    if (lane->tail == job) lane->tail = prev;
    atomic_store_explicit(&job->queued, false, memory_order_relaxed);
    atomic_fetch_sub_explicit(&jobs_queued, 1, memory_order_release);
  }
  pthread_mutex_unlock(&pool_lock);
}

/* Runs batches of a held job until none is left to claim; gives its place back when
 * `leave_limit` and drops the hold. */
static bool job_work(struct kiln_job *job, unsigned worker_id, bool leave_limit) {
  bool ran = false;
  size_t batch;
  while (batch_claim(job, worker_id, &batch)) {
    job->run(job, batch, worker_id);
    ran = true;
    if (atomic_fetch_add_explicit(&job->batches_done, 1, memory_order_acq_rel) + 1 == job->batch_count)
      job_release(job); /* the batches' hold */
  }
  /* Nothing left to claim: no other thread needs to take it (batches still running, or
   * stolen halves about to, finish with the threads that hold them). */
  if (job->queues && atomic_load_explicit(&job->queued, memory_order_relaxed)) job_unqueue(job);
  if (ran) atomic_fetch_add_explicit(&job->threads, 1, memory_order_relaxed);
  if (leave_limit && job->limit) limit_leave(job->limit);
  job_release(job);
  return ran;
}

/* The stack of each thread running jobs as a worker id, [low, high): the part below the
 * frame that takes jobs, where its work-items' private memory lies; a helper's while it
 * helps, 0 otherwise. Read by any thread (the generic address space's to_private). */
struct stack_range {
  _Atomic uintptr_t low, high;
};
static struct stack_range *job_stacks;

static uintptr_t stack_low(void);

static void set_job_stack(unsigned id, uintptr_t low, uintptr_t high) {
  atomic_store_explicit(&job_stacks[id].low, low, memory_order_relaxed);
  atomic_store_explicit(&job_stacks[id].high, high, memory_order_relaxed);
}

bool kiln_worker_pool_on_job_stack(uintptr_t p) {
  for (unsigned i = 0; job_stacks && i < worker_count + HELPER_SLOTS; i++)
    if (p >= atomic_load_explicit(&job_stacks[i].low, memory_order_relaxed) &&
        p < atomic_load_explicit(&job_stacks[i].high, memory_order_relaxed))
      return true;
  return false;
}

static void *worker_main(void *arg) {
  unsigned id = (unsigned)(uintptr_t)arg;
  set_job_stack(id, stack_low(), (uintptr_t)__builtin_frame_address(0));
  const struct kiln_cpu_topology *topology = kiln_cpu_topology_get();
  kiln_cpu_topology_bind_thread(id % topology->core_count);
  takes_jobs = true;
  is_worker = true;
  while (!atomic_load(&shutting_down)) {
    /* Read before looking: a job submitted, or a limit place given back, after the look
     * changes it, and the futex wait then returns at once. */
    unsigned seq = atomic_load(&wake_seq);
    struct kiln_job *job = job_take(false);
    if (job) {
      job_work(job, id, true);
      continue;
    }
    /* Queued jobs whose limits are full do not keep a worker awake. */
    atomic_fetch_add(&sleepers, 1);
    if (!atomic_load(&shutting_down)) futex_wait(&wake_seq, seq);
    atomic_fetch_sub(&sleepers, 1);
  }
  return NULL;
}

static void pool_start(void) {
  unsigned count = configured_count ? configured_count : kiln_device_get()->compute_units;
  if (count == 0) count = 1;
  workers = calloc(count, sizeof *workers);
  job_stacks = calloc(count + HELPER_SLOTS, sizeof *job_stacks);
  lane_count = kiln_worker_pool_lane_count();
  lanes = calloc(lane_count, sizeof *lanes);
  if (!workers || !job_stacks || !lanes) abort(); /* the device cannot run anything without its workers */
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, KILN_WORKER_STACK_BYTES); /* private memory lives here */
  for (unsigned i = 0; i < count; i++) {
    if (pthread_create(&workers[i], &attr, worker_main, (void *)(uintptr_t)i) != 0) break;
    worker_count++;
  }
  pthread_attr_destroy(&attr);
  if (worker_count == 0) abort();
}

static void pool_ensure_started(void) { pthread_once(&pool_once, pool_start); }

void kiln_worker_pool_configure(unsigned count) { configured_count = count; }

unsigned kiln_worker_pool_lane_count(void) {
  unsigned units = kiln_device_get()->compute_units;
  return units ? units : 1;
}

unsigned kiln_worker_pool_size(void) {
  pool_ensure_started();
  return worker_count;
}

unsigned kiln_worker_pool_id_count(void) { return kiln_worker_pool_size() + HELPER_SLOTS; }

void kiln_worker_pool_submit(struct kiln_job *job, bool defer_wake) {
  pool_ensure_started();
  /* Read before the job is published: once queued it may run, complete and be freed. */
  size_t batches = job->batch_count;
  queues_create(job);
  pthread_mutex_lock(&pool_lock);
  job->next = NULL;
  atomic_store_explicit(&job->queued, true, memory_order_relaxed);
  /* Waking a worker costs a futex call and an inter-processor interrupt, several times
   * the run time of a small job. A lone one-batch job submitted by a thread that takes
   * queued jobs itself next (a worker, a helping waiter) needs no wake-up. Work an
   * application thread enqueues with kernel batching waits for the application's flush
   * or wait (OpenCL's flush rules allow it; Arm's kernel batching does the same): the
   * waiting thread hands what exceeds one batch to the workers and runs the rest itself.
   * Jobs made ready elsewhere (a user event set by another thread) wake workers at once.
   * The deferred count grows before the job is counted, so a thread that sees the job and
   * then flushes also sees the count. */
  bool self_served = batches == 1 && atomic_load(&jobs_queued) == 0 && takes_jobs && (is_worker || job->helpers);
  bool deferred = defer_wake && !self_served;
  if (deferred) atomic_fetch_add(batches == 1 && job->helpers ? &deferred_single_jobs : &deferred_batches, batches);
  if (job->lane >= lane_count) job->lane = job->lane % lane_count;
  struct lane *lane = &lanes[job->lane];
  if (lane->tail) lane->tail->next = job;
  else lane->head = job;
  lane->tail = job;
  size_t queued = atomic_fetch_add_explicit(&jobs_queued, 1, memory_order_release) + 1;
  pthread_mutex_unlock(&pool_lock);
  atomic_fetch_add(&wake_seq, 1);
  if (self_served || deferred || atomic_load(&sleepers) == 0) return;
  size_t wake = batches > queued ? batches : queued;
  futex_wake(&wake_seq, (int)(wake < worker_count ? wake : worker_count));
}

/* Wakes workers for the deferred work; a helping thread runs one of the one-batch jobs
 * itself (`helping`), the workers everything else. */
static size_t take_count(atomic_size_t *count) {
  return atomic_load_explicit(count, memory_order_relaxed) ? atomic_exchange(count, 0) : 0;
}

static void wake_deferred(bool helping) {
  size_t single = take_count(&deferred_single_jobs), batches = take_count(&deferred_batches);
  if (helping && single) single--;
  batches += single;
  if (batches == 0 || atomic_load(&jobs_queued) == 0 || atomic_load(&sleepers) == 0) return;
  futex_wake(&wake_seq, (int)(batches < worker_count ? batches : worker_count));
}

void kiln_worker_pool_flush(void) { wake_deferred(false); }

void kiln_worker_pool_run(struct kiln_job *job, unsigned worker_id) {
  atomic_fetch_add_explicit(&job->holds, 1, memory_order_relaxed); /* the caller's, dropped by job_work */
  kiln_worker_pool_submit(job, false);
  job_work(job, worker_id, false); /* the caller's place belongs to the job it is running */
}

/* The calling thread's stack's low end, looked up once per thread; 0 when it cannot be told. */
static uintptr_t stack_low(void) {
  static _Thread_local uintptr_t low;
  static _Thread_local bool looked_up;
  if (!looked_up) {
    looked_up = true;
    pthread_attr_t attr;
    void *address;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &address, &size) == 0) low = (uintptr_t)address;
      pthread_attr_destroy(&attr);
    }
  }
  return low;
}

/* Stack left to the calling thread below the current frame; SIZE_MAX when it cannot be told. */
static size_t stack_left(void) {
  uintptr_t low = stack_low(), here = (uintptr_t)__builtin_frame_address(0);
  return low && here > low ? here - low : low ? 0 : SIZE_MAX;
}

bool kiln_worker_pool_help(void) {
  if (atomic_load_explicit(&jobs_queued, memory_order_acquire) == 0) return false;
  /* A thread with too little stack left leaves everything to the workers (the caller's
   * later flush wakes them for the deferred work). */
  if (stack_left() < KILN_HELPER_STACK_BYTES + KILN_STACK_RESERVE_BYTES) return false;
  unsigned slots = atomic_load(&helper_slots), slot;
  do {
    if (slots == (1u << HELPER_SLOTS) - 1) return false; /* enough helpers already */
    slot = (unsigned)__builtin_ctz(~slots);
  } while (!atomic_compare_exchange_weak(&helper_slots, &slots, slots | (1u << slot)));
  bool ran = false, was_taking = takes_jobs;
  struct kiln_job *job;
  takes_jobs = true;
  wake_deferred(true);
  set_job_stack(worker_count + slot, stack_low(), (uintptr_t)__builtin_frame_address(0));
  while ((job = job_take(true)) != NULL) ran |= job_work(job, worker_count + slot, true);
  set_job_stack(worker_count + slot, 0, 0);
  takes_jobs = was_taking;
  atomic_fetch_and(&helper_slots, ~(1u << slot));
  return ran;
}

/* Workers are joined when the library is unloaded or the process exits. */
__attribute__((destructor)) static void pool_shutdown(void) {
  if (!workers) return;
  atomic_store(&shutting_down, true);
  atomic_fetch_add(&wake_seq, 1);
  futex_wake(&wake_seq, INT_MAX);
  for (unsigned i = 0; i < worker_count; i++) pthread_join(workers[i], NULL);
  free(workers);
  workers = NULL;
  free(lanes);
  lanes = NULL;
}
