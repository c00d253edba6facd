/* test_container_id.c — container ids from /proc/PID/cgroup texts as Docker, Podman, containerd,
 * Kubernetes and CRI-O leave them (cgroup v1, v2, hybrid; systemd and cgroupfs managers), and the
 * texts that name no container. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "../../sampling/container_id.h"

#define ID_A "3ad56695c0c831371f97b5da9e9c705d83825b151a86d747efd750764b38e9f2"
#define ID_B "9f4c2a3e1b7d4c6e8a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e0f"

static const char *parse(const char *text)
{
	static char id[CONTAINER_ID_LEN + 1];
	return container_id_parse(text, strlen(text), id) ? id : NULL;
}

static void expect(const char *text, const char *want)
{
	const char *got = parse(text);
	if (!want)
		cr_assert_null(got, "no id in %s, got %s", text, got);
	else
		cr_assert(got && !strcmp(got, want), "%s in %s, got %s", want, text, got ? got : "none");
}

Test(container_id, podman_cgroupfs_hybrid)
{
	/* read off a container of this project's own tests: podman, cgroupfs, cgroup v1 + unified */
	expect("10:hugetlb:/libpod_parent/libpod-" ID_A "\n"
	       "9:name=systemd:/libpod_parent/libpod-" ID_A "\n"
	       "4:memory:/libpod_parent/libpod-" ID_A "\n"
	       "1:cpu:/libpod_parent/libpod-" ID_A "\n"
	       "0::/libpod_parent/libpod-" ID_A "\n",
	       ID_A);
}

Test(container_id, podman_systemd)
{
	expect("0::/machine.slice/libpod-" ID_A ".scope/container\n", ID_A);
	expect("0::/machine.slice/libpod-" ID_A ".scope\n", ID_A);
	/* rootless, under the user's manager */
	expect("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_A ".scope\n", ID_A);
	/* conmon's own cgroup is not the container */
	expect("0::/machine.slice/libpod-conmon-" ID_A ".scope\n", NULL);
}

Test(container_id, docker)
{
	expect("0::/system.slice/docker-" ID_B ".scope\n", ID_B);
	expect("12:pids:/docker/" ID_B "\n11:memory:/docker/" ID_B "\n0::/docker/" ID_B "\n", ID_B);
	/* Docker in Docker: the inner container */
	expect("1:name=systemd:/docker/" ID_A "/docker/" ID_B "\n", ID_B);
	/* ECS */
	expect("9:perf_event:/ecs/0b1c2d3e-task/" ID_B "\n", ID_B);
}

Test(container_id, kubernetes_containerd)
{
	expect("0::/kubepods.slice/kubepods-burstable.slice/"
	       "kubepods-burstable-pod5c3b2a1d_0e9f_4a8b_9c7d_6e5f4a3b2c1d.slice/cri-containerd-" ID_A ".scope\n",
	       ID_A);
	expect("11:pids:/kubepods/besteffort/pod5c3b2a1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d/" ID_B "\n"
	       "0::/\n",
	       ID_B);
	/* cgroupfs driver under cgroup v2 */
	expect("0::/kubepods/burstable/pod5c3b2a1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d/" ID_A "\n", ID_A);
	/* the pod's sandbox cgroup alone (pause) names the pod, not a container */
	expect("0::/kubepods.slice/kubepods-pod5c3b2a1d_0e9f_4a8b_9c7d_6e5f4a3b2c1d.slice\n", NULL);
}

Test(container_id, crio)
{
	expect("0::/kubepods.slice/kubepods-besteffort.slice/"
	       "kubepods-besteffort-pod11112222_3333_4444_5555_666677778888.slice/crio-" ID_B ".scope\n",
	       ID_B);
	expect("0::/kubepods.slice/kubepods-besteffort.slice/crio-conmon-" ID_B ".scope\n", NULL);
}

Test(container_id, the_v2_line_first)
{
	/* a hybrid host where the v1 hierarchies and the unified one disagree: v2 decides */
	expect("4:memory:/docker/" ID_A "\n0::/system.slice/docker-" ID_B ".scope\n", ID_B);
	/* v2 names none: a v1 line may */
	expect("0::/\n4:memory:/docker/" ID_A "\n", ID_A);
}

Test(container_id, no_container)
{
	expect("0::/\n", NULL);
	expect("0::/user.slice/user-1000.slice/session-2.scope\n", NULL);
	expect("0::/system.slice/ssh.service\n", NULL);
	/* this machine's own: a 32-digit cgroup name is no container id */
	expect("4:memory:/process_api/ae2d9f22932fb247079370390e38f418\n0::/\n", NULL);
	/* 64 digits glued to other text, upper case, one short, one long */
	expect("0::/system.slice/x" ID_A ".scope\n", NULL);
	expect("0::/docker/3AD56695C0C831371F97B5DA9E9C705D83825B151A86D747EFD750764B38E9F2\n", NULL);
	expect("0::/docker/3ad56695c0c831371f97b5da9e9c705d83825b151a86d747efd750764b38e9f\n", NULL);
	expect("0::/docker/3ad56695c0c831371f97b5da9e9c705d83825b151a86d747efd750764b38e9f22\n", NULL);
	expect("", NULL);
}

Test(container_id, hostile_text)
{
	/* no colons, one colon, a line without its newline, NUL bytes inside */
	expect("garbage", NULL);
	expect("0:/docker/" ID_A, NULL);
	expect("0::/docker/" ID_A, ID_A);
	static const char with_nul[] = "0::/x\0y\n4:memory:/docker/" ID_B "\n";
	char id[CONTAINER_ID_LEN + 1];
	cr_assert(container_id_parse(with_nul, sizeof(with_nul) - 1, id));
	cr_assert_str_eq(id, ID_B);
	/* a path cut at the buffer's end is not read past it */
	const char *cut = "0::/docker/" ID_A;
	cr_assert_not(container_id_parse(cut, strlen(cut) - 1, id));
}

Test(container_id, short_id_of_a_process)
{
	char id[CONTAINER_SHORT_LEN + 1];
	/* the test itself runs on the host here, or in a container whose id then has 12 hex digits */
	if (container_short_id(getpid(), id, sizeof(id))) {
		cr_assert_eq(strlen(id), CONTAINER_SHORT_LEN);
		for (size_t i = 0; i < CONTAINER_SHORT_LEN; i++)
			cr_assert(strchr("0123456789abcdef", id[i]));
	}
	cr_assert_not(container_short_id(getpid(), id, CONTAINER_SHORT_LEN), "too small a buffer");
	cr_assert_not(container_short_id(0x7ffffff0, id, sizeof(id)), "no such process");
}
