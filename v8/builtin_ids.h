/* builtin_ids.h — which builtin a builtin closure runs. A closure V8 makes for a builtin (the
 * resolve closure of an `await`, the element closure of Promise.all) has a SharedFunctionInfo
 * that holds the builtin's id as a Smi; ids change in every V8 release, so they are named from
 * the binary's own table `builtin_metadata` (an array of 24-byte entries whose first word points
 * at the builtin's name): through its .symtab symbol in official builds, and in a stripped shared
 * libnode through the relocations that fill its name pointers in (the table is found from the
 * relocation of one known name, and extends as far as consecutive entries name builtins). */
#ifndef V8WALK_BUILTIN_IDS_H
#define V8WALK_BUILTIN_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../symtab/elf_image.h"

/* What a builtin closure means to an await chain (V8's CaptureAsyncStackTrace). */
enum async_builtin {
	AB_NONE,
	AB_AWAIT,             /* AsyncFunctionAwait{Resolve,Reject}Closure, AsyncGeneratorAwait*,
			       * AsyncGeneratorYield(WithAwait)ResolveClosure: context slot 2 is the
			       * suspended generator */
	AB_ALL_RESOLVE,       /* PromiseAllResolveElementClosure */
	AB_ALLSETTLED_RESOLVE,/* PromiseAllSettledResolveElementClosure */
	AB_ANY_REJECT,        /* PromiseAnyRejectElementClosure */
	AB_DEFAULT_RESOLVE,   /* PromiseCapabilityDefaultResolve (Promise.race, new Promise) */
};

struct builtin_ids {
	uint8_t *kind; /* enum async_builtin per builtin id */
	size_t n;
	const char *how; /* where the table was found, or why it was not */
};

/* Classify builtins by name: names[i] is builtin i's (NULL: unknown). */
void builtin_ids_from_names(struct builtin_ids *b, const char *const *names, size_t n);
/* Is this the table's symbol (the caller's pass over the binary's symbols looks for it)? */
bool builtin_ids_table_symbol(const char *name);
/* The table of a binary (ELF file only: no process memory is read), at its symbol's address and
 * size (size 0: no symbol; found through the relocations); false when it has none (b->how says
 * why), and then no closure is recognised by id. */
bool builtin_ids_load(struct builtin_ids *b, const struct elf_image *img, uint64_t table, uint64_t size);
void builtin_ids_free(struct builtin_ids *b);

static inline enum async_builtin builtin_ids_kind(const struct builtin_ids *b, int64_t id)
{
	return id >= 0 && (uint64_t)id < b->n ? (enum async_builtin)b->kind[id] : AB_NONE;
}

/* Relocations that put an address (addend) at a place (offset): R_X86_64_RELATIVE entries of
 * .rela.dyn, sorted by offset. */
struct reloc_table {
	uint64_t *offset;
	uint64_t *addend;
	size_t n;
};

/* The RELATIVE relocations of an ELF .rela.dyn section's bytes (sorted; caller frees with
 * reloc_table_free). */
void reloc_table_parse(struct reloc_table *r, const uint8_t *rela, size_t len);
void reloc_table_free(struct reloc_table *r);
/* The address a relocation puts at offset, if one does. */
bool reloc_table_at(const struct reloc_table *r, uint64_t offset, uint64_t *addend);

/* Is this address one of a builtin's name? (the caller's strings: a file or a test's buffer) */
typedef bool (*builtin_name_at_fn)(void *ctx, uint64_t vaddr, char *buf, size_t cap);

/* The table of 24-byte entries around the entry at `entry` (an address whose relocation points
 * at a name): back while the entry before names a builtin, forward likewise (at most `max`
 * entries). Returns the entry count and sets *start. */
size_t builtin_table_extent(const struct reloc_table *r, uint64_t entry, builtin_name_at_fn name_at,
			    void *ctx, size_t max, uint64_t *start);

#endif
