/* elf_notes.h — walking ELF notes (namesz, descsz, type, name and desc each padded to 4 bytes),
 * shared by ELF images (the GNU build-id) and core files (threads, mapped files, auxv). */
#ifndef V8WALK_ELF_NOTES_H
#define V8WALK_ELF_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_note {
	uint32_t type, namesz, descsz;
	const uint8_t *name, *desc;
};

/* The note at *off of the block [p, p + len): fills *n and moves *off past it. False at the end
 * of the block, and when the note does not fit in it (*off is then left where it was). */
bool elf_note_next(const uint8_t *p, size_t len, size_t *off, struct elf_note *n);
/* Is this note's name `name` (NUL included in namesz, as ELF writes it)? */
bool elf_note_named(const struct elf_note *n, const char *name);
/* The GNU build-id in a block of notes: copies it to out (at most cap bytes) and returns its
 * length, 0 when absent. */
size_t elf_notes_build_id(const uint8_t *notes, size_t len, uint8_t *out, size_t cap);

#endif
