/* run_ring.c — a thread's newest context switch, read from its perf ring (run_ring.h). */
#include "run_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/fd_room.h"
#include "arch_defs.h"

void run_ring_none(struct run_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

bool run_rings_allowed(const char *release)
{
	unsigned major, minor;
	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2 || major > 255 || minor > 255)
		return true;
	return (int)(major << 16 | minor << 8) >= (int)ARCH_THREAD_PERF_EVENTS_FROM;
}

int run_ring_open(struct run_ring *r, pid_t tid, int fd_ceiling)
{
	run_ring_none(r);
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, /* counts nothing: its side-band records only */
		.context_switch = 1,
		.exclude_hv = 1,
		.write_backward = 1, /* newest at data_head, written over the oldest: never full */
	};
	int fd = fd_below((int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC), fd_ceiling);
	if (fd < 0)
		return -errno;
	long ps = sysconf(_SC_PAGESIZE);
	/* the control page and one data page: 512 records, of which the newest is read */
	int err = perf_ring_map(&r->ring, fd, 1, ps > 0 ? (size_t)ps : 4096);
	if (err) {
		close(fd);
		return err;
	}
	r->fd = fd;
	return 0;
}

void run_ring_close(struct run_ring *r)
{
	perf_ring_unmap(&r->ring);
	if (r->fd >= 0)
		close(r->fd);
	run_ring_none(r);
}

enum run_look run_ring_decode(const uint8_t *data, uint64_t size, uint64_t head, uint64_t last_head,
			      bool have_last)
{
	struct perf_event_header h;
	if (size < sizeof(h) || (size & (size - 1)))
		return RUN_UNKNOWN;
	/* a backward ring starts at 0 and its head goes down as records are written */
	if (!head)
		return have_last && !last_head ? RUN_UNSWITCHED : RUN_UNKNOWN;
	uint64_t off = head & (size - 1);
	if (off + sizeof(h) > size) /* records are 8-byte aligned: not one the kernel wrote */
		return RUN_UNKNOWN;
	memcpy(&h, data + off, sizeof(h));
	if (h.type != PERF_RECORD_SWITCH || h.size < sizeof(h))
		return RUN_UNKNOWN;
	if (!(h.misc & PERF_RECORD_MISC_SWITCH_OUT))
		return RUN_ON_CPU;
	if (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
		return RUN_PREEMPTED;
	return have_last && last_head == head ? RUN_UNSWITCHED : RUN_ASLEEP_MOVED;
}

enum run_look run_ring_look(struct run_ring *r)
{
	if (r->fd < 0)
		return RUN_UNKNOWN;
	uint64_t head = perf_ring_head(&r->ring);
	enum run_look look = run_ring_decode(r->ring.data, r->ring.data_size, head, r->seen_head, r->seen);
	/* the kernel writes below head: the record read is written over only after the ring has
	 * gone round once (512 switches) — then what was read is not trusted */
	uint64_t now = perf_ring_head(&r->ring);
	if (head - now >= r->ring.data_size - sizeof(struct perf_event_header))
		look = RUN_UNKNOWN;
	r->seen_head = head;
	r->seen = true;
	return look;
}
