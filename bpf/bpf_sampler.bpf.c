// SPDX-License-Identifier: GPL-2.0
/* bpf_sampler.bpf.c — v8walk's kernel side: on every cpu-clock tick of a target thread (the targets'
 * tgids are a hash map, so one program serves several processes), capture what user space needs
 * to run v8walk's own stack walker later — the user registers, the top of the user stack, the V8
 * frame slots of every frame on the frame-pointer chain, the memory above the outermost frame,
 * and optionally the kernel stack — and copy it to a ring buffer (the CPUs' ticks come a few
 * times a period and one in as many is kept at random: no fixed phase). The ticks see a thread
 * only while it runs: at sched_switch, a target thread switched out still runnable (preempted),
 * or stopped (another tracer's stop, SIGSTOP), has the same capture kept under its tid, and when
 * it runs again the time it waited goes out as that record, weighted by the sampling periods it
 * spans (ptrace and V8's own profiler count that time). A main thread that goes to sleep anywhere
 * but in its event loop's epoll wait is kept the same way, flagged: user space counts that time
 * only where the stack is inside V8's collector (the main thread waiting for its helpers, which
 * V8's profiler and the GC's own clock count as GC).
 * No target thread is ever stopped. Two tracepoints report execve and the exit of a
 * target. No sample wakes v8walk: it reads the ring at random intervals of its own, so that its
 * own running never keeps a fixed phase against the sampling timers of the CPUs (woken by one
 * CPU's tick, it ran on another CPU exactly when that one's tick came, every period, and the
 * target it had displaced there was all but never sampled). With --stalls, where records come
 * only in stalls and v8walk need not look often, the end of a stall wakes it, and so does a ring
 * filling up during a long one (wake_for). */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../util/loop_wait.h"
#include "bpf_regs.h"
#include "sample_record.h"

char LICENSE[] SEC("license") = "GPL";

/* set by the loader before load */
const volatile __u32 top_bytes = 8192;  /* how much of the stack above sp to copy */
const volatile bool kernel_stacks = false;
const volatile bool use_pidns = false; /* v8walk runs in a pid namespace: report its pids */
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;
const volatile __u64 period_ns = 10101010; /* the sampling period: 1 s / rate */
const volatile __u32 keep_one_in = 1;      /* the ticks of a period, of which one is kept at
					    * random (bpf_sampler.h) */
const volatile bool waits = true;          /* sample the time a target thread waits for a CPU */
const volatile __u64 stall_ns = 0;         /* --stalls: sample only main threads whose loop
					    * iteration has run this long (0: sample everything) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);  /* tgid as v8walk sees it */
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8w_sample);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8w_counters);
} counters SEC(".maps");

/* the target threads waiting for a CPU, and those that have waited (their remainder): LRU, so
 * that threads gone make room */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, V8W_PARKED_MAX);
	__type(key, __u32); /* tid in the initial pid namespace */
	__type(value, struct v8w_parked);
} parked SEC(".maps");

/* what a thread's first entry in `parked` is made from */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8w_parked);
} park_seed SEC(".maps");

/* How a record is put in the ring: without waking v8walk, except with --stalls when the ring
 * fills past a quarter (a long stall's samples) or for the record that ends a stall. */
#define WAKE_AT (4 << 20)
static __always_inline __u64 wake_for(bool ends_stall)
{
	if (!stall_ns)
		return BPF_RB_NO_WAKEUP;
	if (ends_stall || bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) > WAKE_AT)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* --stalls: each target's main thread and its event loop (tgid → where it is) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct v8w_loop);
} loops SEC(".maps");

#define MEM_MASK (V8W_MEM_MAX - 1)
#define FRAME_BYTES (V8W_SLOTS_BELOW_FP + V8W_SLOTS_ABOVE_FP)
#define RANGE_HDR ((__u32)sizeof(struct v8w_range))
/* frames are never this far apart on one stack */
#define MAX_FRAME_GAP (8ULL << 20)

