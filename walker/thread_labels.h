/* thread_labels.h — the role a thread of a live sample has (walker/thread_role.h): "main",
 * "worker", its kernel name…, interned and cached per thread once it cannot change (the writers
 * make labels such as `worker (4250)` from it).
 * Shared by the ptrace sampler and the eBPF sampler. */
#ifndef V8WALK_THREAD_LABELS_H
#define V8WALK_THREAD_LABELS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "frame.h"

struct thread_labels {
	struct intern *strings;
	pid_t pid;
	char process_comm[17];
	struct u64map by_tid; /* tid → role id | final << 32 */
};

void thread_labels_init(struct thread_labels *tl, struct intern *strings, pid_t pid,
			const char *process_comm);
void thread_labels_free(struct thread_labels *tl);
/* The role of a thread from what is known now: its kernel name `comm` and its stack (frames
 * innermost first, natives named; `complete` when the walk reached the outermost frame). */
const char *thread_labels_role(const struct thread_labels *tl, pid_t tid, const char *comm,
			       const struct frame *frames, int n, bool complete, bool *final);
/* The interned role, cached once final. */
uint32_t thread_labels_role_id(struct thread_labels *tl, pid_t tid, const char *comm,
		      const struct frame *frames, int n, bool complete);

#endif
