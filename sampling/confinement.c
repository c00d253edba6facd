/* confinement.c — v8walk's own container, seccomp filter and capabilities (confinement.h). */
#include "confinement.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/proc_status.h"
#include "container_id.h"

enum { CGROUP_TEXT_MAX = 16 << 10 };

bool have_capability(int cap)
{
	char v[64];
	if (!proc_status_field("self", "CapEff", v, sizeof(v)))
		return geteuid() == 0;
	unsigned long long caps = strtoull(v, NULL, 16);
	return (caps >> cap) & 1;
}

/* A container id in the cgroup file of `who` ("self", "1"), or one of the runtimes' words. */
static bool cgroup_says_container(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char text[CGROUP_TEXT_MAX];
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = 0;
	char id[CONTAINER_ID_LEN + 1];
	return container_id_parse(text, (size_t)n, id) || strstr(text, "docker") ||
	       strstr(text, "kubepods") || strstr(text, "containerd") || strstr(text, "libpod");
}

bool confinement_in_container(void)
{
	const char *runtime = getenv("container");
	return access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0 ||
	       (runtime && *runtime) || getenv("KUBERNETES_SERVICE_HOST") ||
	       cgroup_says_container("/proc/self/cgroup") || cgroup_says_container("/proc/1/cgroup");
}

void confinement_gather(struct confinement *c)
{
	memset(c, 0, sizeof(*c));
	c->container = confinement_in_container();
	char v[32];
	c->seccomp_filter = proc_status_field("self", "Seccomp", v, sizeof(v)) && atoi(v) == 2;
	c->cap_sys_admin = have_capability(CAP_SYS_ADMIN_BIT);
	c->cap_perfmon = have_capability(CAP_PERFMON_BIT);
	c->cap_bpf = have_capability(CAP_BPF_BIT);
	c->root = geteuid() == 0;
}

void container_flags_advice(unsigned needs, struct strbuf *out)
{
	if (!needs)
		return;
	const char *caps = (needs & NEED_PERFMON) && (needs & NEED_BPF) ? "PERFMON,BPF"
			   : (needs & NEED_PERFMON)                     ? "PERFMON"
			   : (needs & NEED_BPF)                         ? "BPF"
									: NULL;
	const char *k8s = (needs & NEED_PERFMON) && (needs & NEED_BPF) ? "PERFMON, BPF" : caps;
	bool seccomp = needs & NEED_SECCOMP;
	sb_add(out, "start it with");
	if (caps)
		sb_printf(out, " --cap-add %s", caps);
	if (seccomp)
		sb_add(out, " --security-opt seccomp=unconfined");
	sb_add(out, " (Kubernetes: securityContext");
	if (caps)
		sb_printf(out, " capabilities.add [%s]", k8s);
	if (seccomp)
		sb_printf(out, "%s seccompProfile.type Unconfined", caps ? "," : "");
	sb_add(out, ")");
}
