/* node_scan.c — finding the V8 processes of the host. */
#include "node_scan.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../symtab/elf_image.h"
#include "../symtab/maps.h"
#include "../util/safe_open.h"
#include "../v8/runtime.h"

void node_scan_init(struct node_scan *ns)
{
	u64map_init(&ns->verdict, 0);
}

void node_scan_free(struct node_scan *ns)
{
	u64map_free(&ns->verdict);
}

/* Is the file mapped at m a V8 module? It is opened by its path inside the process's root, and
 * must be the file the maps name (device and inode); a file replaced or deleted since, through
 * /proc/PID/map_files. (map_files alone would not do: opening its links takes CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE, which an agent in a container does not have.) Files that cannot be
 * opened now are tried again at the next scan. */
static bool module_has_v8(struct node_scan *ns, pid_t pid, const struct mapping *m)
{
	uint64_t key = u64_hash(m->dev * 0x9e3779b97f4a7c15ULL ^ m->inode) | 1;
	uint64_t v;
	if (m->inode && u64map_get(&ns->verdict, key, &v))
		return v == 2;
	char root[64], path[128];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	struct file_expect ex = {.root = root, .ino = m->inode, .dev = m->dev};
	const char *err = NULL;
	struct elf_image *img = m->deleted ? NULL : elf_image_open_as(m->path, &ex, &err);
	if (!img) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)pid,
			 (unsigned long)m->start, (unsigned long)m->end);
		ex = (struct file_expect){.ino = m->inode, .dev = m->dev, .follow = true};
		img = elf_image_open_as(path, &ex, &err);
	}
	if (!img)
		return false;
	bool yes = v8_image_has_v8(img);
	elf_image_close(img);
	if (m->inode)
		u64map_put(&ns->verdict, key, yes ? 2 : 1);
	return yes;
}

bool node_scan_pid(struct node_scan *ns, pid_t pid)
{
	struct maps maps;
	maps_init(&maps);
	bool yes = false;
	if (maps_read_proc(pid, &maps) == 0) {
		for (size_t i = 0; i < maps.n && !yes; i++) {
			const struct mapping *m = &maps.v[i];
			if ((m->prot & MAP_X) && m->path && m->path[0] == '/')
				yes = module_has_v8(ns, pid, m);
		}
	}
	maps_free(&maps);
	return yes;
}

size_t node_scan(struct node_scan *ns, bool (*known)(void *ctx, pid_t pid), void *ctx, pid_t *out,
		 size_t max)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	size_t n = 0;
	pid_t self = getpid();
	struct dirent *e;
	while (n < max && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self || (known && known(ctx, (pid_t)pid)))
			continue;
		if (node_scan_pid(ns, (pid_t)pid))
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}
