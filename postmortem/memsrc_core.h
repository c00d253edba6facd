/* memsrc_core.h — the memory source of a core file: bytes the core holds are read from it; bytes it
 * left out of a file mapping (node's code and read-only data, V8's remapped builtins, library
 * text) are read from the mapped file on disk through the address space (NT_FILE path or
 * --exe); anything else fails. Misses are counted by cause, so that output can state the damage. */
#ifndef V8WALK_MEMSRC_CORE_H
#define V8WALK_MEMSRC_CORE_H

#include "../symtab/addrspace.h"
#include "../mem/memsrc.h"
#include "core_file.h"

struct core_misses {
	unsigned long truncated;   /* the core should hold the bytes but the file ends first */
	unsigned long not_dumped;  /* readable anonymous memory the writer left out */
	unsigned long no_file;     /* file-backed bytes neither in the core nor readable on disk */
};

struct memsrc_core {
	struct memsrc base;
	const struct core_file *cf;
	struct addrspace *as;
	struct core_misses miss;
	unsigned long from_core, from_files; /* successful reads by source */
};

void memsrc_core_init(struct memsrc_core *m, const struct core_file *cf, struct addrspace *as);

#endif
