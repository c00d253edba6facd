/* maps_refresh.c — rate-limited re-reading of /proc/PID/maps. */
#include "maps_refresh.h"

#include "../util/clock.h"

void maps_refresh_init(struct maps_refresh *r, uint64_t min_interval_ns)
{
	r->min_interval_ns = min_interval_ns;
	r->last_ns = 0;
	r->reloads = 0;
}

bool walk_left_known_code(const struct addrspace *as, const struct raw_frame *raw, int nraw)
{
	const struct mapping *m = NULL;
	for (int i = 0; i < nraw; i++) {
		m = maps_find_near(&as->maps, m, raw[i].pc);
		if (!m || !(m->prot & MAP_X))
			return true;
	}
	return false;
}

bool maps_refresh_now(struct maps_refresh *r, struct addrspace *as)
{
	uint64_t now = now_ns();
	if (r->last_ns && now - r->last_ns < r->min_interval_ns)
		return false;
	r->last_ns = now;
	if (addrspace_load_proc(as) != 0)
		return false;
	r->reloads++;
	return true;
}

bool maps_refresh_after_walk(struct maps_refresh *r, struct addrspace *as,
			     const struct raw_frame *raw, int nraw)
{
	return walk_left_known_code(as, raw, nraw) && maps_refresh_now(r, as);
}

int stackwalk_capture_fresh(struct stackwalk *sw, struct maps_refresh *r, const struct regset *regs,
			    struct memsrc *mem, const struct stack_bounds *bounds, struct frame *out,
			    int max, struct walk_stats *st)
{
	int n = stackwalk_capture(sw, regs, mem, bounds, out, max, st);
	if (maps_refresh_after_walk(r, sw->as, sw->raw, st->raw_frames))
		n = stackwalk_capture(sw, regs, mem, bounds, out, max, st);
	return n;
}

bool stack_bounds_known(const struct addrspace *as, uint64_t sp, struct stack_bounds *b)
{
	const struct mapping *m = maps_find(&as->maps, sp);
	if (!m)
		return false;
	b->lo = m->start;
	b->hi = m->end;
	return true;
}

bool stack_bounds_at(struct maps_refresh *r, struct addrspace *as, uint64_t sp,
		     struct stack_bounds *b)
{
	const struct mapping *m = maps_find(&as->maps, sp);
	if (!m && maps_refresh_now(r, as))
		m = maps_find(&as->maps, sp);
	if (!m)
		return false;
	b->lo = m->start;
	b->hi = m->end;
	return true;
}
