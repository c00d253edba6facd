/* summary.c — run statistics for the user (and for benchmarks, which parse this line). */
#include "../util/text_escape.h"
#include "summary.h"

#include "../ptrace/stack_copier.h"
#include "../util/strbuf.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

double own_cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* V8WALK_STATS=1: how the caches behaved (for tuning the cost of a sample). */
void print_ptrace_cache_stats(FILE *out, const struct sampler *s)
{
	const struct stackwalk *sw = s->sw;
	fprintf(out, "v8walk: caches: functions %lu hits %lu misses; call-site names %lu hits %lu "
		     "misses; root-map types %lu hits; code %lu hits %lu scans %lu stale; decoded tables %lu hits %lu new %lu replaced\n",
		sw->funcs.hits, sw->funcs.misses, sw->callsites.hits, sw->callsites.misses,
		sw->map_types.hits, sw->positions.codes.hits, sw->positions.codes.scans, sw->positions.codes.stale,
		sw->positions.decoded_hits, sw->positions.decoded_new, sw->positions.decoded_replaced);
	fprintf(out, "v8walk: frame memo: %lu hits (%lu then decoded: another receiver map) %lu misses (%lu "
		     "expired); %lu kept, %lu dropped (unvalidated); %lu generation turns; of the misses, by "
		     "what they run: %lu found (%lu running other code by then), %lu not\n",
		sw->memo.hits, sw->memo.other_receiver, sw->memo.misses, sw->memo.expired, sw->memo.kept,
		sw->memo.dropped, sw->memo.turns, sw->memo.anchored_hits, sw->memo.anchor_changed,
		sw->memo.anchored_misses);
	const struct sampler_stats *st = &s->st;
	fprintf(out, "v8walk: validation: %lu decodes read beyond their batches, %lu objects re-read, %lu changed\n",
		st->validation.runs, st->validation.checked, st->validation.changed);
	double n = st->pauses.n ? (double)st->pauses.n : 1.0;
	fprintf(out, "v8walk: a stop on average: registers %.1f us, stack copy %.1f us; after it, "
		     "unwind %.1f us, the frames' objects %.1f us\n",
		(double)st->regs_ns / n / 1e3, (double)st->stack_ns / n / 1e3,
		(double)st->unwind_ns / n / 1e3, (double)st->objects_ns / n / 1e3);
}

