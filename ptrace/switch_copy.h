/* switch_copy.h — a stopped thread's stack as the kernel copied it at the instant the thread
 * switched out into its ptrace stop, so that no stop waits for the target's memory-map lock.
 *
 * A stack copied with process_vm_readv needs the target's mmap lock for reading; while the
 * target's own threads hold it for writing (V8's workers unmapping pages after a GC), the copy
 * waits and the thread stays stopped for milliseconds (bench/floor_probe.c's longest stops: the
 * physical floor of a ptrace sample that copies the stack itself). The kernel can copy the stack in
 * the thread's own context, where no lock is taken: a software perf event on the thread
 * (PERF_COUNT_SW_CONTEXT_SWITCHES, sample period 1, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
 * writes its user registers and the stack above sp (copy_from_user with page faults off: never
 * sleeps) into a ring buffer each time the thread switches out — but only while the ring is open:
 * it is shut (PERF_EVENT_IOC_PAUSE_OUTPUT) but from just before PTRACE_INTERRUPT to the stop. The
 * ring is written backward over its oldest records (write_backward, mapped read-only), so the
 * newest, at data_head, is always whole, however often the thread switched in between.
 * Shutting and opening a ring is a flag, where enabling an event on a running thread is a call to
 * its CPU (PERF_EVENT_IOC_REFRESH took 4-60 us of v8walk's time on this VM, most of the CPU this
 * scheme added); a shut ring costs each switch of the thread the kernel's preparing a sample it
 * then drops (well under a microsecond). PTRACE_GETREGS, made after the stop, waits for the thread
 * to be off its CPU, so the stop's record is there by then. The newest record since the ring was
 * opened is the sample's registers and stack: the stop's (their sp and pc are the stop's: counted
 * if ever not). It stays in the ring, lent to the sample, until the sample has copied it out after
 * the thread runs again (switch_copy_give_back); before a thread is asked to stop again, the
 * sampler takes a record still lent out of the ring (ptrace/sampler.c: take_back_lent: on a
 * saturated machine the decode of a tick's samples can wait past the next tick, and a stop whose
 * ring still lent its record was copied by the sampler: measured at 999 Hz beside two spinning
 * processes, 2,814 of 2,917 stops); a ring still lent at a stop (busy) has that stop copied by the
 * sampler. Where there is no record
 * (perf events not allowed: kernel.perf_event_paranoid above 1 without CAP_PERFMON; --stack-copy
 * read), the sampler copies the stack itself, as before.
 *
 * The target pays the copy inside its stop (what process_vm_readv cost it before, minus pinning
 * pages); each sampled thread holds one event and a 68 KiB ring; closing v8walk closes them. A shut
 * ring costs each switch of its thread the kernel's preparing a sample it then drops. */
#ifndef V8WALK_SWITCH_COPY_H
#define V8WALK_SWITCH_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "switch_record.h"

/* Who copies a stopped thread's stack (--stack-copy): the kernel as the thread switches out into
 * its stop where perf events allow (auto), insisted on (kernel: the session refuses to start
 * without it), or v8walk with process_vm_readv (read). */
enum stack_copy_mode { STACK_COPY_AUTO, STACK_COPY_KERNEL, STACK_COPY_READ };

struct switch_copy_stats {
	unsigned long armed, taken;
	unsigned long earlier;    /* of those taken: of a switch before the stop (sp or pc not the stop's) */
	unsigned long busy;       /* stops asked for while the thread's last record was still lent */
	unsigned long no_record;  /* the stop came without a record (ring busy, event gone) */
	unsigned long open_failed; /* a thread whose event could not be made (its stops copied by the sampler) */
};

struct switch_ring; /* one thread's event and ring */

struct switch_copy {
	bool on;              /* records are asked for */
	char why_off[384];    /* why not, for the summary ("" when on) */
	pid_t pid;
	uint32_t stack_bytes; /* asked per record (the kernel may copy less: its record size limit) */
	size_t page_size;
	int fd_ceiling;       /* events are not kept at or above this descriptor (fd_room.h) */
	struct switch_ring *rings;
	size_t nrings, cap;
	struct switch_copy_stats st;
};

/* The largest stack_bytes a record asks: the record (SWITCH_RECORD_FIXED bytes besides the stack:
 * header, ids, time, the machine's user registers — 208 bytes with x86-64's 20, 312 with arm64's
 * 33 —, the two sizes) with the 24-byte count of dropped records the kernel writes before it fits
 * the 64 KiB ring (and the 16-bit size of a record): the kernel writes both in one piece, and a
 * piece larger than the ring overwrites its own start (the record at data_head is then garbage). */
enum { SWITCH_COPY_MAX_STACK = 65536 - 24 - SWITCH_RECORD_FIXED - 8 };

/* Try the event on pid's main thread: on when it can be made (why_not non-NULL: off, and why). */
void switch_copy_init(struct switch_copy *k, pid_t pid, size_t stack_bytes, const char *why_not);
void switch_copy_free(struct switch_copy *k);
/* Before tid is asked to stop: its ring opened (made the first time). false: its stop will have
 * no record. */
bool switch_copy_arm(struct switch_copy *k, pid_t tid, uint64_t now_ns);

/* A record taken: the registers, and the stack from their sp on, in the thread's ring (lent until
 * switch_copy_give_back). */
struct switch_take {
	struct switch_record rec;
};

/* tid is stopped and off its CPU (after PTRACE_GETREGS, whose sp and ip are given to count the
 * records of a switch before the stop): the newest record since it was armed, its ring shut and
 * the record lent. */
bool switch_copy_take(struct switch_copy *k, pid_t tid, uint64_t stop_sp, uint64_t stop_ip,
		      struct switch_take *out);
/* tid's ring shut when it is open (the thread was asked to stop, but its stop was not taken: the
 * ask failed, or the stop was resumed untouched), so that its switches are not written. */
void switch_copy_disarm(struct switch_copy *k, pid_t tid);
/* A lent record was copied out: the ring may be opened again. */
void switch_copy_give_back(struct switch_copy *k, pid_t tid);
/* The threads that exited (alive says no): their events and rings are closed. */
void switch_copy_keep(struct switch_copy *k, bool (*alive)(void *ctx, pid_t tid), void *ctx);

#endif
