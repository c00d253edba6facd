/* thread_role.h — what a thread of a node process is for, as labels show it: "main" for the
 * leader, the kernel's thread name where node set one (Node 22+, live targets only: cores do not
 * record thread names), else the role recognized from the bottom of a complete stack ("worker",
 * "V8 platform", "libuv worker", "thread"); a thread other than the main one that runs JavaScript
 * is a worker. Shared by the sampler, live dumps and cores. */
#ifndef V8WALK_THREAD_ROLE_H
#define V8WALK_THREAD_ROLE_H

#include <stdbool.h>

#include "../util/intern.h"
#include "frame.h"

struct thread_facts {
	bool is_leader;              /* tid == pid */
	const char *kernel_name;     /* the thread's comm, or NULL when unknown (cores) */
	const char *process_name;    /* the process's comm: a thread named like it was not renamed */
	const struct frame *frames;  /* its stack, innermost first, natives named */
	int nframes;
	bool complete;               /* the walk reached the outermost frame */
	const struct intern *strings;
};

/* The role; *final is false when a later stack may still tell more (incomplete walk). */
const char *thread_role(const struct thread_facts *tf, bool *final);

#endif
