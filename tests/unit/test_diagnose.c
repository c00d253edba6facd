/* test_diagnose.c — every cause of a refused attach gets its own message and its fix. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../sampling/diagnose.h"

static struct access_facts base(void)
{
	struct access_facts f;
	memset(&f, 0, sizeof(f));
	f.pid = 4242;
	strcpy(f.comm, "node");
	f.err = EPERM;
	f.exists = true;
	f.yama_scope = -1;
	f.target_uid = 1000;
	f.our_uid = 1000;
	strcpy(f.self_exe, "/usr/lib/node_modules/v8walk/bin/v8walk");
	return f;
}

static bool was_refused; /* what the last explain said: the kernel's access control */

static char *explain(const struct access_facts *f)
{
	static struct strbuf b;
	sb_free(&b);
	was_refused = explain_access(f, &b);
	return b.s;
}

#define SETCAP "`sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep /usr/lib/node_modules/v8walk/bin/v8walk`"

Test(diagnose, gone)
{
	struct access_facts f = base();
	f.exists = false;
	cr_assert_str_eq(explain(&f), "process 4242 exited");
	cr_assert_not(was_refused);
}

Test(diagnose, no_such_process_in_a_container)
{
	struct strbuf b;
	sb_init(&b);
	explain_no_process(4242, false, &b);
	cr_assert_str_eq(b.s, "no process with pid 4242");
	sb_reset(&b);
	explain_no_process(4242, true, &b);
	cr_assert(strstr(b.s, "no process with pid 4242 in this container's PID namespace"));
	cr_assert(strstr(b.s, "`--pid container:NAME`"));
	cr_assert(strstr(b.s, "hostPID"));
	sb_free(&b);
}

Test(diagnose, already_traced)
{
	struct access_facts f = base();
	f.tracer = 77;
	strcpy(f.tracer_comm, "gdb");
	cr_assert(strstr(explain(&f), "already traced by process 77 (gdb)"));
	cr_assert_not(was_refused, "busy, not forbidden");
}

Test(diagnose, yama_scopes)
{
	struct access_facts f = base();
	f.yama_scope = 1;
	cr_assert(strstr(explain(&f), "ptrace_scope is 1"));
	cr_assert(strstr(explain(&f), "sysctl kernel.yama.ptrace_scope=0"));
	cr_assert(strstr(explain(&f), SETCAP));
	cr_assert(was_refused);
	f.descendant = true;
	cr_assert_null(strstr(explain(&f), "ptrace_scope is 1"), "children may be traced at scope 1");
	f.yama_scope = 2;
	cr_assert(strstr(explain(&f), "ptrace_scope is 2 (admin only)"));
	cr_assert(strstr(explain(&f), SETCAP));
	f.yama_scope = 3;
	cr_assert(strstr(explain(&f), "ptrace_scope is 3"));
	f.cap_sys_ptrace = true;
	f.yama_scope = 2;
	cr_assert_null(strstr(explain(&f), "ptrace_scope"), "CAP_SYS_PTRACE overrides scope 2");
}

Test(diagnose, other_user)
{
	struct access_facts f = base();
	f.target_uid = 0;
	cr_assert(strstr(explain(&f), "belongs to uid 0 and v8walk runs as uid 1000 without CAP_SYS_PTRACE"));
	cr_assert(strstr(explain(&f), SETCAP));
	cr_assert(was_refused);
}

Test(diagnose, container_without_capability)
{
	struct access_facts f = base();
	f.container = true;
	cr_assert(strstr(explain(&f), "--cap-add SYS_PTRACE"));
	cr_assert(strstr(explain(&f), "capabilities.add: [SYS_PTRACE]"));
	cr_assert(strstr(explain(&f), "`--pid container:NAME`"), "the target's PID namespace too");
	cr_assert(was_refused);

}

Test(diagnose, otherwise_non_dumpable_or_policy)
{
	struct access_facts f = base();
	f.cap_sys_ptrace = true;
	cr_assert(strstr(explain(&f), "non-dumpable"));
	cr_assert(strstr(explain(&f), "seccomp/LSM"));
}