/* The current thread's (tgid, tid) in v8walk's pid namespace. */
static __always_inline bool current_ids(__u32 *tgid, __u32 *tid)
{
	if (use_pidns) {
		struct bpf_pidns_info ns = {};
		if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
			return false;
		*tgid = ns.tgid;
		*tid = ns.pid;
		return true;
	}
	__u64 id = bpf_get_current_pid_tgid();
	*tgid = id >> 32;
	*tid = (__u32)id;
	return true;
}

static __always_inline void count(bool lost)
{
	__u32 zero = 0;
	struct v8w_counters *c = bpf_map_lookup_elem(&counters, &zero);
	if (!c)
		return;
	if (lost)
		c->lost++;
	else
		c->samples++;
}

/* Open a range at *off; returns the offset of its bytes, or -1 when `len` bytes will not fit. */
static __always_inline long range_open(struct v8w_sample *s, __u32 *off, __u64 addr, __u32 len,
				       __u32 kind)
{
	__u32 o = *off;
	if (o > V8W_MEM_MAX || V8W_MEM_MAX - o < RANGE_HDR + len)
		return -1;
	struct v8w_range *r = (void *)&s->mem[o & MEM_MASK];
	r->addr = addr;
	r->len = 0;
	r->kind = kind;
	return o + RANGE_HDR;
}

/* Close the range opened at `hdr` with `len` bytes written, and pad to 8. */
static __always_inline void range_close(struct v8w_sample *s, __u32 *off, __u32 hdr, __u32 len)
{
	struct v8w_range *r = (void *)&s->mem[hdr & MEM_MASK];
	r->len = len;
	*off = hdr + RANGE_HDR + ((len + 7) & ~7U);
}

/* Copy [addr, addr+len) page by page, stopping at the first page that cannot be read (the end
 * of the stack mapping, or a page that is not present). Returns the bytes copied. */
static __always_inline __u32 copy_user_pages(struct v8w_sample *s, __u32 *off, __u64 addr,
					     __u32 want, __u32 kind)
{
	__u32 hdr = *off;
	long data = range_open(s, off, addr, 8, kind);
	if (data < 0)
		return 0;
	/* 64-bit arithmetic throughout: the verifier tracks these bounds reliably */
	__u64 len = want, room = V8W_MEM_MAX - (__u64)data, done = 0;
	if (len > room)
		len = room;
	for (int i = 0; i < V8W_MEM_MAX / V8W_PAGE + 1; i++) {
		if (done >= len)
			break;
		__u64 at = addr + done;
		__u64 chunk = V8W_PAGE - (at & (V8W_PAGE - 1));
		if (chunk > len - done)
			chunk = len - done;
		barrier_var(chunk); /* keep the bound below visible to the verifier */
		if (chunk == 0 || chunk > V8W_PAGE)
			break;
		__u64 dst = ((__u64)data + done) & MEM_MASK;
		if (bpf_probe_read_user(&s->mem[dst], chunk, (const void *)at))
			break;
		done += chunk;
	}
	if (done == 0) {
		*off = hdr;
		return 0;
	}
	range_close(s, off, hdr, (__u32)done);
	return (__u32)done;
}

/* One step of the frame-pointer walk (ctx: the scratch sample, whose `walk` holds the state in
 * map memory, so that the verifier checks this callback once rather than per value): capture the
 * frame at walk.fp unless the top copy holds it, and move to its caller. Returns 1 to stop. */
