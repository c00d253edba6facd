/* diagnose.h — why v8walk cannot look at a process, in one specific line: no such process, not
 * ours to trace (uid, CAP_SYS_PTRACE, Yama ptrace_scope, container), already traced. */
#ifndef V8WALK_DIAGNOSE_H
#define V8WALK_DIAGNOSE_H

#include <stdbool.h>
#include <sys/types.h>

#include "../util/strbuf.h"

/* Does the process exist? */
bool process_exists(pid_t pid);
/* Process name from /proc/PID/comm ("?" when unreadable). */
void process_comm(pid_t pid, char *buf, size_t cap);
/* Explain a refused PTRACE_SEIZE or an unreadable /proc/PID file (err is a positive errno). */
void diagnose_access(pid_t pid, int err, struct strbuf *out);

#endif
