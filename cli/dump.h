/* dump.h — a one-shot picture of every thread of a process (live --dump, or a core file): each
 * thread's mixed stack, innermost first, with what is known about the thread. */
#ifndef V8WALK_DUMP_H
#define V8WALK_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../util/intern.h"
#include "../walker/frame.h"

struct thread_dump {
	pid_t tid;
	char name[64];         /* "main", "worker", or the kernel's thread name */
	char state;            /* /proc state before it was stopped ('R', 'S', …), 0 for cores */
	bool crashed;          /* the thread that received the fatal signal (cores) */
	int signal;            /* that signal */
	bool truncated;        /* the walk did not reach the outermost frame */
	char damage[256];      /* what was missing while walking it (cores), "" when nothing */
	uint64_t pause_ns;     /* how long it was held stopped (live) */
	struct frame *frames;
	int nframes;
};

struct process_dump {
	pid_t pid;
	char comm[64];
	char runtime[128];     /* "Node 20.20.2 (V8 11.3.244.8)" */
	char source[512];      /* "live process" or the core's path */
	struct thread_dump *threads;
	size_t nthreads, cap;
	uint64_t total_pause_ns;
	char **warnings;       /* problems with the input as a whole (cores), one line each */
	size_t nwarnings;
	const struct intern *strings;
};

void process_dump_init(struct process_dump *d, const struct intern *strings);
void process_dump_free(struct process_dump *d);
struct thread_dump *process_dump_add(struct process_dump *d, pid_t tid, const struct frame *frames,
				     int n);
void process_dump_warn(struct process_dump *d, const char *line);
/* Put the crashed thread first, the others by tid. */
void process_dump_sort(struct process_dump *d);
int write_dump_text(const struct process_dump *d, FILE *out);
int write_dump_json(const struct process_dump *d, FILE *out);

#endif
