/* thread_labels.c — thread labels for live samples, and their cache. */
#include "thread_labels.h"

#include <stdio.h>
#include <string.h>

#include "thread_role.h"

void thread_labels_init(struct thread_labels *tl, struct intern *strings, pid_t pid,
			const char *process_comm)
{
	memset(tl, 0, sizeof(*tl));
	tl->strings = strings;
	tl->pid = pid;
	snprintf(tl->process_comm, sizeof(tl->process_comm), "%s", process_comm);
	u64map_init(&tl->by_tid, 0);
}

void thread_labels_free(struct thread_labels *tl)
{
	u64map_free(&tl->by_tid);
}

const char *thread_labels_role(const struct thread_labels *tl, pid_t tid, const char *comm,
			       const struct frame *frames, int n, bool complete, bool *final)
{
	struct thread_facts tf = {
	    .is_leader = tid == tl->pid,
	    .kernel_name = comm,
	    .process_name = tl->process_comm,
	    .frames = frames,
	    .nframes = n,
	    .complete = complete,
	    .strings = tl->strings,
	};
	return thread_role(&tf, final);
}

uint32_t thread_labels_role_id(struct thread_labels *tl, pid_t tid, const char *comm,
		      const struct frame *frames, int n, bool complete)
{
	uint64_t v;
	if (u64map_get(&tl->by_tid, (uint64_t)tid, &v) && (v >> 32))
		return (uint32_t)v;
	bool final;
	uint32_t id = intern_str(tl->strings,
				 thread_labels_role(tl, tid, comm, frames, n, complete, &final));
	u64map_put(&tl->by_tid, (uint64_t)tid, id | (uint64_t)final << 32);
	return id;
}
