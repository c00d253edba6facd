/* eh_frame_check.h — a pass over an .eh_frame section before libdw interprets it: every register
 * number in the call-frame instructions of every CIE and FDE must be plausible. libdw grows (and
 * zeroes) its per-frame register table up to the largest register number an FDE names, so one
 * crafted DW_CFA_offset_extended in a library a target maps would cost v8walk 2 GiB and seconds
 * per PC looked up, while the target's thread is held stopped (found by fuzz/fuzz_cfi.c). */
#ifndef V8WALK_EH_FRAME_CHECK_H
#define V8WALK_EH_FRAME_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { EH_FRAME_MAX_REG = 255 }; /* x86-64's DWARF registers end near 130 */

/* What libdw's parse_eh_frame_hdr (dwarf_getcfi_elf.c) makes of an .eh_frame_hdr at `vaddr`:
 * the address of the .eh_frame it names, and its binary-search table when libdw will search it
 * (`table` NULL when it will not: no count, a count of 0, no table encoding or a LEB128 one). */
struct eh_frame_hdr {
	uint64_t eh_frame_ptr;
	const uint8_t *buf; /* the section's bytes [0, size), at vaddr */
	size_t size;
	uint64_t vaddr;
	const uint8_t *table; /* inside buf */
	size_t entries;       /* 2 values each, in encoding `enc` */
	uint8_t enc;
};

/* Parse an .eh_frame_hdr as libdw does. False when libdw gets no CFI from it (a version other
 * than 1, no .eh_frame pointer, a value it cannot read, a table longer than the section) and
 * also when it would read a value this parse does not follow (an aligned, indirect or LEB128
 * encoding): either way, whatever it points at must not be handed to libdw. */
bool eh_frame_hdr_parse(const unsigned char *e_ident, const uint8_t *buf, size_t size,
			uint64_t vaddr, struct eh_frame_hdr *h);

/* True when no instruction stream libdw can reach from this section's entries names a register
 * above EH_FRAME_MAX_REG: the entries and streams are split as libdw splits them (its linear FDE
 * search skips an entry it refuses but can measure; an FDE's CIE may lie anywhere; see
 * eh_frame_check.c). `e_ident` is the file's ELF identification, `elf_data` an Elf_Data over
 * the frame data libdw reads (the .eh_frame section, or what PT_GNU_EH_FRAME points at).
 * `hdr`, when libdw will binary-search its table (hdr->table set; NULL otherwise), must point
 * every entry at an FDE of this chain (and so checked): libdw reads an FDE at whatever offset
 * the table gives (entry address - `frame_vaddr`, the address libdw gives the frame data),
 * also one inside another entry, which the chain never reads. */
bool eh_frame_cfi_ok(const unsigned char *e_ident, void *elf_data, uint64_t frame_vaddr,
		     const struct eh_frame_hdr *hdr);

/* eh_frame_cfi_ok with no search table: the chain only. */
bool eh_frame_registers_ok(const unsigned char *e_ident, void *elf_data);

#endif
