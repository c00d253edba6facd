/* cpu_share.c — samples against the CPU time the kernel accounted (cpu_share.h). */
#include "cpu_share.h"

#include "../util/proc_stat.h"
#include "../util/text_escape.h"

void cpu_mark_take(struct cpu_mark *m, pid_t pid, unsigned long samples)
{
	m->taken = proc_cpu_ns(pid, &m->cpu_ns);
	m->samples = samples;
}

bool cpu_share_far_below(unsigned long samples, double cpu_s, double rate_hz, double *due)
{
	*due = cpu_s * rate_hz;
	double n = (double)samples, short_by = *due - n;
	return n < 0.6 * *due && short_by * short_by > 16.0 * *due; /* over 4 sqrt(due) short */
}

bool cpu_share_warn(FILE *out, const struct cpu_mark *from, const struct cpu_mark *to, pid_t pid,
		    const char *name, double rate_hz, const char *when, struct strbuf *note)
{
	if (!from->taken || !to->taken || to->cpu_ns < from->cpu_ns || to->samples < from->samples)
		return false;
	double cpu_s = (double)(to->cpu_ns - from->cpu_ns) / 1e9, due;
	unsigned long n = to->samples - from->samples;
	if (!cpu_share_far_below(n, cpu_s, rate_hz, &due))
		return false;
	fprintf_text(out, "v8walk: warning: process %d (%s) got %lu samples %s for %.2f s of CPU, "
			  "where %g Hz is due about %.0f: its share of the profile is too small\n",
		     (int)pid, name ? name : "?", n, when, cpu_s, rate_hz, due);
	if (note)
		sb_printf(note, "%sprocess %d %lu of ~%.0f samples due",
			  note->len ? ", " : "under-sampled: ", (int)pid, n, due);
	return true;
}
