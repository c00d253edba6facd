/* sample_record.h — what the eBPF sampler hands to user space through its ring buffer, shared by
 * the kernel program (bpf_sampler.bpf.c) and the loader (bpf_sampler.c). A sample carries the thread's
 * user registers and the stack memory the walker will read: the top of the user stack, and for
 * every frame of the frame-pointer chain the V8 frame slots around its frame pointer
 * (fp-64 .. fp+24: context/marker, function, bytecode array and offset, saved fp, return
 * address, receiver), plus a little memory above the outermost frame (glibc's start-up frames). That memory
 * is a sequence of ranges, each `struct v8w_range` followed by its bytes padded to 8. Heap objects
 * are read later from the live process. */
#ifndef V8WALK_SAMPLE_RECORD_H
#define V8WALK_SAMPLE_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "arch_defs.h"

enum {
	V8W_MEM_MAX = 16384,       /* captured stack bytes per sample, range headers included */
	V8W_MEM_SLACK = 4096 + 128, /* lets the verifier see every write stay in bounds */
	V8W_KSTACK_MAX = 64,       /* kernel return addresses per sample */
	V8W_MAX_FP_FRAMES = 160,   /* frame-pointer steps taken in the kernel */
	V8W_SLOTS_BELOW_FP = 64,   /* V8's fixed frame slots lie below fp */
	V8W_SLOTS_ABOVE_FP = 24,   /* saved fp, return address, receiver */
	V8W_TAIL_BYTES = 1024,     /* memory above the outermost frame-pointer frame */
	V8W_USER_REGS = ARCH_BPF_USER_REGS, /* the head of pt_regs: the user registers */
	V8W_PAGE = 4096,
	V8W_PARKED_MAX = 256,      /* target threads whose wait for a CPU is followed at once */
	V8W_MAX_WEIGHT = 100000,   /* sampling periods one record stands for, at most */
};

enum v8w_record_type {
	V8W_REC_SAMPLE = 1,
	V8W_REC_EXEC = 2, /* a target called execve (its address space is new) */
	V8W_REC_EXIT = 3, /* the last thread of a target exited */
	V8W_REC_STALL = 4, /* --stalls: a target's main thread came back to its event loop's wait
			    * after a loop iteration of stall_ns or more (time_ns: when the
			    * iteration began; stall_ns: how long it ran; no stack) */
};

enum v8w_range_kind {
	V8W_RANGE_TOP = 1,   /* from the stack pointer up */
	V8W_RANGE_FRAME = 2, /* one frame's slots */
	V8W_RANGE_TAIL = 3,  /* above the outermost frame-pointer frame */
};

enum v8w_fp_end {
	V8W_FP_ZERO = 1,    /* the chain ended (saved fp or return address 0): a normal end */
	V8W_FP_INVALID = 2, /* the next fp was misaligned, below the last one, or far away */
	V8W_FP_FAULT = 3,   /* memory at a frame could not be read */
	V8W_FP_FULL = 4,    /* the record had no room for more frames */
	V8W_FP_DEPTH = 5,   /* V8W_MAX_FP_FRAMES reached */
};

enum v8w_flags {
	V8W_F_KERNEL_MODE = 1, /* the sample interrupted the thread in the kernel */
	V8W_F_TOP_SHORT = 2,   /* the top-of-stack copy ended at unreadable memory */
	V8W_F_WAITED = 4,      /* taken when the thread was switched out still runnable (preempted):
				* it stands for `weight` sampling periods spent waiting for a CPU */
	V8W_F_SLEPT = 8,       /* with V8W_F_WAITED: taken when a main thread went to sleep (not in
				* its event loop's wait); user space keeps it only if the stack is
				* inside V8's collector (the main thread waiting for its helpers) */
	V8W_F_STALL = 16,      /* --stalls: taken while the main thread's loop iteration had run
				* for stall_ns or more (stall_start: when it began); with
				* V8W_F_WAITED, `weight` periods of that stall spent off a CPU */
	V8W_F_UNWAKEABLE = 32, /* with V8W_F_SLEPT: a sleep a signal does not interrupt
				* (uninterruptible) */
	V8W_F_STOPPED = 64,    /* with V8W_F_WAITED: taken when the thread was stopped (a
				* debugger's or another profiler's stop, SIGSTOP): its time stopped
				* and its wait for a CPU after are counted as a preemption's */
};

struct v8w_range {
	__u64 addr;
	__u32 len;  /* bytes that follow (then padding to a multiple of 8) */
	__u32 kind; /* enum v8w_range_kind */
};

struct v8w_record {
	__u32 type; /* enum v8w_record_type */
	__u32 tgid, tid;
	__u32 cpu;
	__u64 time_ns;
	__u32 flags;     /* enum v8w_flags */
	__s32 exit_code; /* V8W_REC_EXIT: wait status */
	char comm[16];
	__u64 regs[V8W_USER_REGS];
	__u32 nkernel;   /* entries of kstack in use */
	__u32 mem_len;   /* bytes of ranges after the record */
	__u32 fp_frames; /* frame-pointer frames the kernel followed */
	__u32 fp_end;    /* enum v8w_fp_end */
	__u32 weight;    /* sampling periods the record stands for (0 or 1: one; V8W_F_WAITED: more) */
	__u32 reserved;
	__u64 stall_start; /* V8W_F_STALL samples: when the stalled loop iteration began */
	__u64 stall_ns;    /* V8W_REC_STALL: how long the iteration ran */
	__u64 kstack[V8W_KSTACK_MAX];
};

/* State of the kernel's frame-pointer walk (kept in the scratch map, not sent). */
struct v8w_fp_walk {
	__u64 off;            /* write offset in mem */
	__u64 fp, floor;      /* next frame pointer; the lowest address it may have */
	__u64 top_lo, top_hi; /* the top-of-stack copy: frames inside it need no range */
	__u64 last;           /* last frame pointer read */
	__u64 link[2];        /* saved fp and return address of the current frame */
};

/* Per-CPU scratch the kernel fills before one ring-buffer copy of header + mem_len bytes. */
struct v8w_sample {
	struct v8w_record rec;
	__u8 mem[V8W_MEM_MAX + V8W_MEM_SLACK];
	struct v8w_fp_walk walk;
};

/* --stalls: where a target's main thread is in its event loop (kept per target in the kernel) */
struct v8w_loop {
	__u64 busy_since; /* when it left its loop's wait (0: in the wait, or not seen leave it) */
	__u64 owed;       /* off-CPU time of the current stall not yet sent as samples (ns) */
	__u64 parked;     /* when it went off a CPU inside the current stall (0: on one) */
};

struct v8w_counters {
	__u64 samples; /* records written */
	__u64 lost;    /* records dropped: ring buffer full (user space fell behind) */
	__u64 stale;   /* waits not counted: their thread had run since it was parked */
};

/* A target thread's stack as it was when it was last switched out still runnable, and the time
 * it has waited for a CPU since and not yet been sampled for (kept per thread in the kernel). */
struct v8w_parked {
	__u64 since; /* when it was switched out runnable, or asleep (V8W_F_SLEPT); 0: it has run since */
	__u64 owed;  /* waiting time not yet sent as samples (ns), less than a period */
	__u64 owed_asleep; /* the same for the sleeps of a main thread (V8W_F_SLEPT) */
	__u64 arrivals; /* the kernel's count of the thread's switches onto a CPU when it was parked */
	struct v8w_sample s;
};

#endif
