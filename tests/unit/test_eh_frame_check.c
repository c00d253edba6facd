/* test_eh_frame_check.c — the register-number pass over .eh_frame (symtab/eh_frame_check.c): a
 * plain CIE and FDE pass; one naming a register in the millions (libdw would grow its table to
 * it: gigabytes) is refused, in the FDE's instructions and in the CIE's; a truncated stream or an
 * opcode libdw does not know is left to libdw. */
#include <criterion/criterion.h>
#include <elf.h>
#include <libelf.h>
#include <string.h>

#include "../../symtab/eh_frame_check.h"

/* CIE "zR" (pcrel|sdata4), CFA = rsp + 8, RA at CFA - 8; FDE: push rbp, CFA = rbp + 16; then
 * room for one more instruction of 6 bytes in the FDE (nops by default), and a terminator. */
static uint8_t frame[] = {
    0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0x0c, 0x07, 0x08,
    0x90, 0x01, 0, 0,
    0x1c, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0x41, 0x0e, 0x10, 0x86, 0x02,
    0x43, 0x0d, 0x06, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0};
enum { FDE_SPARE = 24 + 25, CIE_SPARE = 22 };

static bool check(const uint8_t *bytes, size_t n)
{
	unsigned char ident[EI_NIDENT] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
					  EV_CURRENT};
	uint8_t copy[sizeof(frame)];
	memcpy(copy, bytes, n);
	Elf_Data d = {.d_buf = copy, .d_size = n, .d_type = ELF_T_BYTE, .d_version = EV_CURRENT};
	return eh_frame_registers_ok(ident, &d);
}

Test(eh_frame_check, plain_frames_pass)
{
	cr_assert(check(frame, sizeof(frame)));
}

Test(eh_frame_check, a_huge_register_in_an_fde_is_refused)
{
	uint8_t f[sizeof(frame)];
	memcpy(f, frame, sizeof(f));
	/* DW_CFA_offset_extended reg 0x0fffffff (ULEB 4 bytes), offset 1 */
	const uint8_t op[] = {0x05, 0xff, 0xff, 0xff, 0x7f, 0x01};
	memcpy(f + FDE_SPARE, op, sizeof(op));
	cr_assert_not(check(f, sizeof(f)));
	/* the same with a plausible register passes */
	const uint8_t ok[] = {0x05, 0x10, 0x01, 0, 0, 0};
	memcpy(f + FDE_SPARE, ok, sizeof(ok));
	cr_assert(check(f, sizeof(f)));
}

Test(eh_frame_check, a_huge_register_in_a_cie_is_refused)
{
	uint8_t f[sizeof(frame)];
	memcpy(f, frame, sizeof(f));
	/* the CIE's last four bytes (DW_CFA_offset r16, two nops) become
	 * DW_CFA_def_cfa_register 16383 (ULEB ff 7f), nop */
	f[CIE_SPARE - 2] = 0x0d, f[CIE_SPARE - 1] = 0xff, f[CIE_SPARE] = 0x7f, f[CIE_SPARE + 1] = 0;
	cr_assert_not(check(f, sizeof(f)));
}

Test(eh_frame_check, an_unknown_opcode_or_a_cut_stream_is_left_to_libdw)
{
	uint8_t f[sizeof(frame)];
	memcpy(f, frame, sizeof(f));
	f[FDE_SPARE] = 0x3f; /* no such DW_CFA opcode: libdw refuses it; what follows is not read */
	f[FDE_SPARE + 1] = 0x05, f[FDE_SPARE + 2] = 0xff, f[FDE_SPARE + 3] = 0xff;
	cr_assert(check(f, sizeof(f)));
	memcpy(f, frame, sizeof(f));
	f[FDE_SPARE + 5] = 0x05; /* DW_CFA_offset_extended with no operands before the FDE ends */
	cr_assert(check(f, sizeof(f)));
}
