/* live_hooks.h — the periodic work of a sampling loop, in one callback for both samplers:
 * SIGUSR1 and --period files (periodic_output.h), and the `top` view when it is open. */
#ifndef V8WALK_LIVE_HOOKS_H
#define V8WALK_LIVE_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../sampling/backend.h"
#include "periodic_output.h"
#include "top_view.h"

struct live_hooks {
	struct periodic_output po;
	struct top_view tv;
	bool top;      /* tv is open */
	struct sampler_backend backend; /* whose statistics `top` shows */
};

/* Open `top` (o->top) over the run of backend b: its header shows b's statistics. */
void live_hooks_open_top(struct live_hooks *lh, const struct sampler_backend *b,
			 const char *title, const char *runtime, uint64_t start_ns);
/* Called from the loop (run_loop.h): true when the user quit `top`. */
bool live_hooks_due(struct live_hooks *lh, uint64_t now_ns);
/* How often the loop should call it. */
uint64_t live_hooks_interval_ns(const struct options *o);
/* The run ended at end_ns: close the view (the terminal given back), then write the profile
 * (`top` writes one only when -o was given). Returns 0 or 1. */
int live_hooks_finish(struct live_hooks *lh, uint64_t end_ns);

#endif
