/* native_names.h — naming native code addresses: module → ELF function symbol → demangled name
 * (no parameter lists unless asked), or "[unknown] (module+0xOFF)". Names are cached per symbol. */
#ifndef V8WALK_NATIVE_NAMES_H
#define V8WALK_NATIVE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "addrspace.h"

/* What native_name answered for one address, kept while the mappings stay the same. */
struct native_named {
	uint32_t name, file;
	uint64_t module_off;
};

struct native_names {
	struct addrspace *as;
	struct intern *strings;
	struct u64map by_symbol; /* symbol name pointer → interned id + 1 */
	struct u64map by_pc;     /* pc * 2 + is_return → index in named + 1 */
	struct native_named *named;
	size_t nnamed;
	unsigned long generation; /* as->generation the by_pc answers hold for */
	bool with_params;
};

void native_names_init(struct native_names *nn, struct addrspace *as, struct intern *strings,
		       bool with_params);
void native_names_free(struct native_names *nn);
/* Name a code address. `is_return` means pc is a return address (look up pc - 1). Sets *file to
 * the module's interned basename (0 if unmapped) and *module_off to the offset in that file.
 * Returns the interned name. */
uint32_t native_name(struct native_names *nn, uint64_t pc, bool is_return, uint32_t *file,
		     uint64_t *module_off);
/* Intern the demangled form of a symbol name (cached). */
uint32_t native_symbol_name(struct native_names *nn, const char *sym);

#endif
