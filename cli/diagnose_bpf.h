/* diagnose_bpf.h — why eBPF sampling is unavailable, in one line with the fix: built without it,
 * no kernel BTF, missing privileges (root, or CAP_BPF + CAP_PERFMON), a container's seccomp
 * profile and capabilities (with the flags that lift them), perf_event_paranoid, a rate above
 * perf_event_max_sample_rate, or another refusal by the kernel. */
#ifndef V8WALK_DIAGNOSE_BPF_H
#define V8WALK_DIAGNOSE_BPF_H

#include <stdbool.h>

#include "../bpf/bpf_sampler.h"
#include "../util/strbuf.h"

/* What decides whether eBPF sampling may run (gathered from /proc, or made up by tests). */
struct bpf_facts {
	bool cap_bpf, cap_perfmon, cap_sys_admin;
	bool container, seccomp_filter; /* v8walk runs in a container; under a seccomp filter */
	bool root;                      /* euid 0 */
	int unprivileged_bpf_disabled; /* -1 = unknown */
	int perf_event_paranoid;       /* -9 = unknown */
	int max_sample_rate;           /* kernel.perf_event_max_sample_rate, 0 = unknown */
	double rate_hz;                /* what was asked for */
	char self_exe[256];            /* v8walk's own file (for setcap) */
};

void gather_bpf_facts(double rate_hz, struct bpf_facts *f);
/* One line naming the cause and the fix; true when the cause is a missing privilege (root, or
 * CAP_BPF + CAP_PERFMON; perf_event_paranoid): EXIT_PERMISSION. */
bool explain_bpf_failure(const struct bpf_failure *fail, const struct bpf_facts *f,
			 struct strbuf *out);
/* gather + explain */
bool diagnose_bpf(const struct bpf_failure *fail, double rate_hz, struct strbuf *out);

#endif
