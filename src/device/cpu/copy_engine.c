/* copy_engine.c: see copy_engine.h. */
#include "device/cpu/copy_engine.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The engine asks for a larger share of a core than the workers it runs beside: an
 * engine time-sliced evenly with two busy workers per core copies at a fraction of its
 * speed, and the overlap it exists for mostly vanishes (kiln_bench --only families: 5-16 %
 * saved at equal priority, 18-30 % with this). Raising priority needs CAP_SYS_NICE or an
 * RLIMIT_NICE allowance; without them the call fails and the engine runs at the default. */
#define ENGINE_NICE (-10)

struct copy_engine {
  pthread_mutex_t lock;
  pthread_cond_t ready;
  struct kiln_job *head, *tail;
  bool started, stopping;
  pthread_t thread;
};

static struct copy_engine engines[KILN_COPY_ENGINES] = {
    {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, false, false, 0},
    {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, false, false, 0},
};

static void *engine_main(void *arg) {
  struct copy_engine *engine = arg;
  setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), ENGINE_NICE);
  pthread_mutex_lock(&engine->lock);
  for (;;) {
    while (!engine->head && !engine->stopping) pthread_cond_wait(&engine->ready, &engine->lock);
    struct kiln_job *job = engine->head;
    if (!job) break; /* stopping with nothing left */
    engine->head = job->next;
    if (!engine->head) engine->tail = NULL;
    pthread_mutex_unlock(&engine->lock);
    job->run(job, 0, KILN_COPY_ENGINE_WORKER_ID);
    job->done(job);
    pthread_mutex_lock(&engine->lock);
  }
  pthread_mutex_unlock(&engine->lock);
  return NULL;
}

void kiln_copy_engine_submit(unsigned index, struct kiln_job *job) {
  struct copy_engine *engine = &engines[index % KILN_COPY_ENGINES];
  job->next = NULL;
  pthread_mutex_lock(&engine->lock);
  if (!engine->started) {
    /* The device cannot run the queue's commands without its engine. */
    if (pthread_create(&engine->thread, NULL, engine_main, engine) != 0) abort();
    engine->started = true;
  }
  if (engine->tail) engine->tail->next = job;
  else engine->head = job;
  engine->tail = job;
  pthread_cond_signal(&engine->ready);
  pthread_mutex_unlock(&engine->lock);
}

/* Engines finish their queued jobs and stop when the library is unloaded. */
__attribute__((destructor)) static void copy_engines_stop(void) {
  for (unsigned i = 0; i < KILN_COPY_ENGINES; i++) {
    struct copy_engine *engine = &engines[i];
    pthread_mutex_lock(&engine->lock);
    bool started = engine->started;
    engine->stopping = true;
    pthread_cond_signal(&engine->ready);
    pthread_mutex_unlock(&engine->lock);
    if (started) pthread_join(engine->thread, NULL);
  }
}
