/* core_space.h — a core's address space in the form the walker knows (symtab/addrspace.h): one
 * mapping per PT_LOAD, named and offset by the NT_FILE entry that covers it, plus the file
 * mappings the writer left out entirely (gcore omits code), whose permissions come from the
 * mapped ELF file's program headers. The modules behind them open lazily, by their NT_FILE path
 * (or a substitute such as --exe). */
#ifndef V8WALK_CORE_SPACE_H
#define V8WALK_CORE_SPACE_H

#include "../symtab/addrspace.h"
#include "core_file.h"

/* Initialize `as` (pid 0) with the core's mappings; `exe_subst` (may be NULL) replaces the
 * executable `exe_path` of the core. Modules are indexed but not opened, except those whose
 * mappings need permissions from their program headers. */
void core_space_build(struct addrspace *as, const struct core_file *cf, const char *exe_path,
		      const char *exe_subst);

#endif
