/* metadata.h — V8's postmortem metadata: the `v8dbg_*` integers a node binary (or libnode.so)
 * carries, read from .symtab and .dynsym, with lookups that ignore the type suffix of field names
 * (`class_X__f__Object` and `class_X__f__Tagged_Object_` are the same field). */
#ifndef V8WALK_METADATA_H
#define V8WALK_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../symtab/elf_image.h"
#include "version.h"

struct md_entry {
	char *name; /* without the "v8dbg_" prefix */
	int32_t value;
};

struct v8_metadata {
	struct md_entry *v; /* sorted by name */
	size_t n;
	struct v8_version version;
	bool have_version;
	char node_version[32]; /* "20.20.2" when the binary names it, else "" */
	int nodedbg_count;
};

/* Read everything from an ELF image; returns false (with *why) when it carries no metadata. */
bool v8md_load(struct v8_metadata *md, const struct elf_image *img, const char **why);
/* Build from (name, value) pairs (tests, and metadata read from other sources). */
void v8md_from_pairs(struct v8_metadata *md, const char *const *names, const int32_t *values,
		     size_t n);
void v8md_free(struct v8_metadata *md);

/* Look up one metadata spelling:
 *   "class_C__f"  any `class_C__f__<Type>` or the untyped `class_C__f`
 *   "type_NAME"   any `type_<Class>__NAME`
 *   anything else the exact name.
 * Writes the matched full name into *matched (may be NULL). */
bool v8md_lookup(const struct v8_metadata *md, const char *spec, int32_t *value,
		 const char **matched);
/* Every `frametype_<Name>` entry: calls cb(name, value) for each. */
void v8md_foreach_prefix(const struct v8_metadata *md, const char *prefix,
			 void (*cb)(void *ctx, const char *rest, int32_t value), void *ctx);

#endif
