/* test_diagnose_bpf.c — every reason eBPF sampling cannot start gets its own message and fix. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../cli/diagnose_bpf.h"

static struct bpf_facts root(void)
{
	struct bpf_facts f;
	memset(&f, 0, sizeof(f));
	f.cap_bpf = f.cap_perfmon = f.cap_sys_admin = true;
	f.unprivileged_bpf_disabled = 2;
	f.perf_event_paranoid = 2;
	f.max_sample_rate = 100000;
	f.rate_hz = 99;
	strcpy(f.self_exe, "/opt/v8walk/bin/v8walk");
	return f;
}

static bool was_refused; /* what the last explain said: a missing privilege */

static char *explain(enum bpf_stage stage, int err, const struct bpf_facts *f)
{
	static struct strbuf b;
	sb_free(&b);
	struct bpf_failure fail = {stage, err};
	was_refused = explain_bpf_failure(&fail, f, &b);
	return b.s;
}

Test(diagnose_bpf, built_without_it)
{
	struct bpf_facts f = root();
	cr_assert(strstr(explain(BPF_STAGE_NOT_BUILT, ENOTSUP, &f), "built without the eBPF sampler"));
}

Test(diagnose_bpf, no_btf)
{
	struct bpf_facts f = root();
	cr_assert(strstr(explain(BPF_STAGE_BTF, ENOENT, &f), "/sys/kernel/btf/vmlinux"));
}

Test(diagnose_bpf, no_privileges)
{
	struct bpf_facts f = root();
	f.cap_bpf = f.cap_perfmon = f.cap_sys_admin = false;
	cr_assert_str_eq(explain(BPF_STAGE_LOAD, EPERM, &f),
			 "eBPF sampling needs root, or CAP_BPF and CAP_PERFMON "
			 "(kernel.unprivileged_bpf_disabled is 2); run v8walk with sudo, or give it the "
			 "capabilities: `sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep "
			 "/opt/v8walk/bin/v8walk`");
	cr_assert(was_refused, "a missing privilege: exit status 5");
	f.cap_bpf = true; /* CAP_BPF alone is not enough */
	cr_assert(strstr(explain(BPF_STAGE_LOAD, EPERM, &f), "needs root, or CAP_BPF and CAP_PERFMON"));
	f.cap_perfmon = true; /* with both, a refusal is the kernel's own */
	cr_assert(strstr(explain(BPF_STAGE_LOAD, EPERM, &f), "the kernel refused to load"));
	cr_assert_not(was_refused, "the verifier's refusal is not a privilege");
}

Test(diagnose_bpf, perf_events)
{
	struct bpf_facts f = root();
	f.perf_event_paranoid = 3;
	cr_assert(strstr(explain(BPF_STAGE_PERF_EVENT, EACCES, &f), "kernel.perf_event_paranoid is 3"));
	cr_assert(strstr(explain(BPF_STAGE_PERF_EVENT, EACCES, &f), "setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep /opt/v8walk/bin/v8walk"));
	cr_assert(was_refused);
	f.rate_hz = 200000;
	cr_assert_str_eq(explain(BPF_STAGE_PERF_EVENT, EINVAL, &f),
			 "--rate 200000 is above kernel.perf_event_max_sample_rate (100000)");
	f.rate_hz = 99;
	cr_assert(strstr(explain(BPF_STAGE_PERF_EVENT, ENOENT, &f), "cannot open cpu-clock perf events"));
	cr_assert_not(was_refused);
}

Test(diagnose_bpf, attach)
{
	struct bpf_facts f = root();
	cr_assert(strstr(explain(BPF_STAGE_ATTACH, EINVAL, &f), "5.17"));
}

/* root in a podman container with its default seccomp profile: no CAP_BPF, CAP_PERFMON or
 * CAP_SYS_ADMIN (read off the container tests here) */
Test(diagnose_bpf, container_default)
{
	struct bpf_facts f = root();
	f.cap_bpf = f.cap_perfmon = f.cap_sys_admin = false;
	f.container = f.seccomp_filter = f.root = true;
	cr_assert_str_eq(explain(BPF_STAGE_LOAD, EPERM, &f),
			 "eBPF sampling is refused in this container: it lacks CAP_BPF and CAP_PERFMON, and its "
			 "seccomp profile refuses bpf() (a runtime's default allows it only with CAP_SYS_ADMIN); "
			 "start it with --cap-add PERFMON,BPF --security-opt seccomp=unconfined (Kubernetes: "
			 "securityContext capabilities.add [PERFMON, BPF], seccompProfile.type Unconfined)");
	/* given the capabilities, the profile alone */
	f.cap_bpf = f.cap_perfmon = true;
	cr_assert_str_eq(explain(BPF_STAGE_LOAD, EPERM, &f),
			 "eBPF sampling is refused in this container: its seccomp profile refuses bpf() (a "
			 "runtime's default allows it only with CAP_SYS_ADMIN); start it with --security-opt "
			 "seccomp=unconfined (Kubernetes: securityContext seccompProfile.type Unconfined)");
	/* unconfined, without the capabilities */
	f.cap_bpf = f.cap_perfmon = false;
	f.seccomp_filter = false;
	cr_assert_str_eq(explain(BPF_STAGE_LOAD, EPERM, &f),
			 "eBPF sampling is refused in this container: it lacks CAP_BPF and CAP_PERFMON; start it "
			 "with --cap-add PERFMON,BPF (Kubernetes: securityContext capabilities.add [PERFMON, BPF])");
	/* the perf events' stage */
	f.cap_bpf = true;
	f.seccomp_filter = true;
	cr_assert(strstr(explain(BPF_STAGE_PERF_EVENT, EPERM, &f), "it lacks CAP_PERFMON, and its seccomp profile refuses perf_event_open"));
	/* a verifier's refusal in a container with everything is not about the container */
	f.cap_sys_admin = true;
	cr_assert(strstr(explain(BPF_STAGE_LOAD, EINVAL, &f), "V8WALK_BPF_DEBUG=1"));
	/* outside a container, the host's words */
	struct bpf_facts h = root();
	h.cap_bpf = h.cap_perfmon = h.cap_sys_admin = false;
	cr_assert(strstr(explain(BPF_STAGE_LOAD, EPERM, &h), "run v8walk with sudo"));
	/* a user without the capabilities where a container's marker is (a machine image made from a
	 * container image keeps /.dockerenv), no seccomp filter: the host's words too */
	h.container = true;
	cr_assert_str_eq(explain(BPF_STAGE_LOAD, EPERM, &h), "eBPF sampling needs root, or CAP_BPF and CAP_PERFMON "
							     "(kernel.unprivileged_bpf_disabled is 2); run v8walk with sudo, or give "
							     "it the capabilities: `sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep "
							     "/opt/v8walk/bin/v8walk`");
}
