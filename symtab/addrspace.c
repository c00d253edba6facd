/* addrspace.c — mappings → modules, address translation, lazy ELF opening. */
#include "addrspace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/intern.h"
#include "../util/safe_open.h"
#include "../util/u64map.h"
#include "../util/xalloc.h"

void addrspace_init(struct addrspace *as, pid_t pid, const char *root)
{
	memset(as, 0, sizeof(*as));
	as->pid = pid;
	as->root = xstrdup(root ? root : "");
	maps_init(&as->maps);
}

static void free_mods(struct addrspace *as)
{
	for (size_t i = 0; i < as->nmods; i++) {
		if (as->share)
			image_share_release(as->share, as->mods[i].img);
		else
			elf_image_close(as->mods[i].img);
		free(as->mods[i].path);
	}
	free(as->mods);
	as->mods = NULL;
	as->nmods = as->cap = 0;
}

void addrspace_free(struct addrspace *as)
{
	free_mods(as);
	maps_free(&as->maps);
	free(as->map_mod);
	free(as->map_next);
	free(as->root);
	for (size_t i = 0; i < 2 * as->nsubst; i++)
		free(as->subst[i]);
	free(as->subst);
	memset(as, 0, sizeof(*as));
}

void addrspace_share_images(struct addrspace *as, struct image_share *share)
{
	as->share = share;
}

static bool is_file_path(const char *p)
{
	return p && p[0] == '/';
}

static uint64_t mod_key(const char *path, uint64_t inode)
{
	return u64_hash(bytes_hash(path, strlen(path)) ^ u64_hash(inode)) | 1;
}

/* The module of (path, inode) through the hash index; a key collision (different path or inode
 * under one key) falls back to a scan, so the index is only ever a shortcut. */
static int find_mod(const struct addrspace *as, const struct u64map *index, const char *path,
		    uint64_t inode)
{
	uint64_t v;
	if (!u64map_get(index, mod_key(path, inode), &v))
		return -1;
	const struct module *mod = &as->mods[v - 1];
	if (mod->inode == inode && strcmp(mod->path, path) == 0)
		return (int)(v - 1);
	for (size_t i = 0; i < as->nmods; i++)
		if (as->mods[i].inode == inode && strcmp(as->mods[i].path, path) == 0)
			return (int)i;
	return -1;
}

/* Modules by (path, inode) and, per module, its mappings as a chain in address order: both
 * built in one pass, so indexing n mappings costs O(n), not O(n × modules). */
void addrspace_index(struct addrspace *as)
{
	as->generation++;
	free(as->map_mod);
	free(as->map_next);
	size_t n = as->maps.n ? as->maps.n : 1;
	as->map_mod = xcalloc(n, sizeof(int));
	as->map_next = xcalloc(n, sizeof(size_t));
	struct u64map index;
	u64map_init(&index, 0);
	for (size_t k = 0; k < as->nmods; k++) {
		u64map_put(&index, mod_key(as->mods[k].path, as->mods[k].inode), k + 1);
		as->mods[k].first_map = as->mods[k].last_map = SIZE_MAX;
	}
	for (size_t i = 0; i < as->maps.n; i++) {
		const struct mapping *m = &as->maps.v[i];
		as->map_next[i] = SIZE_MAX;
		if (!is_file_path(m->path)) {
			as->map_mod[i] = -1;
			continue;
		}
		int k = find_mod(as, &index, m->path, m->inode);
		if (k < 0) {
			XGROW(as->mods, as->cap, as->nmods + 1);
			struct module *mod = &as->mods[as->nmods];
			memset(mod, 0, sizeof(*mod));
			mod->path = xstrdup(m->path);
			mod->inode = m->inode;
			mod->first_map = mod->last_map = SIZE_MAX;
			k = (int)as->nmods++;
			uint64_t key = mod_key(mod->path, mod->inode), old;
			if (!u64map_get(&index, key, &old))
				u64map_put(&index, key, (uint64_t)k + 1);
		}
		as->map_mod[i] = k;
		struct module *mod = &as->mods[k];
		if (mod->last_map == SIZE_MAX)
			mod->first_map = i;
		else
			as->map_next[mod->last_map] = i;
		mod->last_map = i;
	}
	u64map_free(&index);
}

int addrspace_load_proc(struct addrspace *as)
{
	int err = maps_read_proc(as->pid, &as->maps);
	if (err)
		return err;
	addrspace_index(as); /* existing modules (and their opened images) are kept */
	return 0;
}

void addrspace_substitute(struct addrspace *as, const char *target_path, const char *local)
{
	as->subst = xrealloc(as->subst, (as->nsubst + 1) * 2 * sizeof(char *));
	as->subst[2 * as->nsubst] = xstrdup(target_path);
	as->subst[2 * as->nsubst + 1] = xstrdup(local);
	as->nsubst++;
}

