/* memsrc_live.h — memory source over a running process (process_vm_readv, /proc/PID/mem fallback). */
#ifndef V8WALK_MEMSRC_LIVE_H
#define V8WALK_MEMSRC_LIVE_H

#include <sys/types.h>

#include "memsrc.h"

struct memsrc_live {
	struct memsrc base;
	pid_t pid;
	int mem_fd;          /* /proc/PID/mem, opened lazily when process_vm_readv is unavailable */
	unsigned long reads; /* syscalls issued (for benchmarks) */
};

void memsrc_live_init(struct memsrc_live *m, pid_t pid);
void memsrc_live_close(struct memsrc_live *m);

#endif
