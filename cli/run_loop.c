/* run_loop.c — the sampling loop both samplers run in. */
#include "run_loop.h"

#include <poll.h>
#include <signal.h>
#include <time.h>

#include "../util/clock.h"

void run_loop(const struct sampler_backend *b, double duration_s, struct stop_signals *stop,
	      struct live_hooks *lh)
{
	const struct sampler_backend_ops *ops = b->ops;
	uint64_t start = now_ns();
	uint64_t deadline = duration_s > 0 ? start + (uint64_t)(duration_s * 1e9) : 0;
	uint64_t hook_ns = live_hooks_interval_ns(lh->po.o);
	uint64_t next_hook = start + hook_ns;
	bool fd_ready = false;
	ops->start(b->ctx, start, deadline);
	for (;;) {
		uint64_t wake = ops->step(b->ctx, now_ns(), fd_ready);
		if (wake == 0) /* no target left */
			break;
		uint64_t now = now_ns();
		if (deadline && now >= deadline)
			break;
		if (now >= next_hook) {
			if (live_hooks_due(lh, now)) /* the user quit `top` */
				break;
			next_hook = now + hook_ns;
		}
		if (next_hook < wake)
			wake = next_hook;
		if (deadline && deadline < wake)
			wake = deadline;
		uint64_t left = wake > now ? wake - now : 0;
		struct timespec ts = {(time_t)(left / 1000000000ULL), (long)(left % 1000000000ULL)};
		struct pollfd p[2] = {{.fd = ops->wait_fd(b->ctx), .events = POLLIN},
				      {.fd = stop->fd, .events = POLLIN}};
		fd_ready = false;
		if (ppoll(p, 2, &ts, NULL) <= 0)
			continue;
		fd_ready = p[0].revents & POLLIN;
		/* SIGUSR1 and SIGWINCH are counted here and answered by the hooks */
		if ((p[1].revents & POLLIN) && stop_signals_check(stop))
			break;
	}
	ops->end(b->ctx);
}
