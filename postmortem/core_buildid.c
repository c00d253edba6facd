/* core_buildid.c — build-id from the headers an ELF mapping left in the core. Only the core's own
 * bytes are read: falling back to the file on disk would compare the file with itself. */
#include "core_buildid.h"

#include <elf.h>
#include <string.h>

#include "../symtab/elf_notes.h"

enum { MAX_PHDRS = 128, MAX_NOTES = 4096 };

static bool read_all(const struct core_file *cf, uint64_t addr, void *buf, size_t len)
{
	return core_read(cf, addr, buf, len) == len;
}

size_t core_build_id(const struct core_file *cf, uint64_t start, uint8_t out[BUILD_ID_MAX])
{
	Elf64_Ehdr eh;
	if (!read_all(cf, start, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > MAX_PHDRS)
		return 0;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (!read_all(cf, start + eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph)))
			return 0;
		if (ph.p_type != PT_NOTE || ph.p_filesz > MAX_NOTES)
			continue;
		uint8_t notes[MAX_NOTES];
		if (!read_all(cf, start + ph.p_offset, notes, ph.p_filesz))
			continue;
		size_t n = elf_notes_build_id(notes, ph.p_filesz, out, BUILD_ID_MAX);
		if (n)
			return n;
	}
	return 0;
}
