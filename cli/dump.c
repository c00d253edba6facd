/* dump.c — building a process dump. */
#include "dump.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void process_dump_init(struct process_dump *d, const struct intern *strings)
{
	memset(d, 0, sizeof(*d));
	d->strings = strings;
}

void process_dump_free(struct process_dump *d)
{
	for (size_t i = 0; i < d->nthreads; i++)
		free(d->threads[i].frames);
	free(d->threads);
	for (size_t i = 0; i < d->nwarnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	memset(d, 0, sizeof(*d));
}

struct thread_dump *process_dump_add(struct process_dump *d, pid_t tid, const struct frame *frames,
				     int n)
{
	XGROW(d->threads, d->cap, d->nthreads + 1);
	struct thread_dump *t = &d->threads[d->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->frames = xmalloc(sizeof(*frames) * (size_t)(n ? n : 1));
	memcpy(t->frames, frames, sizeof(*frames) * (size_t)n);
	t->nframes = n;
	return t;
}

void process_dump_warn(struct process_dump *d, const char *line)
{
	d->warnings = xrealloc(d->warnings, (d->nwarnings + 1) * sizeof(*d->warnings));
	d->warnings[d->nwarnings++] = xstrdup(line);
}

/* ctx: the process's pid. The main thread's tid is the pid, but after pid numbers wrap around
 * its threads may have lower tids: it goes first by rule, not by number. */
static int cmp_thread(const void *a, const void *b, void *ctx)
{
	const struct thread_dump *x = a, *y = b;
	pid_t pid = *(const pid_t *)ctx;
	if (x->crashed != y->crashed)
		return x->crashed ? -1 : 1;
	if ((x->tid == pid) != (y->tid == pid))
		return x->tid == pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void process_dump_sort(struct process_dump *d)
{
	if (d->nthreads > 1)
		qsort_r(d->threads, d->nthreads, sizeof(*d->threads), cmp_thread, &d->pid);
}
