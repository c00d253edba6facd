/* container_id.h — the container a process runs in, from its /proc/PID/cgroup: the 64-hex-digit id
 * that Docker, Podman, containerd (Kubernetes' cri-containerd and plain) and CRI-O put in the
 * cgroup path they make for a container, under cgroup v1 and v2 and both cgroup managers:
 *
 *   0::/system.slice/docker-ID.scope                          Docker, systemd driver (v2)
 *   12:memory:/docker/ID                                      Docker, cgroupfs driver (v1)
 *   0::/machine.slice/libpod-ID.scope/container               Podman, systemd (its inner cgroup)
 *   4:memory:/libpod_parent/libpod-ID                         Podman, cgroupfs
 *   0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podUID.slice/cri-containerd-ID.scope
 *   11:pids:/kubepods/besteffort/podUID/ID                    Kubernetes, cgroupfs driver
 *   0::/kubepods.slice/…/crio-ID.scope                        CRI-O
 *
 * The innermost id of a path wins (a container nested in another names the inner one); the
 * monitors' own cgroups (libpod-conmon-ID, crio-conmon-ID) are not containers. A process whose
 * cgroup names no such id (the host, a systemd service, a private cgroup namespace that shows
 * "/") has none. The text is hostile input: bounded, any byte. */
#ifndef V8WALK_CONTAINER_ID_H
#define V8WALK_CONTAINER_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/intern.h"

enum {
	CONTAINER_ID_LEN = 64,   /* hex digits of a full id */
	CONTAINER_SHORT_LEN = 12 /* what `docker ps` and `podman ps` show, and the label holds */
};

/* The container id in the text of a /proc/PID/cgroup file (len bytes, not NUL-terminated) into
 * out (CONTAINER_ID_LEN + 1 bytes, NUL-terminated); false when it names none. The cgroup v2 line
 * ("0::") is read first, then the v1 lines in order. */
bool container_id_parse(const char *text, size_t len, char *out);

/* The short id (CONTAINER_SHORT_LEN hex digits + NUL) of process pid's container; false when it
 * is in none or its cgroup file cannot be read. */
bool container_short_id(pid_t pid, char *out, size_t cap);

/* What a sample carries (sample.h): 0 when process pid is in no container, else 1 + the id of its
 * short container id interned in strings. */
uint32_t container_of_pid(struct intern *strings, pid_t pid);

#endif
