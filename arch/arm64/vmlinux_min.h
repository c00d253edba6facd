/* vmlinux_min.h (arm64) — the few kernel types the eBPF program (bpf/bpf_sampler.bpf.c) uses, by
 * hand, for a build that cannot read an arm64 kernel's BTF (cross-compiling on x86-64; a native
 * arm64 build generates vmlinux.h from /sys/kernel/btf/vmlinux as x86-64 does). The structures are
 * marked preserve_access_index: the loader relocates each field access against the running
 * kernel's BTF by name (CO-RE), so only names and types matter here, not offsets. The UAPI
 * values (map types, flags) are the kernel's ABI. */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
enum { false = 0, true = 1 };

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

/* bpf_ringbuf_output/submit's flags and bpf_ringbuf_query's question */
enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
};

struct bpf_pidns_info {
	__u32 pid;
	__u32 tgid;
};

struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};

typedef struct user_pt_regs bpf_user_pt_regs_t;

struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			u64 regs[31];
			u64 sp;
			u64 pc;
			u64 pstate;
		};
	};
	u64 orig_x0;
	s32 syscallno;
	u32 unused2;
} __attribute__((preserve_access_index));

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live;
} __attribute__((preserve_access_index));

struct sched_info {
	unsigned long pcount;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int __state;
	struct sched_info sched_info;
	int pid;
	char comm[16];
	struct signal_struct *signal;
	int exit_code;
} __attribute__((preserve_access_index));

#endif
