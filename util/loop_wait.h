/* loop_wait.h — the system calls a Node.js main thread sleeps in when its event loop has nothing
 * to do: libuv's epoll_wait, epoll_pwait, epoll_pwait2 (their numbers: arch_defs.h). A main thread asleep in
 * any other (a futex: V8's collector waiting for its helpers, a lock, Atomics.wait) may be inside
 * a garbage collection. Shared by the eBPF program and the ptrace sampler. */
#ifndef V8WALK_LOOP_WAIT_H
#define V8WALK_LOOP_WAIT_H

#ifndef __VMLINUX_H__
#include <stdbool.h>
#endif

#include "arch_defs.h"

static inline bool syscall_is_loop_wait(long nr)
{
	return nr == LOOP_WAIT_NR_EPOLL_WAIT || nr == LOOP_WAIT_NR_EPOLL_PWAIT ||
	       nr == LOOP_WAIT_NR_EPOLL_PWAIT2;
}

#endif