static long fp_step(__u32 index, void *ctx)
{
	struct v8w_sample *s = *(struct v8w_sample **)ctx;
	struct v8w_fp_walk *w = &s->walk;
	struct v8w_record *rec = &s->rec;
	__u64 fp = w->fp;
	if (fp == 0) {
		rec->fp_end = V8W_FP_ZERO;
		return 1;
	}
	if ((fp & 7) || fp < w->floor || fp - w->floor > MAX_FRAME_GAP) {
		rec->fp_end = V8W_FP_INVALID;
		return 1;
	}
	__u64 lo = fp - V8W_SLOTS_BELOW_FP;
	if (lo >= w->top_lo && fp + V8W_SLOTS_ABOVE_FP <= w->top_hi) {
		if (bpf_probe_read_user(w->link, sizeof(w->link), (const void *)fp)) {
			rec->fp_end = V8W_FP_FAULT;
			return 1;
		}
	} else {
		__u64 o = w->off;
		/* room is kept for the memory above the outermost frame (glibc's start-up frames) */
		if (o > V8W_MEM_MAX - RANGE_HDR - FRAME_BYTES - RANGE_HDR - V8W_TAIL_BYTES) {
			rec->fp_end = V8W_FP_FULL;
			return 1;
		}
		struct v8w_range *r = (void *)&s->mem[o & MEM_MASK];
		r->addr = lo;
		r->len = FRAME_BYTES;
		r->kind = V8W_RANGE_FRAME;
		__u64 *slots = (void *)&s->mem[(o + RANGE_HDR) & MEM_MASK];
		if (bpf_probe_read_user(slots, FRAME_BYTES, (const void *)lo)) {
			rec->fp_end = V8W_FP_FAULT;
			return 1;
		}
		w->off = o + RANGE_HDR + FRAME_BYTES;
		w->link[0] = slots[V8W_SLOTS_BELOW_FP / 8];
		w->link[1] = slots[V8W_SLOTS_BELOW_FP / 8 + 1];
	}
	rec->fp_frames++;
	w->last = fp;
	if (w->link[1] == 0) {
		rec->fp_end = V8W_FP_ZERO;
		return 1;
	}
	w->floor = fp + 16;
	w->fp = w->link[0];
	return 0;
}

/* Fill s with what user space needs to walk the user stack of `task` (the current thread): its
 * user registers, the top of its stack, the frames of its frame-pointer chain and the memory
 * above the outermost one. False when its registers cannot be read. */
static __always_inline bool capture(struct v8w_sample *s, struct task_struct *task, __u32 tgid,
				    __u32 tid, __u64 now)
{
	struct v8w_record *rec = &s->rec;
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(task);

	rec->type = V8W_REC_SAMPLE;
	rec->tgid = tgid;
	rec->tid = tid;
	rec->cpu = bpf_get_smp_processor_id();
	rec->time_ns = now;
	rec->flags = 0;
	rec->exit_code = 0;
	rec->nkernel = 0;
	rec->fp_frames = 0;
	rec->fp_end = 0;
	rec->weight = 1;
	rec->reserved = 0;
	rec->stall_start = 0;
	rec->stall_ns = 0;
	BPF_CORE_READ_STR_INTO(&rec->comm, task, comm);
	if (bpf_probe_read_kernel(rec->regs, sizeof(rec->regs), uregs))
		return false;

	__u64 sp = V8W_UREGS_SP(uregs), fp = V8W_UREGS_FP(uregs);
	__u32 off = 0;
	__u32 want = top_bytes;
	__u32 got = copy_user_pages(s, &off, sp, want, V8W_RANGE_TOP);
	if (got < want)
		rec->flags |= V8W_F_TOP_SHORT;
	struct v8w_fp_walk *w = &s->walk;
	w->off = off;
	w->fp = fp;
	w->floor = sp;
	w->top_lo = sp;
	w->top_hi = sp + got;
	w->last = 0;
	rec->fp_end = V8W_FP_DEPTH;
	bpf_loop(V8W_MAX_FP_FRAMES, fp_step, &s, 0);
	off = w->off > V8W_MEM_MAX ? V8W_MEM_MAX : (__u32)w->off;
	__u64 last = w->last;
	/* glibc's start-up frames (no frame pointers) sit right above the outermost fp frame */
	if (last && last + 16 + V8W_TAIL_BYTES > sp + got)
		copy_user_pages(s, &off, last + 16, V8W_TAIL_BYTES, V8W_RANGE_TAIL);
	rec->mem_len = off;
	return true;
}