void print_run_summary(FILE *out, const struct run_stats *st)
{
	double secs = (double)(st->end_ns - st->start_ns) / 1e9;
	double cpu = own_cpu_seconds();
	unsigned long errors = st->truncated + st->missed + st->malformed;
	double total = (double)(st->samples + st->missed);
	struct strbuf line;
	sb_init(&line);
	sb_printf(&line, "v8walk: %lu samples in %.1f s (%.1f/s", st->samples, secs,
		  secs > 0 ? (double)st->samples / secs : 0.0);
	if (st->pauses)
		sb_printf(&line, " over %lu ticks, %zu threads seen)", st->ticks, st->threads);
	else
		sb_printf(&line, ", %s; %zu processes, %zu threads seen)", st->sampler, st->processes,
			  st->threads);
	if (!st->pauses)
		sb_printf(&line, "; %lu (%.1f%%) waiting for a CPU", st->waited,
			  st->samples ? 100.0 * (double)st->waited / (double)st->samples : 0.0);
	if (st->stopped)
		sb_printf(&line, "; %lu (%.1f%%) of threads stopped by a tracer or a signal",
			  st->stopped,
			  st->samples ? 100.0 * (double)st->stopped / (double)st->samples : 0.0);
	if (st->gc_slept)
		sb_printf(&line, "; %lu (%.1f%%) of a main thread asleep in a GC", st->gc_slept,
			  st->samples ? 100.0 * (double)st->gc_slept / (double)st->samples : 0.0);
	if (st->slept)
		sb_printf(&line, "; %lu (%.1f%%) of a main thread asleep elsewhere (--v8-self: V8's profiler "
			  "samples it there)", st->slept,
			  st->samples ? 100.0 * (double)st->slept / (double)st->samples : 0.0);
	if (st->v8_discarded)
		sb_printf(&line, "; %lu left out as V8's profiler leaves them (--v8-self: the pc where a "
			  "frame is set up or torn down)", st->v8_discarded);
	if (st->stale_waits)
		sb_printf(&line, "; %lu %s for a CPU not counted (the thread had run since it was "
			  "switched out, by the kernel's count)", st->stale_waits,
			  st->stale_waits == 1 ? "wait" : "waits");
	if (st->late)
		sb_printf(&line, "; %lu (%.1f%%) ticks that came while a stop was on its way (the thread "
			  "waited for a CPU; its stop stands for them)", st->late,
			  st->samples ? 100.0 * (double)st->late / (double)st->samples : 0.0);
	sb_printf(&line, "; %lu with JS frames; errors %lu (%.1f%%: %lu truncated, %lu %s)",
		  st->samples - st->no_js, errors, total > 0 ? 100.0 * (double)errors / total : 0.0,
		  st->truncated, st->missed, st->missed_as);
	if (st->pauses) {
		const struct histogram *h = st->pauses;
		sb_printf(&line, "; pause median %.0f us, p99 %.0f us, max %.0f us (%.1f reads per "
			  "sample, %.1f while stopped)", (double)histogram_quantile(h, 0.5) / 1e3,
			  (double)histogram_quantile(h, 0.99) / 1e3, (double)h->max_ns / 1e3,
			  st->samples > st->late ? (double)st->reads / (double)(st->samples - st->late) : 0.0,
			  h->n ? (double)st->stop_reads / (double)h->n : 0.0);
		const struct histogram *m = st->main_pauses;
		if (m && m->n && m->n != h->n)
			sb_printf(&line, "; the main thread's pause median %.0f us, p99 %.0f us, max %.0f us",
				  (double)histogram_quantile(m, 0.5) / 1e3,
				  (double)histogram_quantile(m, 0.99) / 1e3, (double)m->max_ns / 1e3);
		if (m && m->n)
			sb_printf(&line, "; the main thread's stops %.1f ms in all from request to resume "
				  "(%.2f%% of the run)", (double)st->main_stops_ns / 1e6,
				  secs > 0 ? 100.0 * (double)st->main_stops_ns / 1e9 / secs : 0.0);
	}
	sb_printf(&line, "; max lag %.1f ms; v8walk CPU %.1f%%\n", (double)st->max_lag_ns / 1e6,
		  secs > 0 ? 100.0 * cpu / secs : 0.0);
	fprintf_text(out, "%s", line.s);
	sb_free(&line);
	if (st->async_sites)
		fprintf(out, "v8walk: async: %lu samples resumed from the microtask queue: %lu with the "
			     "chain awaiting them (%lu async frames), %lu whose chain a GC moved and %lu whose "
			     "chain ran on before it was read (one frame says so instead)\n",
			st->async_sites, st->async_chains, st->async_frames, st->async_moved,
			st->async_changed);
}

void print_steady_state(FILE *out, double reads_per_sample, double stopped_reads, double cpu_percent,
			double cpu_us_per_sample)
{
	fprintf(out, "v8walk: steady state (second half): %.1f reads per sample", reads_per_sample);
	if (stopped_reads >= 0)
		fprintf(out, " (%.1f while stopped)", stopped_reads);
	fprintf(out, "; v8walk CPU %.1f%% (%.0f us per sample)\n", cpu_percent, cpu_us_per_sample);
}

