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

/* True when no instruction stream libdw can reach from this section's entries names a register
 * above EH_FRAME_MAX_REG: the entries and streams are split as libdw splits them (its linear FDE
 * search skips an entry it refuses but can measure; an FDE's CIE may lie anywhere; see
 * eh_frame_check.c). `e_ident` is the file's ELF identification, `elf_data` an Elf_Data over
 * the section's bytes. Only the section's own chain of entries is read: an .eh_frame_hdr search
 * table, which libdw follows to any offset, is not. */
bool eh_frame_registers_ok(const unsigned char *e_ident, void *elf_data);

#endif