/* The bytes of a captured sample that go out: the record and its ranges. */
static __always_inline __u64 sample_size(const struct v8w_sample *s)
{
	/* the ranges' length bounded first, in the register the sum is made from: clang may
	 * otherwise compare mem_len and add to a copy made before, which the verifier cannot bound
	 * (it did with arm64's larger record) */
	__u64 len = s->rec.mem_len;
	if (len > sizeof(*s) - sizeof(s->rec))
		len = sizeof(*s) - sizeof(s->rec);
	barrier_var(len);
	return sizeof(s->rec) + len;
}

/* Is a thread in the kernel inside one of its loop's waits (util/loop_wait.h)? The system call
 * its user registers were saved for; a thread in user mode, or in the kernel for an interrupt or
 * a fault, has none. */
static __always_inline bool in_loop_wait_call(struct task_struct *t)
{
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(t);
	return syscall_is_loop_wait(V8W_UREGS_SYSCALL(uregs));
}

/* --stalls: is this a target's main thread whose loop iteration has run for stall_ns or more
 * (*start: when it began)? Not once it is back in its loop's wait: the iteration ended as the
 * call began, though the kernel can take a sample or preempt it on the way into the call, before
 * the call's tracepoint ends the iteration (loop_back_to_wait); nor in such a call of a loop
 * v8walk found outside its wait as it started (watch_loop) that was entering it then. */
static __always_inline bool in_stall(__u32 tgid, __u32 tid, __u64 now, __u64 *start,
				     struct task_struct *t, bool in_kernel)
{
	if (tid != tgid)
		return false;
	if (in_kernel && in_loop_wait_call(t))
		return false;
	struct v8w_loop *l = bpf_map_lookup_elem(&loops, &tgid);
	if (!l || !l->busy_since || now < l->busy_since || now - l->busy_since < stall_ns)
		return false;
	*start = l->busy_since;
	return true;
}

SEC("perf_event")
int v8w_sample(struct bpf_perf_event_data *ctx)
{
	__u32 tgid, tid, zero = 0;
	if (!current_ids(&tgid, &tid) || !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	if (keep_one_in > 1 && bpf_get_prandom_u32() % keep_one_in)
		return 0;
	__u64 now = bpf_ktime_get_ns(), stall_start = 0;
	if (stall_ns && !in_stall(tgid, tid, now, &stall_start, bpf_get_current_task_btf(),
				  V8W_CTX_IN_KERNEL(ctx)))
		return 0;
	struct v8w_sample *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	if (!capture(s, bpf_get_current_task_btf(), tgid, tid, now))
		return 0;
	struct v8w_record *rec = &s->rec;
	if (stall_ns) {
		rec->flags |= V8W_F_STALL;
		rec->stall_start = stall_start;
	}
	if (V8W_CTX_IN_KERNEL(ctx))
		rec->flags |= V8W_F_KERNEL_MODE;
	if (kernel_stacks && (rec->flags & V8W_F_KERNEL_MODE)) {
		long n = bpf_get_stack(ctx, rec->kstack, sizeof(rec->kstack), 0);
		rec->nkernel = n > 0 ? (__u32)n / 8 : 0;
	}
	bool lost = bpf_ringbuf_output(&records, s, sample_size(s), wake_for(false)) != 0;
	count(lost);
	return 0;
}

/* How many times the kernel has switched a thread onto a CPU (its scheduler statistics, as
 * /proc/TID/schedstat shows them; 0 on a kernel without them). At a switch the incoming thread's
 * count is raised after the tracepoint: a thread about to run again has the count it had when it
 * was switched out unless it ran in between. */
static __always_inline __u64 arrivals(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info))
		return 0;
	return BPF_CORE_READ(t, sched_info.pcount);
}

