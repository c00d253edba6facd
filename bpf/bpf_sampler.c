/* bpf_sampler.c — loading the eBPF sampler through its skeleton, one cpu-clock perf event per
 * CPU, the target filter map and the ring buffer. */
#include "../util/text_escape.h"
#include "bpf_sampler.h"

#include "../util/clock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../util/loop_wait.h"
#include "../util/xalloc.h"
#include "bpf_sampler.skel.h"

enum { PROC_PID_INIT_INO = 0xEFFFFFFCu };

struct bpf_sampler {
	struct v8w_bpf *skel;
	struct bpf_link *exec_link, *exit_link, *switch_link;
	struct bpf_link *sys_enter_link, *sys_exit_link; /* --stalls: libuv's loop waits */
	struct bpf_link **links; /* per CPU */
	int *event_fds;
	int ncpus;
	struct ring_buffer *rb;
	bpf_record_fn fn;
	void *ctx;
	uint64_t consume_until; /* monotonic ns after which a consume returns (0: no limit) */
};

/* libbpf's own messages only with V8WALK_BPF_DEBUG=1: v8walk explains failures itself */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!getenv("V8WALK_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct bpf_sampler *b = ctx;
	if (size < sizeof(struct v8w_record))
		return 0;
	const struct v8w_record *rec = data;
	size_t mem_len = size - sizeof(*rec);
	if (rec->mem_len < mem_len)
		mem_len = rec->mem_len;
	int rc = b->fn(b->ctx, rec, (const uint8_t *)data + sizeof(*rec), mem_len);
	/* this record is handled; past the time the caller gave, the rest waits in the ring
	 * buffer (libbpf stops on a negative return, after this record) */
	if (rc >= 0 && b->consume_until && now_ns() > b->consume_until)
		return -EAGAIN;
	return rc;
}

/* v8walk's pid namespace, when it is not the initial one (samples then carry its pids). */
static void set_pidns(struct v8w_bpf *skel)
{
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) != 0 || st.st_ino == PROC_PID_INIT_INO)
		return;
	skel->rodata->use_pidns = true;
	skel->rodata->pidns_dev = (uint64_t)st.st_dev;
	skel->rodata->pidns_ino = (uint64_t)st.st_ino;
}

/* One cpu-clock event per online CPU, each running the program; false with *fail set. */
static bool open_cpu_events(struct bpf_sampler *b, const struct bpf_sampler_config *cfg,
			    struct bpf_failure *fail)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	/* ticks_per_period ticks a period, one in as many kept (bpf_sampler.h) */
	attr.sample_period = bpf_sampler_period_ns(cfg) / bpf_sampler_ticks_per_period(cfg);
	int opened = 0;
	for (int cpu = 0; cpu < b->ncpus; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			*fail = (struct bpf_failure){BPF_STAGE_PERF_EVENT, errno};
			return false;
		}
		b->event_fds[cpu] = fd;
		b->links[cpu] = bpf_program__attach_perf_event(b->skel->progs.v8w_sample, fd);
		if (!b->links[cpu]) {
			*fail = (struct bpf_failure){BPF_STAGE_ATTACH, errno};
			return false;
		}
		opened++;
	}
	if (!opened)
		*fail = (struct bpf_failure){BPF_STAGE_PERF_EVENT, ENODEV};
	return opened > 0;
}

