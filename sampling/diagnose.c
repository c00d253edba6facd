/* diagnose.c — turning EPERM into a cause the user can act on, and the fix. */
#include "diagnose.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/proc_status.h"

bool process_exists(pid_t pid)
{
	char fn[64];
	struct stat st;
	snprintf(fn, sizeof(fn), "/proc/%d", (int)pid);
	return stat(fn, &st) == 0;
}

void process_comm(pid_t pid, char *buf, size_t cap)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(fn, "re");
	snprintf(buf, cap, "?");
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (!f)
		return -1;
	int v = -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool is_descendant(pid_t pid)
{
	pid_t me = getpid();
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		char who[32], v[64];
		snprintf(who, sizeof(who), "%d", (int)pid);
		if (!proc_status_field(who, "PPid", v, sizeof(v)))
			return false;
		pid = (pid_t)atoi(v);
		if (pid == me)
			return true;
	}
	return false;
}

void own_executable(char *buf, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
	if (n <= 0) {
		snprintf(buf, cap, "v8walk");
		return;
	}
	buf[n] = 0;
}

void sb_add_setcap(struct strbuf *out, const char *exe)
{
	sb_printf(out, "`sudo setcap cap_sys_ptrace,cap_perfmon,cap_bpf+ep %s`", exe);
}

void explain_no_process(pid_t pid, bool container, struct strbuf *out)
{
	sb_printf(out, "no process with pid %d", (int)pid);
	if (container)
		sb_add(out, " in this container's PID namespace; to profile another container's "
			    "process, share its namespace (`--pid container:NAME`, `--pid host`; "
			    "Kubernetes: shareProcessNamespace or hostPID) and add `--cap-add SYS_PTRACE`");
}

void gather_access_facts(pid_t pid, int err, struct access_facts *f)
{
	char who[32], v[128];
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->err = err;
	snprintf(who, sizeof(who), "%d", (int)pid);
	process_comm(pid, f->comm, sizeof(f->comm));
	f->exists = process_exists(pid);
	if (proc_status_field(who, "TracerPid", v, sizeof(v)))
		f->tracer = (pid_t)atoi(v);
	if (f->tracer)
		process_comm(f->tracer, f->tracer_comm, sizeof(f->tracer_comm));
	f->cap_sys_ptrace = have_capability(CAP_SYS_PTRACE_BIT);
	f->yama_scope = yama_scope();
	f->target_uid = proc_status_field(who, "Uid", v, sizeof(v)) ? (long)strtoul(v, NULL, 10) : -1;
	f->our_uid = (long)geteuid();
	f->descendant = is_descendant(pid);
	f->container = confinement_in_container();
	own_executable(f->self_exe, sizeof(f->self_exe));
}

bool explain_access(const struct access_facts *f, struct strbuf *out)
{
	int pid = (int)f->pid;
	const char *comm = f->comm;
	if (f->err == ESRCH || !f->exists) {
		sb_printf(out, "process %d exited", pid);
		return false;
	}
	if (f->tracer) {
		sb_printf(out,
			  "process %d (%s) is already traced by process %d (%s), a debugger or another "
			  "profiler; only one tracer is allowed: detach it first",
			  pid, comm, (int)f->tracer, f->tracer_comm);
		return false;
	}
	bool cap = f->cap_sys_ptrace;
	if (!cap && f->yama_scope == 3) {
		sb_printf(out,
			  "cannot trace process %d (%s): kernel.yama.ptrace_scope is 3, which forbids "
			  "ptrace for everyone until reboot",
			  pid, comm);
		return true;
	}
	if (!cap && f->yama_scope == 2) {
		sb_printf(out,
			  "cannot trace process %d (%s): kernel.yama.ptrace_scope is 2 (admin only); "
			  "run v8walk as root or with CAP_SYS_PTRACE: ",
			  pid, comm);
		sb_add_setcap(out, f->self_exe);
		return true;
	}
	if (!cap && f->target_uid >= 0 && f->target_uid != f->our_uid) {
		sb_printf(out,
			  "cannot trace process %d (%s): it belongs to uid %ld and v8walk runs as uid %ld "
			  "without CAP_SYS_PTRACE; run it as that user, with sudo, or with the "
			  "capabilities: ",
			  pid, comm, f->target_uid, f->our_uid);
		sb_add_setcap(out, f->self_exe);
		return true;
	}
	if (!cap && f->yama_scope == 1 && !f->descendant) {
		sb_printf(out,
			  "cannot trace process %d (%s): kernel.yama.ptrace_scope is 1, which only lets "
			  "you trace your own children; run v8walk with sudo, or with CAP_SYS_PTRACE (",
			  pid, comm);
		sb_add_setcap(out, f->self_exe);
		sb_add(out, "), or set `sysctl kernel.yama.ptrace_scope=0`");
		return true;
	}
	if (!cap && f->container) {
		sb_printf(out,
			  "cannot trace process %d (%s): v8walk runs in a container without "
			  "CAP_SYS_PTRACE; start it with `--cap-add SYS_PTRACE` and the target's PID "
			  "namespace (`--pid container:NAME` or `--pid host`; Kubernetes: "
			  "securityContext.capabilities.add: [SYS_PTRACE], and shareProcessNamespace or "
			  "hostPID)",
			  pid, comm);
		return true;
	}
	sb_printf(out,
		  "cannot trace process %d (%s): the kernel refused (%s); the process may be "
		  "non-dumpable (setuid, file capabilities or prctl PR_SET_DUMPABLE 0), or a "
		  "seccomp/LSM policy forbids ptrace%s",
		  pid, comm, strerror(f->err), cap ? "" : "; running as root may help");
	return true;
}

bool diagnose_access(pid_t pid, int err, struct strbuf *out)
{
	struct access_facts f;
	gather_access_facts(pid, err, &f);
	return explain_access(&f, out);
}

/* Does the process's executable (or a library it maps) look like node? Cheap: by path only. */
static bool maps_node(pid_t pid)
{
	char fn[64], line[4352];
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return false;
	bool yes = false;
	while (!yes && fgets(line, sizeof(line), f)) {
		const char *slash = strrchr(line, '/');
		yes = slash && (strncmp(slash, "/node", 5) == 0 || strncmp(slash, "/nodejs", 7) == 0 ||
				strncmp(slash, "/libnode.so", 11) == 0);
	}
	fclose(f);
	return yes;
}

void suggest_node_child(pid_t pid, struct strbuf *out)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char v[64];
		if (!proc_status_field(e->d_name, "PPid", v, sizeof(v)) || atoi(v) != (int)pid)
			continue;
		pid_t child = (pid_t)atoi(e->d_name);
		if (maps_node(child)) {
			char comm[64];
			process_comm(child, comm, sizeof(comm));
			sb_printf(out, " (its child %d (%s) runs node: try --pid %d)", (int)child, comm, (int)child);
			break;
		}
	}
	closedir(d);
}