/* A thread about to run again after a wait for a CPU whose parked stack is older than its last
 * run (the kernel switched it onto a CPU since, and this program did not see that switch): what it
 * waited then is not known here, and the wait from the old stamp would count its runs and sleeps
 * since as a wait. */
static __always_inline bool parked_stale(struct v8w_parked *p, struct task_struct *next)
{
	if (arrivals(next) == p->arrivals)
		return false;
	__u32 zero = 0;
	struct v8w_counters *c = bpf_map_lookup_elem(&counters, &zero);
	if (c)
		c->stale++;
	return true;
}

/* A target thread switched out still runnable (preempted: it waits for a CPU, and cpu-clock
 * ticks do not see it), or a main thread gone to sleep (`flags` V8W_F_SLEPT): its stack is kept
 * under its tid, in the kernel, until it runs again. */
static __always_inline void park(struct task_struct *prev, __u64 now, __u32 tgid, __u32 tid,
				 __u32 flags)
{
	__u32 zero = 0;
	struct v8w_sample *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s || !capture(s, prev, tgid, tid, now))
		return;
	__u32 key = BPF_CORE_READ(prev, pid);
	struct v8w_parked *p = bpf_map_lookup_elem(&parked, &key);
	if (!p) {
		struct v8w_parked *seed = bpf_map_lookup_elem(&park_seed, &zero);
		if (!seed)
			return;
		seed->since = 0;
		seed->owed = 0;
		seed->owed_asleep = 0;
		bpf_map_update_elem(&parked, &key, seed, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&parked, &key);
		if (!p)
			return;
	}
	if (bpf_probe_read_kernel(&p->s, sample_size(s), s))
		return;
	p->s.rec.flags |= flags;
	p->arrivals = arrivals(prev);
	p->since = now;
}

/* A target's main thread going to sleep other than in its event loop's wait (a futex: waiting
 * for the collector's helpers, a lock, Atomics.wait; a page fault waiting for the memory map's
 * lock). */
static __always_inline bool main_thread_sleep(struct task_struct *prev, __u32 tgid, __u32 tid)
{
	if (tid != tgid)
		return false;
	return !in_loop_wait_call(prev);
}

/* A thread about to run again: the time it waited since it was parked is owed as samples, one per
 * sampling period (the remainder is kept for the next wait of its kind: waits for a CPU and
 * sleeps apart, as user space keeps a sleep only inside a collection), sent as one record of that
 * weight with the stack it waited in. */
static __always_inline void unpark(struct task_struct *next, __u64 now)
{
	__u32 key = BPF_CORE_READ(next, pid);
	struct v8w_parked *p = bpf_map_lookup_elem(&parked, &key);
	if (!p || !p->since)
		return;
	bool slept = p->s.rec.flags & V8W_F_SLEPT;
	/* (a sleep's stamp stays: it spans time off a CPU whatever the switches in between were, as
	 * --stalls' does) */
	if (!slept && parked_stale(p, next)) {
		p->since = 0;
		return;
	}
	__u64 owed = (slept ? p->owed_asleep : p->owed) + (now > p->since ? now - p->since : 0);
	p->since = 0;
	__u64 period = period_ns ? period_ns : 1;
	__u64 n = owed / period;
	if (slept)
		p->owed_asleep = owed - n * period;
	else
		p->owed = owed - n * period;
	if (n == 0)
		return;
	p->s.rec.weight = n > V8W_MAX_WEIGHT ? V8W_MAX_WEIGHT : (__u32)n;
	p->s.rec.flags |= V8W_F_WAITED;
	bool lost = bpf_ringbuf_output(&records, &p->s, sample_size(&p->s), wake_for(false)) != 0;
	count(lost);
}

/* --stalls: a main thread about to run again after a sleep inside its loop iteration: the part of
 * the sleep past the iteration's first stall_ns is owed as samples of the stall, sent as one
 * record of that weight with the stack it slept in (the remainder is kept for the stall's next
 * sleep). */
