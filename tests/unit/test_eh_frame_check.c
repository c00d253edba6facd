/* test_eh_frame_check.c — the register-number pass over .eh_frame (symtab/eh_frame_check.c): a
 * plain CIE and FDE pass; one naming a register in the millions (libdw would grow its table to
 * it: gigabytes) is refused, in the FDE's instructions and in the CIE's; a truncated stream or an
 * opcode libdw does not know is left to libdw. The pass reads entries as libdw does: past an
 * entry dwarf_next_cfi refuses but can measure, a LEB128 cut at 10 bytes, an augmentation with
 * a letter it skips, a CIE met only through an FDE's pointer. */
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
	uint8_t copy[512];
	cr_assert(n <= sizeof(copy));
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

/* A section built entry by entry (little-endian, 64-bit). */
struct sec {
	uint8_t b[512];
	size_t n;
};

static void put(struct sec *s, const void *p, size_t n)
{
	cr_assert(s->n + n <= sizeof(s->b));
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put32(struct sec *s, uint32_t v)
{
	put(s, &v, 4);
}

/* A CIE, version 1: augmentation `aug` ("" or "z..."; for "z..." `ad` is its data), code
 * alignment 1, data alignment -8, return address r16, then `ins`. Returns its offset. */
static size_t put_cie(struct sec *s, const char *aug, const uint8_t *ad, size_t adn,
		      const uint8_t *ins, size_t insn)
{
	size_t at = s->n, alen = strlen(aug) + 1;
	bool z = aug[0] == 'z';
	put32(s, (uint32_t)(4 + 1 + alen + 3 + (z ? 1 + adn : 0) + insn));
	put32(s, 0);
	put(s, "\1", 1);
	put(s, aug, alen);
	put(s, "\x01\x78\x10", 3);
	if (z) {
		uint8_t l = (uint8_t)adn;
		put(s, &l, 1);
		put(s, ad, adn);
	}
	put(s, ins, insn);
	return at;
}

/* An FDE of the CIE at `cie_at` (its CIE pointer `ptr` instead when not 0): initial location
 * `loc` and range 0x40 in `asz` bytes each, an empty augmentation data block when `z`, then
 * `ins`. */
static void put_fde(struct sec *s, size_t cie_at, uint32_t ptr, size_t asz, uint8_t loc, bool z,
		    const uint8_t *ins, size_t insn)
{
	put32(s, (uint32_t)(4 + 2 * asz + z + insn));
	put32(s, ptr ? ptr : (uint32_t)(s->n - cie_at));
	uint8_t fields[16] = {loc};
	fields[asz] = 0x40;
	put(s, fields, 2 * asz);
	if (z)
		put(s, "", 1);
	put(s, ins, insn);
}

static const uint8_t zr_data[] = {0x1b};                     /* 'R': pcrel|sdata4 */
static const uint8_t cie_ins[] = {0x0c, 0x07, 0x08, 0x90, 0x01}; /* CFA = rsp + 8, RA at CFA-8 */
/* DW_CFA_val_offset, register 0x0f7ffffe (ULEB fe ff ff 7b: libdw grows its table to 2 GB) */
static const uint8_t huge_val_offset[] = {0x14, 0xfe, 0xff, 0xff, 0x7b, 0x00};
static const uint8_t small_val_offset[] = {0x14, 0x10, 0x00, 0x00, 0x00, 0x00};

/* fuzz/corpus/cfi/oom-fde-after-an-fde-with-a-bad-cie-pointer: an FDE whose CIE pointer points
 * before the section (dwarf_next_cfi refuses it, but has its length); libdw's linear search
 * skips it and uses the next FDE, whose DW_CFA_val_offset names register 260 million. The pass
 * stopped at the refused entry, and so never read the next. */
Test(eh_frame_check, a_huge_register_after_an_fde_with_a_bad_cie_pointer_is_refused)
{
	for (int huge = 0; huge < 2; huge++) {
		struct sec s = {0};
		size_t c = put_cie(&s, "zR", zr_data, 1, cie_ins, sizeof(cie_ins));
		const uint8_t nops[8] = {0};
		put_fde(&s, c, 0x7fffffff, 4, 0, true, nops, sizeof(nops));
		put_fde(&s, c, 0, 4, 0, true, huge ? huge_val_offset : small_val_offset,
			sizeof(huge_val_offset));
		put32(&s, 0);
		if (huge)
			cr_assert_not(check(s.b, s.n));
		else
			cr_assert(check(s.b, s.n));
	}
}

/* libdw reads a LEB128 to 10 bytes at most: an 11-byte DW_CFA_def_cfa_offset operand ends one
 * byte early, and that byte (DW_CFA_val_offset) starts the next instruction. */
static bool check_fde(const uint8_t *ins, size_t insn)
{
	struct sec s = {0};
	size_t c = put_cie(&s, "zR", zr_data, 1, cie_ins, sizeof(cie_ins));
	put_fde(&s, c, 0, 4, 0, true, ins, insn);
	put32(&s, 0);
	return check(s.b, s.n);
}

Test(eh_frame_check, a_leb128_ends_after_ten_bytes_as_in_libdw)
{
	uint8_t ins[1 + 10 + sizeof(huge_val_offset)];
	ins[0] = 0x0e;
	memset(ins + 1, 0x80, 10);
	memcpy(ins + 11, huge_val_offset, sizeof(huge_val_offset));
	cr_assert_not(check_fde(ins, sizeof(ins)));
	ins[10] = 0x00; /* a 10-byte operand ends there: the same instruction follows */
	cr_assert_not(check_fde(ins, sizeof(ins)));
	memcpy(ins + 11, small_val_offset, sizeof(small_val_offset));
	cr_assert(check_fde(ins, sizeof(ins)));
}

/* After 'z', libdw skips a letter it does not know and still takes the 'R' after it: the FDE's
 * address fields are 4 bytes each here, not 8 (absptr), so its instructions start earlier. */
Test(eh_frame_check, an_unknown_augmentation_letter_after_z_is_skipped_as_in_libdw)
{
	struct sec s = {0};
	const uint8_t udata4[] = {0x03};
	size_t c = put_cie(&s, "zXR", udata4, 1, cie_ins, sizeof(cie_ins));
	uint8_t ins[sizeof(huge_val_offset) + 8] = {0};
	memcpy(ins, huge_val_offset, sizeof(huge_val_offset));
	put_fde(&s, c, 0, 4, 0, true, ins, sizeof(ins));
	put32(&s, 0);
	cr_assert_not(check(s.b, s.n));
}

/* An FDE may point at a CIE the chain of entries never meets (here inside the block of another
 * CIE's DW_CFA_def_cfa_expression); libdw runs that CIE's initial instructions. */
Test(eh_frame_check, a_cie_met_only_through_an_fde_pointer_is_checked)
{
	/* the hidden CIE: no augmentation, DW_CFA_undefined register 0x0f7ffffe */
	const uint8_t hidden[] = {14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0x01, 0x78, 0x10,
				  0x07, 0xfe, 0xff, 0xff, 0x7b};
	uint8_t ins[2 + sizeof(hidden)];
	ins[0] = 0x0f, ins[1] = sizeof(hidden); /* DW_CFA_def_cfa_expression, the CIE as its block */
	memcpy(ins + 2, hidden, sizeof(hidden));
	struct sec s = {0};
	size_t outer = put_cie(&s, "", NULL, 0, ins, sizeof(ins));
	size_t inner = outer + 4 + 4 + 1 + 1 + 3 + 2; /* length, id, version, "", factors, op */
	cr_assert_eq(memcmp(s.b + inner, hidden, sizeof(hidden)), 0);
	const uint8_t nops[4] = {0};
	put_fde(&s, outer, 0, 8, 0, false, nops, sizeof(nops));  /* the outer CIE's FDE: fine */
	put_fde(&s, inner, 0, 8, 0x40, false, nops, sizeof(nops));  /* the hidden CIE's */
	put32(&s, 0);
	cr_assert_not(check(s.b, s.n));
}
