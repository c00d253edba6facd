/* proc_stat.h — the fields v8walk reads from a /proc/PID/stat (or /proc/PID/task/TID/stat) line:
 * the scheduler state, and the CPU time the kernel accounted (for a process, its threads' and its
 * exited threads' together). The parser takes the line as a buffer: the command name between the
 * parentheses is the process's own choice (spaces, parentheses), so the fields are counted from
 * the last ')'. */
#ifndef V8WALK_PROC_STAT_H
#define V8WALK_PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_stat {
	char state;          /* 'R', 'S', 'D', 'Z', … */
	uint64_t utime, stime; /* clock ticks (sysconf(_SC_CLK_TCK)) */
};

/* Parse buf[0..len); false when it is not such a line. */
bool proc_stat_parse(const char *buf, size_t len, struct proc_stat *out);
/* The CPU time a process has had, in ns (of clock-tick resolution); false when its stat file
 * cannot be read (the process is gone). */
bool proc_cpu_ns(pid_t pid, uint64_t *ns);

/* The system call thread `tid` is blocked in (/proc/TID/syscall): true with its number, false
 * when it runs (or runs in user space), or the file cannot be read. */
bool proc_thread_syscall(pid_t tid, long *nr);

#endif