static __always_inline void unpark_stall(struct task_struct *next, __u64 now)
{
	__u32 key = BPF_CORE_READ(next, pid);
	struct v8w_parked *p = bpf_map_lookup_elem(&parked, &key);
	if (!p || !p->since)
		return;
	__u64 since = p->since;
	p->since = 0;
	__u32 tgid = p->s.rec.tgid;
	struct v8w_loop *l = bpf_map_lookup_elem(&loops, &tgid);
	if (!l || !l->busy_since || l->busy_since != p->s.rec.stall_start)
		return; /* the iteration it slept in has ended */
	__u64 from = l->busy_since + stall_ns;
	if (since > from)
		from = since;
	if (now <= from)
		return;
	__u64 period = period_ns ? period_ns : 1;
	__u64 owed = l->owed + (now - from), n = owed / period;
	l->owed = owed - n * period;
	if (n == 0)
		return;
	p->s.rec.weight = n > V8W_MAX_WEIGHT ? V8W_MAX_WEIGHT : (__u32)n;
	p->s.rec.flags |= V8W_F_WAITED;
	bool lost = bpf_ringbuf_output(&records, &p->s, sample_size(&p->s), wake_for(false)) != 0;
	count(lost);
}

/* --stalls: a target's main thread going to sleep inside a loop iteration (not in its loop's
 * wait: a synchronous system call, a lock, the collector's helpers), or preempted once the
 * iteration has run half the threshold, has its stack kept until it runs again, when the part of
 * that time that falls in a stall is counted (unpark_stall). (Preemptions early in an iteration
 * are not followed: following every one would cost each busy iteration of a loaded machine a
 * stack copy, and one that lasts past the threshold from there is rare.) */
