/* bpf_procs.h — the processes an eBPF run samples, by tgid: each with its own address space, V8,
 * stack walker, perf map, sample walker (bpf/sample_walk.h) and thread labels, opened when the
 * process is added (or, in launch mode, when its execve is reported), closed at its exit. */
#ifndef V8WALK_BPF_PROCS_H
#define V8WALK_BPF_PROCS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample_walk.h"
#include "../symtab/perfmap.h"
#include "../sampling/cpu_share.h"
#include "../util/intern.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "../sourcemap/store.h"
#include "../walker/thread_labels.h"
#include "../sampling/target.h"

enum proc_state {
	PROC_WAIT_EXEC, /* launched, not (yet) running node: samples are dropped */
	PROC_READY,
	PROC_UNUSABLE,  /* could not be opened */
	PROC_EXITED,
};

struct bpf_proc {
	pid_t pid;
	enum proc_state state;
	bool open;            /* tg, sw, pm, walker and labels are set up */
	struct live_target tg;
	struct stackwalk sw;
	struct perfmap pm;
	struct sample_walker walker;
	struct thread_labels labels;
	uint32_t name;        /* interned comm */
	uint32_t container;   /* struct sample's: 0 or 1 + interned short container id */
	bool exit_known;
	int exit_status;      /* wait status, when exit_known */
	unsigned long samples;
	struct cpu_mark run_mark;    /* its CPU time and samples when sampling it began */
	struct cpu_mark period_mark; /* the same at the start of the current --period */
	struct cpu_mark end_mark;    /* and when sampling ended */
	char why_not[256];    /* PROC_WAIT_EXEC: why the last program it ran could not be sampled */
	bool exec_seen;       /* launched: it called execve (V8 may still be mapped later) */
	uint64_t last_try_ns; /* when opening it was last tried */
	struct sm_store sourcemaps; /* unless --no-source-maps; its summary is printed at close */
	bool sourcemaps_quiet;
};

struct bpf_procs {
	struct bpf_proc **v;
	size_t n, cap;
	struct u64map by_pid; /* pid → index + 1 */
	struct intern *strings;
	struct target_opts to;
	struct image_share images; /* one node binary's ELF image for all its processes */
};

void bpf_procs_init(struct bpf_procs *ps, struct intern *strings, const struct target_opts *to);
void bpf_procs_free(struct bpf_procs *ps);
struct bpf_proc *bpf_procs_find(const struct bpf_procs *ps, pid_t pid);
/* Open a process for sampling (the checks of every live mode: it exists, it is node, its V8 is
 * supported); false with the reason in *why. */
bool bpf_procs_add(struct bpf_procs *ps, pid_t pid, struct strbuf *why);
/* A launched child that has not called execve yet. */
struct bpf_proc *bpf_procs_add_waiting(struct bpf_procs *ps, pid_t pid);
/* The process called execve: open it as it is now; false (and waiting for another execve, with
 * the reason in why_not) when the new program is not node. */
bool bpf_proc_exec(struct bpf_procs *ps, struct bpf_proc *p);
/* The process ended: release what it held (its samples stay in the profile). */
void bpf_proc_exited(struct bpf_proc *p, bool status_known, int status);
/* Processes not yet exited. */
size_t bpf_procs_alive(const struct bpf_procs *ps);

#endif
