/* launch_trace.h — ptrace launch mode until there is V8 to sample: the launched program is seized
 * while it is held before its execve, and stops at that execve (PTRACE_O_TRACEEXEC); if V8 is not
 * mapped yet — a node built on libnode.so maps it after execve, and a script's interpreter may
 * execve node later — the program runs in short steps (resumed, interrupted) until V8 appears,
 * for a few seconds after each execve, then runs on to its next execve. Its own signals are
 * delivered meanwhile. */
#ifndef V8WALK_LAUNCH_TRACE_H
#define V8WALK_LAUNCH_TRACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "../sampling/node_scan.h"

/* Seize the held program so that it stops at its execve; returns 0 or -errno. */
int launch_trace_seize(pid_t pid);
/* True with the program held in a ptrace-stop and V8 mapped; false when it exited first
 * (*wait_status: how it ended, as waitpid says, or -1 when it could not be waited for). */
bool launch_trace_until_node(pid_t pid, struct node_scan *ns, int *wait_status);
/* Let the held program run on untraced. */
void launch_trace_let_go(pid_t pid);

#endif
