/* diagnose.h — why v8walk cannot look at a process, in one specific line: no such process (in a
 * container: not in its PID namespace), not ours to trace (uid, CAP_SYS_PTRACE, Yama
 * ptrace_scope, container), already traced; with what to do: sudo, the capabilities for setcap
 * on v8walk's own file, the container's flags. */
#ifndef V8WALK_DIAGNOSE_H
#define V8WALK_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../util/strbuf.h"
#include "confinement.h"

/* Does the process exist? */
bool process_exists(pid_t pid);
/* v8walk's own executable, for the setcap line ("v8walk" when /proc/self/exe is unreadable). */
void own_executable(char *buf, size_t cap);
/* " `sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep EXE`": what gives a v8walk binary the
 * capabilities both samplers need, once. */
void sb_add_setcap(struct strbuf *out, const char *exe);
/* "no process with pid N", and in a container where to look: the PID namespace's flags. */
void explain_no_process(pid_t pid, bool container, struct strbuf *out);
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
	char self_exe[256]; /* v8walk's own file (for setcap) */
};

void gather_access_facts(pid_t pid, int err, struct access_facts *f);
/* One line naming the cause and the fix; true when the cause is the kernel's access control (a
 * privilege, a capability or a policy: EXIT_PERMISSION), false when the process is gone or
 * already traced. */
bool explain_access(const struct access_facts *f, struct strbuf *out);
/* gather + explain: for a refused PTRACE_SEIZE or an unreadable /proc/PID file (err > 0). */
bool diagnose_access(pid_t pid, int err, struct strbuf *out);

#endif
