/* periodic_output.c — SIGUSR1 snapshots and --period files over one aggregation. */
#include "periodic_output.h"

#include <stdio.h>

#include "../export/ch_export.h"
#include "modes.h"
#include "output_name.h"

void periodic_output_init(struct periodic_output *po, const struct options *o, struct profile *prof,
			  const struct stop_signals *sig, describe_fn describe, void *ctx,
			  uint64_t start_ns)
{
	*po = (struct periodic_output){.o = o, .prof = prof, .sig = sig, .describe = describe,
				       .describe_ctx = ctx, .usr1_done = sig ? sig->usr1 : 0,
				       .period_ns = (uint64_t)(o->period_s * 1e9),
				       .period_start_ns = start_ns, .period_start_wall = time(NULL),
				       .seq = 1};
}

/* Write the aggregation as it is (the period's or the run's samples up to end_ns). The
 * description is taken off again so that the next write starts from the samples alone. With
 * --export, a period's end (not a SIGUSR1 snapshot) also hands it to the exporter, and the files
 * are written only when -o was given. */
static void write_now(struct periodic_output *po, uint64_t end_ns, bool period_end)
{
	struct profile *p = po->prof;
	/* a period's share check, where there are periods (--period, or --export's one period);
	 * a run without them is checked once, over the run */
	if (period_end && po->check && (po->period_ns || po->o->exporter)) {
		struct strbuf note;
		sb_init(&note);
		po->check(po->describe_ctx, po->seq, &note);
		if (po->o->exporter)
			ch_export_period(po->o->exporter, p, po->period_start_wall, note.s);
		sb_free(&note);
	} else if (po->o->exporter && period_end) {
		ch_export_period(po->o->exporter, p, po->period_start_wall, "");
	}
	if (po->o->exporter && !po->o->output)
		return;
	size_t nmodules = p->nmodules;
	po->describe(po->describe_ctx, po->o, p, po->period_start_ns, end_ns);
	struct output_fields f = {.seq = po->seq, .start = po->period_start_wall};
	if (write_profile_fields(po->o, p, po->period_ns ? &f : NULL) != 0)
		po->rc = 1;
	po->files++;
	p->nmodules = nmodules;
	p->meta = (struct profile_meta){0};
}

/* The period ended at `now`: its file, then an empty aggregation for the next one. */
static void next_period(struct periodic_output *po, uint64_t now)
{
	write_now(po, now, true);
	struct intern *strings = po->prof->strings;
	enum line_mode lines = po->prof->lines;
	profile_free(po->prof);
	profile_init(po->prof, strings, lines);
	po->seq++;
	po->period_start_ns = now;
	po->period_start_wall = time(NULL);
}

bool periodic_output_due(void *ctx, uint64_t now)
{
	struct periodic_output *po = ctx;
	if (po->period_ns && now - po->period_start_ns >= po->period_ns)
		next_period(po, now);
	if (po->sig && po->sig->usr1 != po->usr1_done) {
		po->usr1_done = po->sig->usr1;
		/* top without -o: stdout is the view, not a profile's place; --export without -o
		 * writes no files */
		if ((po->o->top || po->o->exporter) && !po->o->output)
			return false;
		write_now(po, now, false);
		if (!po->o->quiet)
			fprintf(stderr, "v8walk: SIGUSR1: wrote the %s so far (%lu samples)\n",
				po->period_ns ? "period" : "profile", (unsigned long)po->prof->samples);
	}
	return false;
}

int periodic_output_finish(struct periodic_output *po, uint64_t end_ns)
{
	/* a period that had just begun when the run ended adds an empty file only if it is the
	 * only one */
	if (!po->period_ns || po->prof->samples || !po->files)
		write_now(po, end_ns, true);
	return po->rc;
}
