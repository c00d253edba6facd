/* launch_trace.h — ptrace launch mode until there is V8 to sample: the seized program stops at
 * its execve (PTRACE_O_TRACEEXEC); if V8 is not mapped yet — a node built on libnode.so maps it
 * after execve, and a script's interpreter may execve node later — the program runs in short
 * steps (resumed, interrupted) until V8 appears, for a few seconds after each execve, then runs
 * on to its next execve. Its own signals are delivered meanwhile. */
#ifndef V8WALK_LAUNCH_TRACE_H
#define V8WALK_LAUNCH_TRACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "node_scan.h"

/* True with the program held in a ptrace-stop and V8 mapped; false when it exited first
 * (*code: its exit code as a shell gives it). */
bool launch_trace_until_node(pid_t pid, struct node_scan *ns, int *code);

#endif