struct bpf_sampler *bpf_sampler_open(const struct bpf_sampler_config *cfg, bpf_record_fn fn,
				     void *ctx, struct bpf_failure *fail)
{
	memset(fail, 0, sizeof(*fail));
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		fail->stage = BPF_STAGE_BTF;
		fail->err = errno;
		return NULL;
	}
	libbpf_set_print(libbpf_print);
	struct bpf_sampler *b = xcalloc(1, sizeof(*b));
	b->fn = fn;
	b->ctx = ctx;
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0)
		b->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	b->links = xcalloc((size_t)b->ncpus, sizeof(*b->links));
	b->event_fds = xcalloc((size_t)b->ncpus, sizeof(*b->event_fds));
	for (int i = 0; i < b->ncpus; i++)
		b->event_fds[i] = -1;

	fail->stage = BPF_STAGE_LOAD;
	b->skel = v8w_bpf__open();
	if (!b->skel) {
		fail->err = errno;
		goto fail;
	}
	b->skel->rodata->top_bytes = cfg->top_bytes;
	b->skel->rodata->kernel_stacks = cfg->kernel_stacks;
	b->skel->rodata->period_ns = bpf_sampler_period_ns(cfg);
	b->skel->rodata->keep_one_in = bpf_sampler_ticks_per_period(cfg);
	b->skel->rodata->waits = !cfg->on_cpu_only;
	b->skel->rodata->stall_ns = cfg->stall_ns;
	bpf_program__set_autoload(b->skel->progs.v8w_sys_enter, cfg->stall_ns != 0);
	bpf_program__set_autoload(b->skel->progs.v8w_sys_exit, cfg->stall_ns != 0);
	set_pidns(b->skel);
	int err = v8w_bpf__load(b->skel);
	if (err) {
		fail->err = -err;
		goto fail;
	}
	fail->stage = BPF_STAGE_ATTACH;
	b->exec_link = bpf_program__attach(b->skel->progs.v8w_exec);
	b->exit_link = bpf_program__attach(b->skel->progs.v8w_exit);
	/* the time a target thread waits for a CPU (sampled as ptrace and V8 sample it); with
	 * --stalls, a main thread's sleeps inside a stall */
	bool switches = !cfg->on_cpu_only || cfg->stall_ns;
	b->switch_link = switches ? bpf_program__attach(b->skel->progs.v8w_switch) : NULL;
	if (!b->exec_link || !b->exit_link || (switches && !b->switch_link)) {
		fail->err = errno;
		goto fail;
	}
	if (cfg->stall_ns) {
		b->sys_enter_link = bpf_program__attach(b->skel->progs.v8w_sys_enter);
		b->sys_exit_link = bpf_program__attach(b->skel->progs.v8w_sys_exit);
		if (!b->sys_enter_link || !b->sys_exit_link) {
			fail->stage = BPF_STAGE_LOOP_WAITS;
			fail->err = errno;
			goto fail;
		}
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.records), on_record, b, NULL);
	if (!b->rb) {
		fail->err = errno;
		goto fail;
	}
	if (!open_cpu_events(b, cfg, fail))
		goto fail;
	memset(fail, 0, sizeof(*fail));
	return b;
fail:
	bpf_sampler_close(b);
	return NULL;
}

int bpf_sampler_loop_busy(struct bpf_sampler *b, pid_t tgid, uint64_t since_ns)
{
	uint32_t key = (uint32_t)tgid;
	struct v8w_loop l = {.busy_since = since_ns};
	if (bpf_map__update_elem(b->skel->maps.loops, &key, sizeof(key), &l, sizeof(l), BPF_NOEXIST) != 0)
		return -errno;
	return 0;
}

int bpf_sampler_add_target(struct bpf_sampler *b, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;
	uint8_t one = 1;
	if (bpf_map__update_elem(b->skel->maps.targets, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY) != 0)
		return -errno;
	return 0;
}

void bpf_sampler_remove_target(struct bpf_sampler *b, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;
	bpf_map__delete_elem(b->skel->maps.targets, &key, sizeof(key), 0);
}

int bpf_sampler_fd(const struct bpf_sampler *b)
{
	return ring_buffer__epoll_fd(b->rb);
}

int bpf_sampler_consume(struct bpf_sampler *b, uint64_t budget_ns)
{
	b->consume_until = budget_ns ? now_ns() + budget_ns : 0;
	return ring_buffer__consume(b->rb);
}

void bpf_sampler_counters(const struct bpf_sampler *b, struct bpf_sampler_counts *out)
{
	*out = (struct bpf_sampler_counts){0};
	struct v8w_counters *per_cpu = xcalloc((size_t)b->ncpus, sizeof(*per_cpu));
	uint32_t key = 0;
	if (bpf_map__lookup_elem(b->skel->maps.counters, &key, sizeof(key), per_cpu,
				 (size_t)b->ncpus * sizeof(*per_cpu), 0) == 0) {
		for (int i = 0; i < b->ncpus; i++) {
			out->samples += per_cpu[i].samples;
			out->lost += per_cpu[i].lost;
			out->stale += per_cpu[i].stale;
		}
	}
	free(per_cpu);
}

void bpf_sampler_close(struct bpf_sampler *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->ncpus; i++) {
		bpf_link__destroy(b->links[i]);
		if (b->event_fds[i] >= 0)
			close(b->event_fds[i]);
	}
	bpf_link__destroy(b->sys_enter_link);
	bpf_link__destroy(b->sys_exit_link);
	bpf_link__destroy(b->exec_link);
	bpf_link__destroy(b->exit_link);
	bpf_link__destroy(b->switch_link);
	ring_buffer__free(b->rb);
	v8w_bpf__destroy(b->skel);
	free(b->links);
	free(b->event_fds);
	free(b);
}
