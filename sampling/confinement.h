/* confinement.h — what confines v8walk's own process, for the words of a refusal: whether it runs
 * in a container, under a seccomp filter, with which capabilities; and the container flags that
 * lift a refusal there. A container runtime's default seccomp profile (Docker's, Podman's,
 * containerd's, Kubernetes' RuntimeDefault) refuses perf_event_open and bpf unless the container
 * has CAP_SYS_ADMIN, whatever other capabilities it was given: inside one, the fix is a profile
 * that allows them (--security-opt seccomp=unconfined, Kubernetes' seccompProfile Unconfined or a
 * profile of one's own) and the capabilities the call takes. A marker of a container is not proof
 * of one (a machine image built from a container image keeps /.dockerenv): the container's words
 * are for a seccomp filter, or for capabilities missing while v8walk runs as root; a user without
 * them is told what a host user is. */
#ifndef V8WALK_CONFINEMENT_H
#define V8WALK_CONFINEMENT_H

#include <stdbool.h>

#include "../util/strbuf.h"

/* capability numbers (linux/capability.h) */
enum { CAP_SYS_PTRACE_BIT = 19, CAP_SYS_ADMIN_BIT = 21, CAP_PERFMON_BIT = 38, CAP_BPF_BIT = 39 };

struct confinement {
	bool container;      /* v8walk runs in a container */
	bool seccomp_filter; /* a seccomp filter is on (/proc/self/status Seccomp: 2) */
	bool cap_sys_admin, cap_perfmon, cap_bpf;
	bool root;           /* euid 0: capabilities missing then are what a runtime withheld */
};

/* Is capability number `cap` in v8walk's effective set? */
bool have_capability(int cap);
/* Does v8walk run in a container (a runtime's marker file, the `container` environment variable
 * Podman and systemd-nspawn set, Kubernetes' service variables, a container id in its cgroup)? */
bool confinement_in_container(void);
void confinement_gather(struct confinement *c);

/* What a refused call needs from the container it runs in. */
enum { NEED_PERFMON = 1, NEED_BPF = 2, NEED_SECCOMP = 4 };
/* Append "start it with --cap-add PERFMON,BPF --security-opt seccomp=unconfined (Kubernetes:
 * securityContext capabilities.add [PERFMON, BPF], seccompProfile.type Unconfined)" for `needs`
 * (nothing when needs is 0). */
void container_flags_advice(unsigned needs, struct strbuf *out);

#endif
