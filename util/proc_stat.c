/* proc_stat.c — fields of /proc/PID/stat (proc_stat.h). */
#include "proc_stat.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* After "pid (comm) ": state is field 3, utime 14 and stime 15 (proc(5)). */
enum { FIELD_STATE = 3, FIELD_UTIME = 14, FIELD_STIME = 15 };

static bool parse_u64(const char *s, const char *end, uint64_t *v)
{
	if (s >= end || *s < '0' || *s > '9')
		return false;
	uint64_t x = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

bool proc_stat_parse(const char *buf, size_t len, struct proc_stat *out)
{
	const char *end = buf + len, *close = NULL;
	for (const char *p = buf; p < end; p++)
		if (*p == ')')
			close = p;
	if (!close || end - close < 3 || close[1] != ' ')
		return false;
	memset(out, 0, sizeof(*out));
	out->state = close[2];
	const char *p = close + 2;
	for (int field = FIELD_STATE; field <= FIELD_STIME; field++) {
		if (p >= end)
			return false;
		const char *next = memchr(p, ' ', (size_t)(end - p));
		const char *stop = next ? next : end;
		if (field == FIELD_UTIME && !parse_u64(p, stop, &out->utime))
			return false;
		if (field == FIELD_STIME && !parse_u64(p, stop, &out->stime))
			return false;
		p = stop + 1;
	}
	return true;
}

/* The start of /proc/ID/NAME into buf (at most cap bytes): how many bytes, or -1. */
static ssize_t read_proc(pid_t id, const char *name, char *buf, size_t cap)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/%s", (int)id, name);
	int fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap);
	close(fd);
	return n;
}

bool proc_cpu_ns(pid_t pid, uint64_t *ns)
{
	char buf[1024];
	ssize_t n = read_proc(pid, "stat", buf, sizeof(buf));
	struct proc_stat st;
	if (n <= 0 || !proc_stat_parse(buf, (size_t)n, &st))
		return false;
	long hz = sysconf(_SC_CLK_TCK);
	*ns = (st.utime + st.stime) * (uint64_t)(1000000000 / (hz > 0 ? hz : 100));
	return true;
}

bool proc_thread_syscall(pid_t tid, long *nr)
{
	char buf[64];
	ssize_t n = read_proc(tid, "syscall", buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] < '0' || buf[0] > '9') /* "running", or "-1 …": not in a system call */
		return false;
	buf[n] = 0;
	long v = 0;
	for (const char *p = buf; *p >= '0' && *p <= '9' && v < 100000; p++)
		v = v * 10 + (*p - '0');
	*nr = v;
	return true;
}
