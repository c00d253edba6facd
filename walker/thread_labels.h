/* thread_labels.h — the label a thread gets as the second root frame of a live sample: its role
 * (walker/thread_role.h) and its tid, `worker (4250)`, cached per thread once it cannot change.
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
	struct u64map by_tid; /* tid → label id | final << 32 */
};

void thread_labels_init(struct thread_labels *tl, struct intern *strings, pid_t pid,
			const char *process_comm);
void thread_labels_free(struct thread_labels *tl);
/* The role of a thread from what is known now: its kernel name `comm` and its stack (frames
 * innermost first, natives named; `complete` when the walk reached the outermost frame). */
const char *thread_labels_role(const struct thread_labels *tl, pid_t tid, const char *comm,
			       const struct frame *frames, int n, bool complete, bool *final);
/* The interned label "role (tid)", cached once final. */
uint32_t thread_label(struct thread_labels *tl, pid_t tid, const char *comm,
		      const struct frame *frames, int n, bool complete);

#endif
