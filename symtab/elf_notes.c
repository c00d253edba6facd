/* elf_notes.c — ELF note iteration and the build-id note. */
#include "elf_notes.h"

#include <elf.h>
#include <string.h>

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

bool elf_note_next(const uint8_t *p, size_t len, size_t *off, struct elf_note *n)
{
	if (*off > len || len - *off < 12)
		return false;
	const uint8_t *h = p + *off;
	memcpy(&n->namesz, h, 4);
	memcpy(&n->descsz, h + 4, 4);
	memcpy(&n->type, h + 8, 4);
	size_t name_off = *off + 12;
	size_t desc_off = name_off + pad4(n->namesz);
	if (desc_off > len || n->descsz > len - desc_off)
		return false;
	n->name = p + name_off;
	n->desc = p + desc_off;
	size_t next = desc_off + pad4(n->descsz);
	*off = next < len ? next : len;
	return true;
}

bool elf_note_named(const struct elf_note *n, const char *name)
{
	size_t k = strlen(name) + 1;
	return n->namesz == k && memcmp(n->name, name, k) == 0;
}

size_t elf_notes_build_id(const uint8_t *notes, size_t len, uint8_t *out, size_t cap)
{
	size_t off = 0;
	struct elf_note n;
	while (elf_note_next(notes, len, &off, &n)) {
		if (n.type == NT_GNU_BUILD_ID && elf_note_named(&n, "GNU") && n.descsz <= cap) {
			memcpy(out, n.desc, n.descsz);
			return n.descsz;
		}
	}
	return 0;
}
