/* diagnose_bpf.c — turning a failed eBPF start into a cause the user can act on. */
#include "diagnose_bpf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../sampling/diagnose.h"

static int sysctl_int(const char *path, int unknown)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return unknown;
	int v = unknown;
	if (fscanf(f, "%d", &v) != 1)
		v = unknown;
	fclose(f);
	return v;
}

void gather_bpf_facts(double rate_hz, struct bpf_facts *f)
{
	memset(f, 0, sizeof(*f));
	struct confinement c;
	confinement_gather(&c);
	f->cap_bpf = c.cap_bpf;
	f->cap_perfmon = c.cap_perfmon;
	f->cap_sys_admin = c.cap_sys_admin;
	f->container = c.container;
	f->seccomp_filter = c.seccomp_filter;
	f->root = c.root;
	f->unprivileged_bpf_disabled = sysctl_int("/proc/sys/kernel/unprivileged_bpf_disabled", -1);
	f->perf_event_paranoid = sysctl_int("/proc/sys/kernel/perf_event_paranoid", -9);
	f->max_sample_rate = sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	f->rate_hz = rate_hz;
	own_executable(f->self_exe, sizeof(f->self_exe));
}

static bool refused(int err)
{
	return err == EPERM || err == EACCES;
}

/* In a container, a refused bpf() or perf_event_open: what it lacks, the flags that give it; false
 * when v8walk runs in no container or the refusal is not about what a container withholds. */
static bool container_refusal(const struct bpf_facts *f, int err, const char *call,
			      struct strbuf *out)
{
	bool seccomp = f->seccomp_filter && !f->cap_sys_admin && (refused(err) || err == ENOSYS);
	/* capabilities a container withheld from root, not a user's own lack of them */
	unsigned caps = f->cap_sys_admin || !f->root
				? 0
				: (f->cap_perfmon ? 0 : NEED_PERFMON) | (f->cap_bpf ? 0 : NEED_BPF);
	if (!f->container || !(refused(err) || err == ENOSYS) || !(seccomp || caps))
		return false;
	sb_add(out, "eBPF sampling is refused in this container: ");
	if (caps)
		sb_printf(out, "it lacks %s", caps == (NEED_PERFMON | NEED_BPF) ? "CAP_BPF and CAP_PERFMON"
					      : caps == NEED_BPF                ? "CAP_BPF"
										: "CAP_PERFMON");
	if (seccomp)
		sb_printf(out, "%sits seccomp profile refuses %s (a runtime's default allows it only with "
			       "CAP_SYS_ADMIN)",
			  caps ? ", and " : "", call);
	sb_add(out, "; ");
	container_flags_advice(caps | (seccomp ? NEED_SECCOMP : 0), out);
	return true;
}

bool explain_bpf_failure(const struct bpf_failure *fail, const struct bpf_facts *f,
			 struct strbuf *out)
{
	bool may_bpf = f->cap_sys_admin || (f->cap_bpf && f->cap_perfmon);
	switch (fail->stage) {
	case BPF_STAGE_NOT_BUILT:
		sb_add(out, "this v8walk was built without the eBPF sampler (V8WALK_BPF=no, or no kernel "
			    "BTF on the build machine); rebuild it with V8WALK_BPF=yes on a kernel with "
			    "CONFIG_DEBUG_INFO_BTF");
		return false;
	case BPF_STAGE_BTF:
		sb_add(out, "eBPF sampling needs the kernel's BTF type information "
			    "(/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF=y), which this kernel lacks");
		return false;
	case BPF_STAGE_LOAD:
		if (container_refusal(f, fail->err, "bpf()", out))
			return true;
		if (refused(fail->err) && !may_bpf) {
			sb_printf(out, "eBPF sampling needs root, or CAP_BPF and CAP_PERFMON");
			if (f->unprivileged_bpf_disabled > 0)
				sb_printf(out, " (kernel.unprivileged_bpf_disabled is %d)",
					  f->unprivileged_bpf_disabled);
			sb_add(out, "; run v8walk with sudo, or give it the capabilities: ");
			sb_add_setcap(out, f->self_exe);
			return true;
		}
		sb_printf(out, "the kernel refused to load v8walk's eBPF program (%s); "
			       "V8WALK_BPF_DEBUG=1 shows the verifier's log",
			  strerror(fail->err));
		return false;
	case BPF_STAGE_PERF_EVENT:
		if (container_refusal(f, fail->err, "perf_event_open", out))
			return true;
		if (refused(fail->err)) {
			sb_printf(out, "the kernel refused the cpu-clock perf events (%s): "
				       "kernel.perf_event_paranoid is %d; run v8walk as root or with "
				       "CAP_PERFMON: ",
				  strerror(fail->err), f->perf_event_paranoid);
			sb_add_setcap(out, f->self_exe);
			return true;
		}
		if (fail->err == EINVAL && f->max_sample_rate > 0 && f->rate_hz > f->max_sample_rate) {
			sb_printf(out, "--rate %g is above kernel.perf_event_max_sample_rate (%d)",
				  f->rate_hz, f->max_sample_rate);
			return false;
		}
		sb_printf(out, "cannot open cpu-clock perf events for eBPF sampling (%s)",
			  strerror(fail->err));
		return false;
	case BPF_STAGE_ATTACH:
		sb_printf(out, "the kernel refused to attach v8walk's eBPF program (%s); it needs "
			       "Linux 5.17 or later (BTF tracepoints, bpf_loop)",
			  strerror(fail->err));
		return false;
	case BPF_STAGE_LOOP_WAITS:
		sb_printf(out, "--stalls watches the event loop through the kernel's system-call "
			       "tracepoints (sys_enter, sys_exit), which it refused (%s): it needs "
			       "CONFIG_HAVE_SYSCALL_TRACEPOINTS",
			  strerror(fail->err));
		return false;
	}
	sb_printf(out, "eBPF sampling is unavailable (%s)", strerror(fail->err));
	return false;
}

bool diagnose_bpf(const struct bpf_failure *fail, double rate_hz, struct strbuf *out)
{
	struct bpf_facts f;
	gather_bpf_facts(rate_hz, &f);
	return explain_bpf_failure(fail, &f, out);
}
