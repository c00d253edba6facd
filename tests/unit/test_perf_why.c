/* test_perf_why.c — a refused perf event in the user's words: perf_event_paranoid and CAP_PERFMON
 * on a host; inside a container, its seccomp profile and the flags that lift the refusal. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../ptrace/perf_why.h"

static struct perf_facts host(void)
{
	struct perf_facts f;
	memset(&f, 0, sizeof(f));
	f.paranoid = 2;
	return f;
}

static const char *why(int err, const struct perf_facts *f)
{
	static char buf[512];
	perf_why_explain(buf, sizeof(buf), err, "the call", f);
	return buf;
}

Test(perf_why, host_paranoid)
{
	struct perf_facts f = host();
	cr_assert_str_eq(why(EACCES, &f), "perf events are not allowed (kernel.perf_event_paranoid is 2; it "
					  "takes 1 or less, or CAP_PERFMON)");
	f.paranoid = 99;
	cr_assert_str_eq(why(EPERM, &f), "perf events are not allowed (Operation not permitted)");
	/* a seccomp filter outside a container changes nothing for EPERM when paranoid may explain it */
	f = host();
	f.conf.seccomp_filter = true;
	cr_assert(strstr(why(EPERM, &f), "perf_event_paranoid is 2"));
	cr_assert_null(strstr(why(EPERM, &f), "--security-opt"));
}

/* read off podman's default profile here: root in the container, no CAP_SYS_ADMIN, EPERM */
Test(perf_why, container_default_seccomp)
{
	struct perf_facts f = host();
	f.conf.container = f.conf.seccomp_filter = f.conf.root = true;
	cr_assert_str_eq(why(EPERM, &f),
			 "perf events are refused in this container: its seccomp profile allows perf_event_open "
			 "only with CAP_SYS_ADMIN, and kernel.perf_event_paranoid is 2 without CAP_PERFMON; start "
			 "it with --cap-add PERFMON --security-opt seccomp=unconfined (Kubernetes: "
			 "securityContext capabilities.add [PERFMON], seccompProfile.type Unconfined)");
	/* given CAP_PERFMON, the profile alone refuses */
	f.conf.cap_perfmon = true;
	cr_assert_str_eq(why(EPERM, &f),
			 "perf events are refused in this container: its seccomp profile allows perf_event_open "
			 "only with CAP_SYS_ADMIN; start it with --security-opt seccomp=unconfined (Kubernetes: "
			 "securityContext seccompProfile.type Unconfined)");
	/* a runtime whose profile answers ENOSYS */
	cr_assert(strstr(why(ENOSYS, &f), "--security-opt seccomp=unconfined"));
	/* with CAP_SYS_ADMIN the default profile allows the call: the refusal is something else */
	f.conf.cap_sys_admin = true;
	cr_assert(strstr(why(ENOSYS, &f), "no software perf events"));
}

Test(perf_why, container_unconfined_without_perfmon)
{
	struct perf_facts f = host();
	f.conf.container = f.conf.root = true;
	cr_assert_str_eq(why(EACCES, &f),
			 "perf events are not allowed (kernel.perf_event_paranoid is 2; it takes 1 or less, or "
			 "CAP_PERFMON); in a container, start it with --cap-add PERFMON (Kubernetes: "
			 "securityContext capabilities.add [PERFMON])");
	/* another user than root, where a container's marker is: a host user's words */
	f.conf.root = false;
	cr_assert_str_eq(why(EACCES, &f), "perf events are not allowed (kernel.perf_event_paranoid is 2; it "
					  "takes 1 or less, or CAP_PERFMON)");
}

Test(perf_why, other_errors)
{
	struct perf_facts f = host();
	cr_assert(strstr(why(ENODEV, &f), "no software perf events"));
	cr_assert(strstr(why(ENOTTY, &f), "Linux 4.7"));
	cr_assert_str_eq(why(EMFILE, &f), "the call: Too many open files");
	/* a long message fits the buffer it is given, cut, terminated */
	f.conf.container = f.conf.seccomp_filter = true;
	char small[40];
	perf_why_explain(small, sizeof(small), EPERM, "x", &f);
	cr_assert_eq(strlen(small), sizeof(small) - 1);
}
