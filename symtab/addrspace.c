/* addrspace.c — mappings → modules, address translation, lazy ELF opening. */
#include "addrspace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/safe_open.h"
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
	free(as->root);
	for (size_t i = 0; i < 2 * as->nsubst; i++)
		free(as->subst[i]);
	free(as->subst);
	memset(as, 0, sizeof(*as));
}

static bool is_file_path(const char *p)
{
	return p && p[0] == '/';
}

static int find_mod(const struct addrspace *as, const char *path, uint64_t inode)
{
	for (size_t i = 0; i < as->nmods; i++)
		if (as->mods[i].inode == inode && strcmp(as->mods[i].path, path) == 0)
			return (int)i;
	return -1;
}

void addrspace_index(struct addrspace *as)
{
	free(as->map_mod);
	as->map_mod = xcalloc(as->maps.n ? as->maps.n : 1, sizeof(int));
	for (size_t i = 0; i < as->maps.n; i++) {
		const struct mapping *m = &as->maps.v[i];
		if (!is_file_path(m->path)) {
			as->map_mod[i] = -1;
			continue;
		}
		int k = find_mod(as, m->path, m->inode);
		if (k < 0) {
			XGROW(as->mods, as->cap, as->nmods + 1);
			struct module *mod = &as->mods[as->nmods];
			memset(mod, 0, sizeof(*mod));
			mod->path = xstrdup(m->path);
			mod->inode = m->inode;
			k = (int)as->nmods++;
		}
		as->map_mod[i] = k;
	}
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
	if (local)
		mod->img = elf_image_open(local, &err);
	else
		mod->img = open_live(as, mod, &err);
	mod->open_err = err;
	if (mod->img)
		compute_bias(as, mod);
	return mod->img;
}

bool addrspace_lookup(struct addrspace *as, uint64_t addr, struct addr_info *out)
{
	memset(out, 0, sizeof(*out));
	const struct mapping *m = maps_find(&as->maps, addr);
	if (!m)
		return false;
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
	int k = (int)(mod - as->mods);
	for (; *idx < as->maps.n; (*idx)++) {
		if (as->map_mod[*idx] == k)
			return &as->maps.v[(*idx)++];
	}
	return NULL;
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
