/* import_dma_buf.c: mapping dma-buf file descriptors (Linux) for CL_IMPORT_TYPE_DMA_BUF_ARM. */
#include "ext/arm_import/arm_import.h"
#include "runtime/debug_err.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool dma_buf_available;

static void probe(void) {
  struct stat st;
  dma_buf_available = stat("/dev/udmabuf", &st) == 0 || stat("/dev/dma_heap", &st) == 0;
}

bool kiln_dma_buf_supported(void) {
  pthread_once(&probe_once, probe);
  return dma_buf_available;
}

/* dma-bufs live on the kernel's dma-buf pseudo filesystem. */
static bool is_dma_buf(int fd) {
  struct statfs fs;
  return fstatfs(fd, &fs) == 0 && fs.f_type == DMA_BUF_MAGIC;
}

cl_int kiln_dma_buf_map(int fd, size_t size, void **storage, bool *read_only) {
  if (fd < 0 || !is_dma_buf(fd)) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "fd < 0 || !is_dma_buf(fd)");
  off_t length = lseek(fd, 0, SEEK_END);
  if (length < 0) return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "length < 0");
  if (size > (size_t)length) return KILN_FAIL(CL_INVALID_BUFFER_SIZE, "rejected since (%s)", "size > (size_t)length");
  int mode = fcntl(fd, F_GETFL);
  if (mode < 0) return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "mode < 0");
  *read_only = (mode & O_ACCMODE) == O_RDONLY;
  void *p = mmap(NULL, size, *read_only ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "p == MAP_FAILED");
  *storage = p;
  return CL_SUCCESS;
}

void kiln_dma_buf_unmap(void *storage, size_t size) { munmap(storage, size); }
