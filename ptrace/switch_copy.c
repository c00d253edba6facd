/* switch_copy.c — the stack a thread's switch into its ptrace stop copied (switch_copy.h). */
#include "switch_copy.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../util/fd_room.h"
#include "../util/xalloc.h"
#include "perf_ring.h"
#include "perf_why.h"

/* the ring's data: 64 KiB hold the newest record, of at most 65,535 bytes (its size field is 16
 * bits: the kernel cuts the stack to fit), which is all that is read. Per sampled thread, with the
 * control page: 68 KiB of memory that counts against perf_event_mlock_kb for a user without
 * CAP_IPC_LOCK. */
enum { RING_DATA_BYTES = 64 << 10 };

struct switch_ring {
	pid_t tid;
	int fd;
	struct perf_ring ring;
	bool armed;         /* the ring is open for the stop asked for after armed_ns */
	uint64_t armed_ns;
	bool lent;          /* its newest record is lent to a sample: the ring stays shut until it is
			     * given back (opened, the kernel would write over it) */
};

static int open_event(const struct switch_copy *k, pid_t tid)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.sample_regs_user = SWITCH_REGS_MASK,
		.sample_stack_user = k->stack_bytes,
		.clockid = CLOCK_MONOTONIC,
		.disabled = 1,
		.use_clockid = 1,
		.exclude_hv = 1,
		.write_backward = 1, /* the newest record at data_head, over the oldest */
	};
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void close_ring(struct switch_ring *r)
{
	perf_ring_unmap(&r->ring);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* The event and ring of tid; -errno when either cannot be made (*r untouched then). */
static int open_ring(const struct switch_copy *k, pid_t tid, struct switch_ring *r)
{
	int fd = fd_below(open_event(k, tid), k->fd_ceiling);
	if (fd < 0)
		return -errno;
	size_t pages = 1; /* a power of two, as perf requires */
	while (pages * k->page_size < RING_DATA_BYTES)
		pages <<= 1;
	/* read-only: the kernel overwrites what was read or not (no data_tail) */
	struct perf_ring ring;
	int err = perf_ring_map(&ring, fd, pages, k->page_size);
	if (err) {
		close(fd);
		return err;
	}
	/* the ring stays shut but for the stops asked for; the event counts from now on */
	if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		err = errno;
		perf_ring_unmap(&ring);
		close(fd);
		return -err;
	}
	*r = (struct switch_ring){.tid = tid, .fd = fd, .ring = ring};
	return 0;
}

void switch_copy_init(struct switch_copy *k, pid_t pid, size_t stack_bytes, const char *why_not)
{
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	long ps = sysconf(_SC_PAGESIZE);
	k->page_size = ps > 0 ? (size_t)ps : 4096;
	if (stack_bytes > SWITCH_COPY_MAX_STACK)
		stack_bytes = SWITCH_COPY_MAX_STACK;
	k->stack_bytes = (uint32_t)(stack_bytes & ~(size_t)7);
	k->fd_ceiling = fd_ceiling(64); /* the last 64 for v8walk's own files */
	if (why_not) {
		snprintf(k->why_off, sizeof(k->why_off), "%s", why_not);
		return;
	}
	struct switch_ring r;
	int err = open_ring(k, pid, &r);
	if (err) {
		perf_why(k->why_off, sizeof(k->why_off), -err, "the kernel refused a context-switch perf event");
		return;
	}
	XGROW(k->rings, k->cap, 1);
	k->rings[k->nrings++] = r;
	k->on = true;
}

void switch_copy_free(struct switch_copy *k)
{
	for (size_t i = 0; i < k->nrings; i++)
		close_ring(&k->rings[i]);
	free(k->rings);
	memset(k, 0, sizeof(*k));
}

static struct switch_ring *ring_of(struct switch_copy *k, pid_t tid)
{
	for (size_t i = 0; i < k->nrings; i++)
		if (k->rings[i].tid == tid)
			return &k->rings[i];
	return NULL;
}

/* Close ring i (the last takes its place). */
static void drop_ring(struct switch_copy *k, size_t i)
{
	close_ring(&k->rings[i]);
	k->rings[i] = k->rings[--k->nrings];
}

void switch_copy_keep(struct switch_copy *k, bool (*alive)(void *ctx, pid_t tid), void *ctx)
{
	for (size_t i = k->nrings; i-- > 0;)
		if (!k->rings[i].lent && !alive(ctx, k->rings[i].tid))
			drop_ring(k, i);
}


/* Let the kernel write to the ring (true), or not: a flag of the ring, no call to the thread's
 * CPU, which enabling the event takes (tens of microseconds on a VM). */
static bool ring_open(struct switch_ring *r, bool open)
{
	return ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, open ? 0 : 1) == 0;
}

bool switch_copy_arm(struct switch_copy *k, pid_t tid, uint64_t now_ns)
{
	if (!k->on)
		return false;
	struct switch_ring *r = ring_of(k, tid);
	if (!r) {
		struct switch_ring fresh;
		if (open_ring(k, tid, &fresh) != 0) {
			k->st.open_failed++;
			return false;
		}
		XGROW(k->rings, k->cap, k->nrings + 1);
		r = &k->rings[k->nrings++];
		*r = fresh;
	}
	if (r->lent) { /* a sample still needs its last record: this stop is copied by the sampler */
		k->st.busy++;
		return false;
	}
	if (!ring_open(r, true)) {
		r->armed = false;
		return false;
	}
	r->armed = true;
	r->armed_ns = now_ns;
	k->st.armed++;
	return true;
}

bool switch_copy_take(struct switch_copy *k, pid_t tid, uint64_t stop_sp, uint64_t stop_ip,
		      struct switch_take *out)
{
	struct switch_ring *r = k->on ? ring_of(k, tid) : NULL;
	if (!r || !r->armed)
		return false;
	r->armed = false;
	ring_open(r, false);
	struct switch_ring_view v = {.data = r->ring.data, .size = r->ring.data_size};
	memset(out, 0, sizeof(*out));
	struct switch_record *rec = &out->rec;
	/* the newest record, of this thread since its ring was opened (not one left from before) */
	if (switch_ring_newest(&v, perf_ring_head(&r->ring), rec) != SWITCH_RECORD_SAMPLE || rec->tid != (uint32_t)tid ||
	    !rec->has_regs || rec->time_ns < r->armed_ns) {
		/* none (its thread is not the one of this tid any more — a reused tid —, or the event
		 * failed): the ring is made again at the next arm */
		k->st.no_record++;
		drop_ring(k, (size_t)(r - k->rings));
		return false;
	}
	if (rec->regs.r[REG_SP] != stop_sp || rec->regs.r[REG_PC] != stop_ip)
		k->st.earlier++;
	r->lent = true; /* the ring stays shut until the stack is copied out of it */
	k->st.taken++;
	return true;
}

void switch_copy_disarm(struct switch_copy *k, pid_t tid)
{
	struct switch_ring *r = k->on ? ring_of(k, tid) : NULL;
	if (r && r->armed) {
		ring_open(r, false);
		r->armed = false;
	}
}

void switch_copy_give_back(struct switch_copy *k, pid_t tid)
{
	struct switch_ring *r = ring_of(k, tid);
	if (r)
		r->lent = false;
}