static struct elf_image *open_live(struct addrspace *as, struct module *mod, const char **err)
{
	/* the path as the target sees it, resolved inside its root; the descriptor must be the file
	 * the maps name (device and inode) */
	size_t idx = 0;
	const struct mapping *m = addrspace_next_mapping(as, mod, &idx);
	struct file_expect ex = {.root = as->root, .ino = mod->inode, .dev = m ? m->dev : 0,
				 .follow = as->pid <= 0};
	struct elf_image *img = elf_image_open_as(mod->path, &ex, err);
	if (!img && as->pid <= 0 && !strcmp(*err, "no such file"))
		*err = "no such file on this machine";
	if (img || as->pid <= 0 || !m) /* a core: there is no process to take the mapped file from */
		return img;
	/* replaced or deleted since it was mapped: open the mapped file itself (a kernel link to
	 * exactly that file; the identity is checked again) */
	char path[128];
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)as->pid,
		 (unsigned long)m->start, (unsigned long)m->end);
	const char *why = NULL;
	ex = (struct file_expect){.ino = mod->inode, .dev = m->dev, .follow = true};
	img = elf_image_open_as(path, &ex, &why);
	if (img)
		return img;
	if (!strcmp(*err, "no such file") || !strcmp(*err, "it is not the file the process mapped (replaced since)"))
		*err = "file replaced or deleted since it was mapped";
	return NULL;
}

static void compute_bias(struct addrspace *as, struct module *mod)
{
	struct elf_image *img = mod->img;
	if (img->etype == 2 /* ET_EXEC */) {
		mod->bias = 0;
		mod->bias_known = true;
		return;
	}
	/* ld.so maps the first PT_LOAD at file offset 0; V8's builtin remap never has pgoff 0 */
	size_t idx = 0;
	const struct mapping *m;
	while ((m = addrspace_next_mapping(as, mod, &idx)) != NULL) {
		if (m->pgoff != 0)
			continue;
		for (size_t i = 0; i < img->nloads; i++) {
			const struct elf_load *l = &img->loads[i];
			if ((l->offset & ~0xfffULL) == 0) {
				mod->bias = m->start - (l->vaddr & ~0xfffULL);
				mod->bias_known = true;
				return;
			}
		}
	}
}

struct elf_image *addrspace_image(struct addrspace *as, struct module *mod)
{
	if (mod->tried)
		return mod->img;
	mod->tried = true;
	const char *err = NULL;
	const char *local = NULL;
	for (size_t i = 0; i < as->nsubst; i++)
		if (strcmp(as->subst[2 * i], mod->path) == 0)
			local = as->subst[2 * i + 1];
	size_t idx = 0;
	const struct mapping *m = addrspace_next_mapping(as, mod, &idx);
	uint64_t dev = m ? m->dev : 0;
	if (local) {
		mod->img = elf_image_open(local, &err);
	} else if (as->share && (mod->img = image_share_get(as->share, dev, mod->inode)) != NULL) {
		/* the same file another sampled process maps, already open */
	} else {
		mod->img = open_live(as, mod, &err);
		if (mod->img && as->share && dev)
			image_share_add(as->share, dev, mod->inode, mod->img);
	}
	mod->open_err = err;
	if (mod->img)
		compute_bias(as, mod);
	return mod->img;
}

bool addrspace_lookup(struct addrspace *as, uint64_t addr, struct addr_info *out)
{
	memset(out, 0, sizeof(*out));
	const struct mapping *last = as->last_map < as->maps.n ? &as->maps.v[as->last_map] : NULL;
	const struct mapping *m = maps_find_near(&as->maps, last, addr);
	if (!m)
		return false;
	as->last_map = (size_t)(m - as->maps.v);
	out->map = m;
	int k = as->map_mod[m - as->maps.v];
	if (k < 0)
		return true;
	out->mod = &as->mods[k];
	struct elf_image *img = addrspace_image(as, out->mod);
	if (img)
		out->vaddr_ok = elf_image_offset_to_vaddr(img, addr - m->start + m->pgoff, &out->vaddr);
	return true;
}

bool module_runtime_addr(const struct module *mod, uint64_t vaddr, uint64_t *addr)
{
	if (!mod->bias_known)
		return false;
	*addr = vaddr + mod->bias;
	return true;
}

const struct mapping *addrspace_next_mapping(const struct addrspace *as, const struct module *mod,
					     size_t *idx)
{
	/* *idx is 0 at the start, else 1 + the mapping returned last */
	size_t i = *idx == 0 ? mod->first_map : as->map_next[*idx - 1];
	if (i == SIZE_MAX || i >= as->maps.n)
		return NULL;
	*idx = i + 1;
	return &as->maps.v[i];
}

const char *module_basename(const struct module *mod)
{
	const char *s = strrchr(mod->path, '/');
	return s ? s + 1 : mod->path;
}

void addrspace_preload(struct addrspace *as)
{
	for (size_t i = 0; i < as->maps.n; i++) {
		if (as->map_mod[i] < 0 || !(as->maps.v[i].prot & MAP_X))
			continue;
		struct elf_image *img = addrspace_image(as, &as->mods[as->map_mod[i]]);
		if (img)
			elf_image_cfi(img);
	}
}
