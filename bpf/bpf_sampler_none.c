/* bpf_sampler_none.c — the eBPF sampler's interface in a build without it (V8WALK_BPF=no, or
 * no kernel BTF on the build machine): opening reports BPF_STAGE_NOT_BUILT, so `--mode bpf`
 * says why it is unavailable; the other calls are never reached without an open sampler. */
#include "bpf_sampler.h"

#include <errno.h>
#include <string.h>

struct bpf_sampler *bpf_sampler_open(const struct bpf_sampler_config *cfg, bpf_record_fn fn,
				     void *ctx, struct bpf_failure *fail)
{
	(void)cfg, (void)fn, (void)ctx;
	fail->stage = BPF_STAGE_NOT_BUILT;
	fail->err = ENOTSUP;
	return NULL;
}

int bpf_sampler_add_target(struct bpf_sampler *b, pid_t tgid)
{
	(void)b, (void)tgid;
	return -ENOTSUP;
}

void bpf_sampler_remove_target(struct bpf_sampler *b, pid_t tgid)
{
	(void)b, (void)tgid;
}

int bpf_sampler_fd(const struct bpf_sampler *b)
{
	(void)b;
	return -1;
}

int bpf_sampler_consume(struct bpf_sampler *b, uint64_t budget_ns)
{
	(void)b;
	(void)budget_ns;
	return -ENOTSUP;
}

void bpf_sampler_counters(const struct bpf_sampler *b, struct bpf_sampler_counts *out)
{
	(void)b;
	*out = (struct bpf_sampler_counts){0};
}

void bpf_sampler_close(struct bpf_sampler *b)
{
	(void)b;
}
