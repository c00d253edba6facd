/* memsrc_live.c — reads a live process's memory with process_vm_readv (one syscall per batch);
 * falls back to pread on /proc/PID/mem where process_vm_readv is refused (e.g. seccomp). */
#include "memsrc_live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

/* ranges per process_vm_readv (UIO_MAXIOV is 1024): an after-resume batch of a deep stack holds
 * a few hundred */
enum { IOV_BATCH = 512 };

static ssize_t pread_mem(struct memsrc_live *m, uint64_t addr, void *buf, size_t len)
{
	if (m->mem_fd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)m->pid);
		m->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (m->mem_fd < 0)
			return -1;
	}
	m->reads++;
	ssize_t n = pread(m->mem_fd, buf, len, (off_t)addr);
	return n > 0 ? n : -1;
}

static ssize_t live_read(struct memsrc *base, uint64_t addr, void *buf, size_t len)
{
	struct memsrc_live *m = (struct memsrc_live *)base;
	if (len == 0)
		return 0;
	if (addr + len < addr)
		return -1;
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)addr, len};
	m->reads++;
	ssize_t n = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
	if (n > 0)
		return n;
	if (n < 0 && (errno == ENOSYS || errno == EPERM))
		return pread_mem(m, addr, buf, len);
	return -1;
}

/* process_vm_readv stops at the first remote iovec that fails, and never splits one (a range
 * running into an unmapped page is not read at all): that range is left unread and the batch
 * resumes after it — read alone it would fail the same way (it was a read per bad slot value: a
 * spill slot that looks like a pointer). Where process_vm_readv itself is refused, each range
 * goes through /proc/PID/mem. */
static void live_readv(struct memsrc *base, struct mem_range *r, size_t n)
{
	struct memsrc_live *m = (struct memsrc_live *)base;
	size_t i = 0;
	while (i < n) {
		struct iovec lv[IOV_BATCH], rv[IOV_BATCH];
		size_t k = 0;
		for (; k < IOV_BATCH && i + k < n; k++) {
			r[i + k].got = 0;
			lv[k] = (struct iovec){r[i + k].buf, r[i + k].len};
			rv[k] = (struct iovec){(void *)(uintptr_t)r[i + k].addr, r[i + k].len};
		}
		m->reads++;
		ssize_t got = process_vm_readv(m->pid, lv, k, rv, k, 0);
		if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
			for (size_t j = 0; j < k; j++) {
				ssize_t g = pread_mem(m, r[i + j].addr, r[i + j].buf, r[i + j].len);
				r[i + j].got = g > 0 ? (size_t)g : 0;
			}
			i += k;
			continue;
		}
		size_t done = 0, left = got > 0 ? (size_t)got : 0;
		while (done < k && left >= r[i + done].len) {
			r[i + done].got = r[i + done].len;
			left -= r[i + done].len;
			done++;
		}
		i += done < k ? done + 1 : done; /* past the range that failed, if one did */
	}
}

static const struct memsrc_ops live_ops = {.read = live_read, .readv = live_readv};

void memsrc_live_init(struct memsrc_live *m, pid_t pid)
{
	m->base.ops = &live_ops;
	m->pid = pid;
	m->mem_fd = -1;
	m->reads = 0;
}

void memsrc_live_close(struct memsrc_live *m)
{
	if (m->mem_fd >= 0)
		close(m->mem_fd);
	m->mem_fd = -1;
}
