/* perf_why.c — the user's words for a refused perf event (perf_why.h). */
#include "perf_why.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/strbuf.h"

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

void perf_facts_gather(struct perf_facts *f)
{
	f->paranoid = read_paranoid();
	confinement_gather(&f->conf);
}

void perf_why_explain(char *buf, size_t len, int err, const char *what, const struct perf_facts *f)
{
	const struct confinement *c = &f->conf;
	bool refused = err == EACCES || err == EPERM;
	/* a runtime's default profile answers EPERM (Docker, Podman) or ENOSYS (its default action) */
	bool seccomp = c->seccomp_filter && !c->cap_sys_admin && (refused || err == ENOSYS);
	bool paranoid = f->paranoid != 99 && f->paranoid > 1 && !c->cap_perfmon && !c->cap_sys_admin;
	/* capabilities a container withheld from root, not a user's own lack of them */
	bool withheld = c->container && c->root && paranoid;
	struct strbuf s;
	sb_init(&s);
	if (seccomp && c->container) {
		sb_add(&s, "perf events are refused in this container: its seccomp profile allows "
			   "perf_event_open only with CAP_SYS_ADMIN");
		if (paranoid)
			sb_printf(&s, ", and kernel.perf_event_paranoid is %d without CAP_PERFMON", f->paranoid);
		sb_add(&s, "; ");
		container_flags_advice(NEED_SECCOMP | (paranoid ? NEED_PERFMON : 0), &s);
	} else if (refused && f->paranoid != 99) {
		sb_printf(&s, "perf events are not allowed (kernel.perf_event_paranoid is %d; it takes 1 "
			      "or less, or CAP_PERFMON)", f->paranoid);
		if (withheld) {
			sb_add(&s, "; in a container, ");
			container_flags_advice(NEED_PERFMON, &s);
		}
	} else if (refused) {
		sb_printf(&s, "perf events are not allowed (%s)", strerror(err));
	} else if (seccomp) {
		sb_printf(&s, "perf events are refused by a seccomp filter on v8walk (%s)", strerror(err));
	} else if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP || err == ENOSYS) {
		sb_printf(&s, "this kernel has no software perf events (%s)", strerror(err));
	} else if (err == ENOTTY) {
		sb_add(&s, "this kernel cannot pause a perf ring (Linux 4.7 or later can)");
	} else {
		sb_printf(&s, "%s: %s", what, strerror(err));
	}
	snprintf(buf, len, "%s", s.s ? s.s : "");
	sb_free(&s);
}

void perf_why(char *buf, size_t len, int err, const char *what)
{
	struct perf_facts f;
	perf_facts_gather(&f);
	perf_why_explain(buf, len, err, what, &f);
}
