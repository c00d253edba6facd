/* switch_copy.h — a stopped thread's stack as the kernel copied it at the instant the thread
 * switched out into its ptrace stop, so that no stop waits for the target's memory-map lock.
 *
 * A stack copied with process_vm_readv needs the target's mmap lock for reading; while the
 * target's own threads hold it for writing (V8's workers unmapping pages after a GC), the copy
 * waits and the thread stays stopped for milliseconds (bench/floor_probe.c's longest stops: the
 * physical floor of a ptrace sample that copies the stack itself). The kernel can copy the stack in
 * the thread's own context, where no lock is taken: a software perf event on the thread
 * (PERF_COUNT_SW_CONTEXT_SWITCHES, sample period 1, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
 * enabled for exactly one record (PERF_EVENT_IOC_REFRESH 1) just before PTRACE_INTERRUPT writes its
 * user registers and the stack above sp (copy_from_user with page faults off: never sleeps) into a
 * ring buffer as the thread switches out into the stop. PTRACE_GETREGS, made next, waits for the
 * thread to be off its CPU, so the record is there by then. The record is the thread's registers
 * and stack at one instant between the arming and the stop: normally the stop itself; when the
 * thread switched out once before it was interrupted (preempted, or gone to sleep) and ran on,
 * that earlier switch — as true a sample of the thread, taken a little sooner (its registers are
 * the record's, never the stop's). Where there is no record (perf events not allowed:
 * kernel.perf_event_paranoid above 1 without CAP_PERFMON; --stack-copy read; a ring the kernel
 * could not write to), the sampler copies the stack itself, as before.
 *
 * The target pays the copy inside its stop (what process_vm_readv cost it before, minus pinning
 * pages); each sampled thread holds one event and a 68 KiB ring; closing v8walk closes them. */
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
	unsigned long no_record;  /* the stop came without a record (ring busy, event gone) */
	unsigned long open_failed; /* a thread whose event could not be made (its stops copied by the sampler) */
};

struct switch_ring; /* one thread's event and ring */

struct switch_copy {
	bool on;              /* records are asked for */
	char why_off[192];    /* why not, for the summary ("" when on) */
	pid_t pid;
	uint32_t stack_bytes; /* asked per record (the kernel may copy less: its record size limit) */
	size_t page_size;
	struct switch_ring *rings;
	size_t nrings, cap;
	uint8_t *scratch; /* a record that wraps around its ring's end, made contiguous */
	struct switch_copy_stats st;
};

/* The largest stack_bytes a record may ask (perf's sample_stack_user limit, USHRT_MAX rounded
 * down to 8: the record's own size field is 16 bits). */
enum { SWITCH_COPY_MAX_STACK = 65528 };

/* Try the event on pid's main thread: on when it can be made (want false: off, "not asked"). */
void switch_copy_init(struct switch_copy *k, pid_t pid, size_t stack_bytes, bool want);
void switch_copy_free(struct switch_copy *k);
/* Before tid is asked to stop: its event armed for one record (its ring made the first time).
 * false: its stop will have no record. */
bool switch_copy_arm(struct switch_copy *k, pid_t tid, uint64_t now_ns);
/* tid is stopped and off its CPU (after PTRACE_GETREGS, whose sp and ip are given to tell a
 * record of the stop from one of an earlier switch): the registers and stack the kernel copied as
 * it switched out since it was armed — out->stack ([regs sp, + stack_len)) may be in a scratch
 * buffer, valid until the next take or arm. */
bool switch_copy_take(struct switch_copy *k, pid_t tid, uint64_t stop_sp, uint64_t stop_ip,
		      struct switch_record *out);
/* The threads that exited (alive says no): their events and rings are closed. */
void switch_copy_keep(struct switch_copy *k, bool (*alive)(void *ctx, pid_t tid), void *ctx);

#endif