void print_ptrace_notes(FILE *out, const struct sampler *s)
{
	const struct sampler_stats *st = &s->st;
	const struct sampler_mark *h = &st->half, *e = &st->end;
	if (h->taken && e->taken && e->samples > h->samples && e->time_ns > h->time_ns) {
		double n = (double)(e->samples - h->samples), stops = (double)(e->stops - h->stops);
		print_steady_state(out, (double)(e->reads - h->reads) / n,
				   stops > 0 ? (double)(e->stop_reads - h->stop_reads) / stops : 0.0,
				   100.0 * (double)(e->cpu_ns - h->cpu_ns) / (double)(e->time_ns - h->time_ns),
				   (double)(e->cpu_ns - h->cpu_ns) / n / 1e3);
	}
	if (st->unvalidated)
		fprintf(out, "v8walk: %lu samples had JS frames that a GC moved before they were named "
			     "(shown as such, not guessed)\n",
			st->unvalidated);
	if (st->cut)
		fprintf(out, "v8walk: %lu stops ended at the --stop-limit-us limit before the stack was "
			     "copied (the target's threads held its memory-map lock: mapping or unmapping); "
			     "those samples were dropped (counted missed); the longest wait for a copy "
			     "was %.0f us\n",
			st->cut, (double)st->stack_max_ns / 1e3);
	const struct stack_copier_stats *ks = s->copier ? stack_copier_stats(s->copier) : NULL;
	if (ks && ks->noticed_late)
		fprintf(out, "v8walk: %lu stops outlasted the limit by up to %.0f us: v8walk did not run "
			     "when it passed (its CPU held by its own copying helper or by other work)\n",
			ks->noticed_late, (double)ks->noticed_late_max_ns / 1e3);
	const struct switch_copy *k = &s->kcopy;
	if (k->on) {
		unsigned long by_v8walk = st->pauses.n > st->kernel_copies ? st->pauses.n - st->kernel_copies : 0;
		unsigned long known = k->st.no_record + k->st.busy;
		fprintf(out, "v8walk: stacks copied by the kernel as each thread stopped: %lu of %lu stops "
			     "(%lu as it switched out once before its stop; by v8walk: %lu without a record, "
			     "%lu while the ring still held the last stop's, %lu of threads without an event)\n",
			st->kernel_copies, st->pauses.n, k->st.earlier, k->st.no_record, k->st.busy,
			by_v8walk > known ? by_v8walk - known : 0);
	} else if (st->pauses.n) {
		fprintf(out, "v8walk: stacks copied by v8walk (process_vm_readv, which waits while the "
			     "target's threads map or unmap memory): %s\n", k->why_off);
	}
	const struct tracer *tr = s->tr;
	if (tr->rings_open + tr->threads_blind < tr->threads_seen)
		fprintf(out, "v8walk: whether a thread runs was read from /proc at each tick for %lu of %lu "
			     "threads (without its context-switch records: %s)\n",
			tr->threads_seen - tr->rings_open - tr->threads_blind, tr->threads_seen, tr->ring_why);
	if (tr->threads_blind) {
		struct rlimit l;
		bool full = tr->blind_errno == EMFILE && getrlimit(RLIMIT_NOFILE, &l) == 0 &&
			    l.rlim_cur != RLIM_INFINITY;
		fprintf(out, "v8walk: %lu of %lu threads were never sampled: whether they run could not be "
			     "read (no context-switch records, and their /proc stat file: %s",
			tr->threads_blind, tr->threads_seen, strerror(tr->blind_errno));
		if (full)
			fprintf(out, "; v8walk holds up to 4 descriptors a thread and may open %llu: "
				     "raise the hard limit, ulimit -Hn",
				(unsigned long long)l.rlim_cur);
		fputs(")\n", out);
	}
	if (s->copier_why)
		fprintf(out, "v8walk: stops are not limited (--stop-limit-us): %s\n", s->copier_why);
	if (st->behind)
		fprintf_text(out, "v8walk: fell behind the sampling schedule %lu times; results may be "
			     "skewed: try a lower --rate\n",
			st->behind);
	if (st->target_exited)
		print_exit_status(out, "the target", true, st->exit_status);
}

void print_exit_status(FILE *out, const char *who, bool known, int status)
{
	if (known && WIFEXITED(status))
		fprintf_text(out, "v8walk: %s exited (status %d)\n", who, WEXITSTATUS(status));
	else if (known && WIFSIGNALED(status))
		fprintf_text(out, "v8walk: %s was killed by signal %d\n", who, WTERMSIG(status));
	else
		fprintf_text(out, "v8walk: %s exited\n", who);
}

void print_limits(FILE *out, pid_t pid, const struct perfmap *pm, const struct script_cache *scripts,
		  const struct intern *strings)
{
	if (pm && pm->cut)
		fprintf_text(out, "v8walk: the perf map of process %d was cut after %llu bytes and %zu "
			     "lines (v8walk's bound): code named only by its later lines stays "
			     "unnamed\n", (int)pid, (unsigned long long)pm->parsed, pm->n);
	if (scripts && (scripts->budget_refusals || scripts->budget_flushes))
		fprintf_text(out, "v8walk: the line tables of process %d's scripts reached their budget "
			     "(%zu MiB): %lu positions were left without a line, and the tables were "
			     "rebuilt %lu times\n", (int)pid, scripts->line_budget >> 20,
			     scripts->budget_refusals, scripts->budget_flushes);
	if (strings && strings->refused)
		fprintf_text(out, "v8walk: the table of names reached its budget (%zu MiB): %lu later "
			     "names show as \"%s\"\n", strings->max_bytes >> 20, strings->refused,
			     INTERN_OVERFLOW_NAME);
}