static __always_inline void switch_stall(struct task_struct *prev, struct task_struct *next,
					 __u64 now)
{
	__u32 tgid, tid;
	if (current_ids(&tgid, &tid) && tid == tgid && bpf_map_lookup_elem(&targets, &tgid)) {
		struct v8w_loop *l = bpf_map_lookup_elem(&loops, &tgid);
		bool asleep = BPF_CORE_READ(prev, __state) != 0;
		if (l && l->busy_since && (asleep || now - l->busy_since >= stall_ns / 2) &&
		    !in_loop_wait_call(prev)) {
			park(prev, now, tgid, tid, V8W_F_STALL);
			__u32 key = BPF_CORE_READ(prev, pid);
			struct v8w_parked *p = bpf_map_lookup_elem(&parked, &key);
			if (p)
				p->s.rec.stall_start = l->busy_since;
		}
	}
	unpark_stall(next, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(v8w_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	if (stall_ns) {
		switch_stall(prev, next, now);
		return 0;
	}
	if (!waits)
		return 0;
	__u32 tgid, tid;
	if (current_ids(&tgid, &tid) && bpf_map_lookup_elem(&targets, &tgid)) {
		unsigned int state = BPF_CORE_READ(prev, __state);
		/* stopped (__TASK_STOPPED 4) or traced (__TASK_TRACED 8: a debugger's stop, or another
		 * profiler's): not a sleep of the program's; its time is the stack's where it stopped,
		 * as for ptrace and V8's own profiler (its signal is handled as the thread resumes), and
		 * so is the wait for a CPU once it is resumed, which no tick sees either */
		bool stopped = state & (4 | 8);
		if (state == 0) /* TASK_RUNNING: preempted, not sleeping */
			park(prev, now, tgid, tid, 0);
		else if (stopped)
			park(prev, now, tgid, tid, V8W_F_STOPPED);
		else if (main_thread_sleep(prev, tgid, tid)) /* TASK_INTERRUPTIBLE (1) is wakeable */
			park(prev, now, tgid, tid, V8W_F_SLEPT | ((state & 0xf) != 1 ? V8W_F_UNWAKEABLE : 0));
	}
	unpark(next, now);
	return 0;
}

/* A small record (no stack) reserved in the ring and filled but for what its type adds; the
 * caller submits it. NULL (counted lost) when the ring is full. */
static __always_inline struct v8w_record *small_record(__u32 type, __u32 tgid)
{
	struct v8w_record *rec = bpf_ringbuf_reserve(&records, sizeof(*rec), 0);
	if (!rec) {
		count(true);
		return NULL;
	}
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->tgid = tgid;
	rec->time_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(rec->comm, sizeof(rec->comm));
	return rec;
}

/* A record for execve and exit. */
static __always_inline void lifecycle(__u32 type, __u32 tgid, __s32 code)
{
	struct v8w_record *rec = small_record(type, tgid);
	if (!rec)
		return;
	rec->exit_code = code;
	bpf_ringbuf_submit(rec, BPF_RB_NO_WAKEUP);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(v8w_exec, struct task_struct *p)
{
	__u32 tgid, tid;
	if (!current_ids(&tgid, &tid) || !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	lifecycle(V8W_REC_EXEC, tgid, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(v8w_exit, struct task_struct *p)
{
	__u32 tgid, tid;
	if (!current_ids(&tgid, &tid) || !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	/* only the last thread of the process: signal->live has dropped to zero */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	lifecycle(V8W_REC_EXIT, tgid, BPF_CORE_READ(p, exit_code));
	/* a later process with the same pid is not a target */
	bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

/* --stalls: a target's main thread left its event loop's wait (an iteration begins) */
static __always_inline void loop_left_wait(void)
{
	__u32 tgid, tid;
	if (!current_ids(&tgid, &tid) || tid != tgid || !bpf_map_lookup_elem(&targets, &tgid))
		return;
	struct v8w_loop fresh = {.busy_since = bpf_ktime_get_ns()};
	bpf_map_update_elem(&loops, &tgid, &fresh, BPF_ANY);
}

/* --stalls: a target's main thread back in its loop's wait: an iteration of stall_ns or more is
 * reported (no stack: its samples went out while it ran) */
static __always_inline void loop_back_to_wait(void)
{
	__u32 tgid, tid;
	if (!current_ids(&tgid, &tid) || tid != tgid)
		return;
	struct v8w_loop *l = bpf_map_lookup_elem(&loops, &tgid);
	if (!l || !l->busy_since)
		return;
	__u64 now = bpf_ktime_get_ns(), began = l->busy_since;
	l->busy_since = 0;
	if (now < began || now - began < stall_ns)
		return;
	struct v8w_record *rec = small_record(V8W_REC_STALL, tgid);
	if (!rec)
		return;
	rec->tid = tid;
	rec->time_ns = began;
	rec->stall_ns = now - began;
	bpf_ringbuf_submit(rec, wake_for(true));
}

/* libuv's loop waits in one of the system calls util/loop_wait.h names. Attached only with
 * --stalls, to the kernel's own system-call tracepoints (raw, typed by BTF) rather than the
 * per-call ones, which exist only where tracefs is mounted (often not in a container, nor on a
 * host where nothing mounted it): every system call of the machine passes here while v8walk
 * watches, as it does through the per-call ones (they are built on these two). */
SEC("tp_btf/sys_enter")
int BPF_PROG(v8w_sys_enter, struct pt_regs *regs, long nr)
{
	if (syscall_is_loop_wait(nr))
		loop_back_to_wait();
	return 0;
}

/* the exit's tracepoint has the call's result, not its number: that is in the registers saved at
 * its entry (x86-64 orig_ax, arm64 syscallno) */
SEC("tp_btf/sys_exit")
int BPF_PROG(v8w_sys_exit, struct pt_regs *regs, long ret)
{
	if (syscall_is_loop_wait(V8W_UREGS_SYSCALL(regs)))
		loop_left_wait();
	return 0;
}
