/* diagnose.c — turning EPERM into a cause the user can act on. */
#include "diagnose.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CAP_SYS_PTRACE_BIT = 19 };

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

/* A "Key:\tvalue" field of /proc/<who>/status. */
static bool status_field(const char *who, const char *key, char *val, size_t cap)
{
	char fn[64], line[512];
	snprintf(fn, sizeof(fn), "/proc/%s/status", who);
	FILE *f = fopen(fn, "re");
	if (!f)
		return false;
	size_t kl = strlen(key);
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			const char *p = line + kl + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(val, cap, "%s", p);
			val[strcspn(val, "\n")] = 0;
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

static bool have_cap_sys_ptrace(void)
{
	char v[64];
	if (!status_field("self", "CapEff", v, sizeof(v)))
		return geteuid() == 0;
	unsigned long long caps = strtoull(v, NULL, 16);
	return (caps >> CAP_SYS_PTRACE_BIT) & 1;
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

static bool in_container(void)
{
	if (access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0)
		return true;
	FILE *f = fopen("/proc/1/cgroup", "re");
	if (!f)
		return false;
	char line[512];
	bool yes = false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "docker") || strstr(line, "kubepods") || strstr(line, "containerd") ||
		    strstr(line, "libpod"))
			yes = true;
	fclose(f);
	return yes;
}

static bool is_descendant(pid_t pid)
{
	pid_t me = getpid();
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		char who[32], v[64];
		snprintf(who, sizeof(who), "%d", (int)pid);
		if (!status_field(who, "PPid", v, sizeof(v)))
			return false;
		pid = (pid_t)atoi(v);
		if (pid == me)
			return true;
	}
	return false;
}

void diagnose_access(pid_t pid, int err, struct strbuf *out)
{
	char who[32], v[128], comm[64];
	snprintf(who, sizeof(who), "%d", (int)pid);
	process_comm(pid, comm, sizeof(comm));
	if (err == ESRCH || !process_exists(pid)) {
		sb_printf(out, "process %d exited", (int)pid);
		return;
	}
	if (status_field(who, "TracerPid", v, sizeof(v)) && atoi(v) != 0) {
		char tcomm[64];
		process_comm((pid_t)atoi(v), tcomm, sizeof(tcomm));
		sb_printf(out,
			  "process %d (%s) is already traced by process %s (%s), a debugger or another "
			  "profiler; only one tracer is allowed: detach it first",
			  (int)pid, comm, v, tcomm);
		return;
	}
	bool cap = have_cap_sys_ptrace();
	int scope = yama_scope();
	if (!cap && scope == 3) {
		sb_printf(out,
			  "cannot trace process %d (%s): kernel.yama.ptrace_scope is 3, which forbids "
			  "ptrace for everyone until reboot",
			  (int)pid, comm);
		return;
	}
	if (!cap && scope == 2) {
		sb_printf(out,
			  "cannot trace process %d (%s): kernel.yama.ptrace_scope is 2 (admin only); "
			  "run v8walk as root or with CAP_SYS_PTRACE",
			  (int)pid, comm);
		return;
	}
	uid_t target_uid = (uid_t)-1;
	if (status_field(who, "Uid", v, sizeof(v)))
		target_uid = (uid_t)strtoul(v, NULL, 10);
	if (!cap && target_uid != (uid_t)-1 && target_uid != geteuid()) {
		sb_printf(out,
			  "cannot trace process %d (%s): it belongs to uid %u and v8walk runs as uid %u "
			  "without CAP_SYS_PTRACE; run it as that user, or with sudo",
			  (int)pid, comm, (unsigned)target_uid, (unsigned)geteuid());
		return;
	}
	if (!cap && scope == 1 && !is_descendant(pid)) {
		sb_printf(out,
			  "cannot trace process %d (%s): kernel.yama.ptrace_scope is 1, which only lets "
			  "you trace your own children; run v8walk with sudo (or CAP_SYS_PTRACE), or "
			  "set `sysctl kernel.yama.ptrace_scope=0`",
			  (int)pid, comm);
		return;
	}
	if (!cap && in_container()) {
		sb_printf(out,
			  "cannot trace process %d (%s): v8walk runs in a container without "
			  "CAP_SYS_PTRACE; start it with `--cap-add SYS_PTRACE` (Kubernetes: "
			  "securityContext.capabilities.add: [SYS_PTRACE])",
			  (int)pid, comm);
		return;
	}
	sb_printf(out,
		  "cannot trace process %d (%s): the kernel refused (%s); the process may be "
		  "non-dumpable (setuid, file capabilities or prctl PR_SET_DUMPABLE 0), or a "
		  "seccomp/LSM policy forbids ptrace%s",
		  (int)pid, comm, strerror(err), cap ? "" : "; running as root may help");
}
