/* thread_labels.c — thread roles from names and stacks, and their cache. */
#include "thread_labels.h"

#include <stdio.h>
#include <string.h>

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

static bool stack_has(const struct thread_labels *tl, const struct frame *frames, int n,
		      const char *needle)
{
	for (int i = 0; i < n; i++)
		if (frames[i].kind == FK_NATIVE &&
		    strstr(intern_get(tl->strings, frames[i].name), needle))
			return true;
	return false;
}

const char *thread_role(const struct thread_labels *tl, pid_t tid, const char *comm,
			const struct frame *frames, int n, bool complete, bool *final)
{
	*final = true;
	if (tid == tl->pid)
		return "main";
	if (comm && comm[0] && strcmp(comm, tl->process_comm) != 0)
		return comm;
	if (complete && n > 0) {
		if (stack_has(tl, frames, n, "node::worker::Worker::StartThread"))
			return "worker";
		if (stack_has(tl, frames, n, "PlatformWorkerThread") ||
		    stack_has(tl, frames, n, "WorkerThreadsTaskRunner"))
			return "V8 platform";
		if (stack_has(tl, frames, n, "uv__thread_start") || stack_has(tl, frames, n, "uv__work_"))
			return "libuv worker";
		return "thread";
	}
	*final = false;
	return "thread";
}

uint32_t thread_label(struct thread_labels *tl, pid_t tid, const char *comm,
		      const struct frame *frames, int n, bool complete)
{
	uint64_t v;
	if (u64map_get(&tl->by_tid, (uint64_t)tid, &v) && (v >> 32))
		return (uint32_t)v;
	bool final;
	char buf[64];
	snprintf(buf, sizeof(buf), "%s (%d)", thread_role(tl, tid, comm, frames, n, complete, &final),
		 (int)tid);
	uint32_t id = intern_str(tl->strings, buf);
	u64map_put(&tl->by_tid, (uint64_t)tid, id | (uint64_t)final << 32);
	return id;
}
