/* diagnose.h — why v8walk cannot look at a process, in one specific line: no such process, not
 * ours to trace (uid, CAP_SYS_PTRACE, Yama ptrace_scope, container), already traced. */
#ifndef V8WALK_DIAGNOSE_H
#define V8WALK_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../util/strbuf.h"
#include "confinement.h"

/* Does the process exist? */
bool process_exists(pid_t pid);
/* Process name from /proc/PID/comm ("?" when unreadable). */
void process_comm(pid_t pid, char *buf, size_t cap);
/* Append " (its child PID (comm) runs node: try --pid PID)" when a child process maps a node
 * binary — the usual mistake of pointing at npm, a shell or a supervisor. */
void suggest_node_child(pid_t pid, struct strbuf *out);

/* What decides whether we may trace a process (gathered from /proc, or made up by tests). */
struct access_facts {
	pid_t pid;
	char comm[64];
	int err;            /* the errno of the refusal */
	bool exists;
	pid_t tracer;       /* TracerPid, 0 = none */
	char tracer_comm[64];
	bool cap_sys_ptrace;
	int yama_scope;     /* -1 = no Yama */
	long target_uid;    /* -1 = unknown */
	long our_uid;
	bool descendant;    /* the target is our descendant */
	bool container;     /* v8walk runs inside a container */
};

void gather_access_facts(pid_t pid, int err, struct access_facts *f);
/* One line naming the cause and the fix. */
void explain_access(const struct access_facts *f, struct strbuf *out);
/* gather + explain: for a refused PTRACE_SEIZE or an unreadable /proc/PID file (err > 0). */
void diagnose_access(pid_t pid, int err, struct strbuf *out);

#endif
