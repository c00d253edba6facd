/* addrspace.h — a target's address space: its mappings and the ELF modules behind them, with the
 * translation runtime address → (module, link-time vaddr) that symbolization and CFI need. The same
 * translation handles ld.so mappings and V8's remapped copy of the embedded builtins. */
#ifndef V8WALK_ADDRSPACE_H
#define V8WALK_ADDRSPACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf_image.h"
#include "image_share.h"
#include "maps.h"

struct module {
	char *path;             /* path as the target sees it */
	uint64_t inode;
	struct elf_image *img;  /* NULL until opened, or when it cannot be opened */
	const char *open_err;   /* why img is NULL after an attempt */
	bool tried;
	uint64_t bias;          /* runtime address = vaddr + bias (for ld.so-made mappings) */
	bool bias_known;
	size_t first_map, last_map; /* its mappings: first and last index (SIZE_MAX = none) */
};

struct addrspace {
	struct maps maps;
	struct module *mods;
	size_t nmods, cap;
	int *map_mod;       /* per mapping: module index, or -1 for anonymous memory */
	size_t *map_next;   /* per mapping: the next mapping of the same module (SIZE_MAX = last) */
	pid_t pid;          /* live target (0 for a core) */
	char *root;         /* prefix for file paths, e.g. "/proc/PID/root" ("" = as is) */
	char **subst;       /* pairs: target path, local file to open instead (e.g. --exe) */
	size_t nsubst;
	unsigned long generation; /* incremented whenever the mappings are re-indexed */
	struct image_share *share; /* images shared with other address spaces (NULL: its own) */
	size_t last_map;    /* the mapping the last lookup found (checked before a search: a walk
			     * asks for the same few, libnode's text and the JIT code, in turn) */
};

void addrspace_init(struct addrspace *as, pid_t pid, const char *root);
void addrspace_free(struct addrspace *as);
/* (Re)load the mappings of a live process; returns 0 or -errno. */
int addrspace_load_proc(struct addrspace *as);
/* Take ELF images of live files from `share` (and put those it opens there) instead of opening
 * them for this process alone; call before the first lookup. */
void addrspace_share_images(struct addrspace *as, struct image_share *share);
/* Open `local` whenever the target maps `target_path` (e.g. `--exe` for a core). */
void addrspace_substitute(struct addrspace *as, const char *target_path, const char *local);
/* Rebuild the module table after as->maps changed (used by the core-file loader too). */
void addrspace_index(struct addrspace *as);

struct addr_info {
	const struct mapping *map;
	struct module *mod; /* NULL for anonymous memory */
	uint64_t vaddr;     /* link-time address in mod (valid when mod && vaddr_ok) */
	bool vaddr_ok;
};

/* Resolve a runtime address; opens the module on first use. Returns false if unmapped. */
bool addrspace_lookup(struct addrspace *as, uint64_t addr, struct addr_info *out);
/* Open every module with executable mappings (and its unwind tables) now, so that the first
 * sample does not pay for it while the target is stopped. */
void addrspace_preload(struct addrspace *as);
/* Open (if needed) and return a module's image. */
struct elf_image *addrspace_image(struct addrspace *as, struct module *mod);
/* Runtime address of a link-time vaddr of mod (needs a known bias). */
bool module_runtime_addr(const struct module *mod, uint64_t vaddr, uint64_t *addr);
/* Find the mapping(s) of a module: iterate with *idx starting at 0; NULL when done. */
const struct mapping *addrspace_next_mapping(const struct addrspace *as, const struct module *mod,
					     size_t *idx);
/* Short module name (basename of its path). */
const char *module_basename(const struct module *mod);

#endif
