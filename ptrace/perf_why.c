/* perf_why.c — the user's words for a refused perf event (perf_why.h). */
#include "perf_why.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int read_paranoid(void)
{
	int v = 99;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

void perf_why(char *buf, size_t len, int err, const char *what)
{
	if (err == EACCES || err == EPERM) {
		int p = read_paranoid();
		if (p != 99)
			snprintf(buf, len, "perf events are not allowed (kernel.perf_event_paranoid is %d; it takes 1 "
				 "or less, or CAP_PERFMON)", p);
		else
			snprintf(buf, len, "perf events are not allowed (%s)", strerror(err));
	} else if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP || err == ENOSYS) {
		snprintf(buf, len, "this kernel has no software perf events (%s)", strerror(err));
	} else if (err == ENOTTY) {
		snprintf(buf, len, "this kernel cannot pause a perf ring (Linux 4.7 or later can)");
	} else {
		snprintf(buf, len, "%s: %s", what, strerror(err));
	}
}
