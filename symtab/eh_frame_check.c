/* eh_frame_check.c — register numbers of .eh_frame call-frame instructions (eh_frame_check.h).
 *
 * The pass reads the section the way libdw will (elfutils 0.188: dwarf_next_cfi.c, cie.c,
 * fde.c, cfi.c, encoded-value.h, memory-access.h), since a byte it splits differently is an
 * instruction it never looked at:
 * - the entries: those of libdw's linear FDE search (__libdw_find_fde), which skips an entry
 *   dwarf_next_cfi refuses but could measure (a bad CIE pointer or version) and reads on, and
 *   stops only at a terminator or at an entry it cannot measure;
 * - a CIE: the FDE pointer encoding and the FDE augmentation as intern_new_cie finds them ('z'
 *   wherever it is met, 'R'/'L'/'P' with or without it, other letters skipped after a 'z');
 *   the CIE's initial instructions, whether it is met in the chain or only through a pointer;
 * - an FDE: its address fields in that encoding, its augmentation data, its instructions;
 * - every (S|U)LEB128 as libdw reads it: at most 10 bytes, never past the stream's end.
 * Where libdw would read something this pass cannot follow (an aligned pointer encoding, whose
 * padding depends on the section's address; augmentation data past the section), the section
 * is refused. The conservative side elsewhere: every CIE and FDE is checked (libdw runs a CIE's
 * instructions only for an FDE that uses it, and an FDE's only up to the PC), and so is every
 * register operand, also those libdw keeps without growing its table (the CFA's register).
 *
 * An .eh_frame_hdr whose table libdw binary-searches sends it to an FDE at any offset the table
 * names, without the chain: every entry must name the start of an FDE the chain walk checked.
 * The header and its table are read as dwarf_getcfi_elf.c's parse_eh_frame_hdr and fde.c's
 * binary_search_fde read them (with their quirk: a pc-relative table value is relative to the
 * table's first byte taken to be at the header's address); an encoding that reading does not
 * follow refuses the header. */
#include "eh_frame_check.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

/* The section: its bytes [0, size) and the ELF class's address size. */
struct sec {
	const uint8_t *buf;
	size_t size;
	uint8_t addr_size;
};

/* A (S|U)LEB128 at buf[*at] in a stream ending at `end`, read as libdw's get_uleb128 and
 * get_sleb128 do: up to 10 bytes and never past `end`; one that does not end by then reads as
 * UINT64_MAX (only its length matters for a signed one). False when *at is already at `end`:
 * libdw would then read one byte of what follows (a value under 128, or UINT64_MAX, which its
 * own limit refuses) and stop, so nothing after matters. */
static bool leb(const uint8_t *buf, size_t *at, size_t end, uint64_t *v)
{
	if (*at >= end)
		return false;
	size_t max = end - *at < 10 ? end - *at : 10;
	uint64_t acc = 0;
	for (size_t i = 0; i < max; i++) {
		uint8_t b = buf[(*at)++];
		acc |= (uint64_t)(b & 0x7f) << (7 * i); /* i = 9: only bit 63 stays, as in libdw */
		if (!(b & 0x80)) {
			*v = acc;
			return true;
		}
	}
	*v = UINT64_MAX;
	return true;
}

/* encoded_value_size: bytes of a value in pointer encoding `enc`, 0 when libdw does not know
 * (omit, the signedness bit read away, a ULEB128 with no bytes given). For a ULEB128 at `at`
 * libdw counts up to the first byte that has its high bit set (sic), within the section. */
static size_t value_size(const struct sec *s, uint8_t enc, const size_t *at)
{
	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x07) {
	case DW_EH_PE_udata2: return 2;
	case DW_EH_PE_udata4: return 4;
	case DW_EH_PE_udata8: return 8;
	case DW_EH_PE_absptr: return s->addr_size;
	case DW_EH_PE_uleb128:
		if (at)
			for (size_t e = *at; e < s->size;)
				if (s->buf[e++] & 0x80)
					return e - *at;
		return 0;
	default: return 0;
	}
}

/* read_encoded_value, for where the value ends: false where libdw fails (its reads are bounded
 * by the section, not by the entry). The caller has ruled out DW_EH_PE_aligned. */
static bool skip_value(const struct sec *s, uint8_t enc, size_t *at)
{
	switch (enc & 0x70) {
	case DW_EH_PE_absptr: case DW_EH_PE_pcrel: case DW_EH_PE_textrel: case DW_EH_PE_datarel:
	case DW_EH_PE_funcrel:
		break;
	default:
		return false;
	}
	size_t n;
	switch (enc & 0x0f) {
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: n = 2; break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: n = 4; break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: n = 8; break;
	case DW_EH_PE_absptr: n = s->addr_size; break;
	case DW_EH_PE_uleb128: case DW_EH_PE_sleb128: {
		uint64_t unused;
		return leb(s->buf, at, s->size, &unused);
	}
	default:
		return false;
	}
	if (*at > s->size || n > s->size - *at)
		return false;
	*at += n; /* DW_EH_PE_indirect reads elsewhere: this pointer moves the same */
	return true;
}

/* What libdw's intern_new_cie makes of a CIE's augmentation. */
struct cie_info {
	uint8_t fde_enc;      /* the FDE pointer encoding, absptr made udata4/udata8 */
	bool sized;           /* FDEs have a ULEB128 length of augmentation data */
	size_t fde_aug_size;  /* else: the bytes of it ('L' without 'z') */
};

/* False when libdw's reading cannot be followed (see the top of the file). */
static bool cie_info(const struct sec *s, const Dwarf_CIE *cie, struct cie_info *ci)
{
	ci->fde_enc = DW_EH_PE_absptr;
	ci->sized = false;
	ci->fde_aug_size = 0;
	size_t d = (size_t)(cie->augmentation_data - s->buf);
	for (const char *ap = cie->augmentation; *ap; ap++) {
		uint8_t enc;
		switch (*ap) {
		case 'z':
			ci->sized = true;
			continue;
		case 'S':
			continue;
		case 'L':
			if (d >= s->size)
				return false;
			enc = s->buf[d++];
			if (!ci->sized)
				ci->fde_aug_size += value_size(s, enc, NULL);
			continue;
		case 'R':
			if (d >= s->size)
				return false;
			ci->fde_enc = s->buf[d++];
			continue;
		case 'P':
			if (d >= s->size)
				return false;
			enc = s->buf[d++];
			size_t n = value_size(s, enc, &d);
			d += n; /* past the section: the next read refuses */
			continue;
		default:
			if (ci->sized)
				continue; /* an unknown letter after 'z' has no data */
		}
		break;
	}
	if ((ci->fde_enc & 0x0f) == DW_EH_PE_absptr)
		ci->fde_enc |= s->addr_size == 4 ? DW_EH_PE_udata4 : DW_EH_PE_udata8;
	return (ci->fde_enc & 0x70) != DW_EH_PE_aligned;
}

/* Walk one instruction stream, buf[at, end), as execute_cfi does; false when it names a
 * register above EH_FRAME_MAX_REG. It ends where libdw's would (the end, an opcode or an
 * operand libdw refuses), or goes on where libdw would already have stopped (a row past the
 * PC, a CIE that moves the location). */
static bool instructions_ok(const struct sec *s, size_t at, size_t end, uint8_t fde_enc)
{
	const uint8_t *buf = s->buf;
	uint64_t v;
#define LEB() do { if (!leb(buf, &at, end, &v)) return true; } while (0)
#define REG() do { LEB(); if (v > EH_FRAME_MAX_REG) return false; } while (0)
#define FIXED(n) do { if (end - at < (n)) return true; at += (n); } while (0)
	while (at < end) {
		uint8_t op = buf[at++];
		switch (op & 0xc0) {
		case DW_CFA_advance_loc: continue;
		case DW_CFA_offset: LEB(); continue; /* the register: the low 6 bits */
		case DW_CFA_restore: continue;
		}
		switch (op) {
		case DW_CFA_nop: case DW_CFA_remember_state: case DW_CFA_restore_state:
		case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_set_loc:
			if (!skip_value(s, fde_enc, &at))
				return true;
			break;
		case DW_CFA_advance_loc1: FIXED(1); break;
		case DW_CFA_advance_loc2: FIXED(2); break;
		case DW_CFA_advance_loc4: FIXED(4); break;
		case DW_CFA_MIPS_advance_loc8: FIXED(8); break;
		case DW_CFA_offset_extended: case DW_CFA_def_cfa: case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
		case DW_CFA_offset_extended_sf: case DW_CFA_def_cfa_sf: case DW_CFA_val_offset_sf:
			REG(); LEB(); break; /* the second operand: (S)LEB128, the same length rule */
		case DW_CFA_restore_extended: case DW_CFA_undefined: case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			REG(); break;
		case DW_CFA_register: REG(); REG(); break;
		case DW_CFA_def_cfa_offset: case DW_CFA_def_cfa_offset_sf: case DW_CFA_GNU_args_size:
			LEB(); break;
		case DW_CFA_def_cfa_expression:
			LEB();
			if (v > end - at)
				return true;
			at += v;
			break;
		case DW_CFA_expression: case DW_CFA_val_expression:
			REG();
			LEB();
			if (v > end - at)
				return true;
			at += v;
			break;
		default:
			return true; /* libdw stops at an opcode it does not know, and so do we */
		}
	}
#undef FIXED
#undef REG
#undef LEB
	return true;
}

static bool cie_ok(const struct sec *s, const Dwarf_CIE *cie, struct cie_info *ci)
{
	return cie_info(s, cie, ci) &&
	       instructions_ok(s, (size_t)(cie->initial_instructions - s->buf),
			       (size_t)(cie->initial_instructions_end - s->buf), ci->fde_enc);
}

/* An FDE as intern_fde reads it with its CIE's `ci`: its address fields, its augmentation data,
 * then its instructions. One libdw cannot read that far is never run: true. */
static bool fde_ok(const struct sec *s, const Dwarf_FDE *fde, const struct cie_info *ci)
{
	size_t at = (size_t)(fde->start - s->buf), end = (size_t)(fde->end - s->buf);
	if (!skip_value(s, ci->fde_enc, &at) /* initial_location */ ||
	    !skip_value(s, ci->fde_enc & 0x0f, &at) /* address_range */ || at >= end)
		return true;
	if (ci->sized) {
		uint64_t len;
		if (!leb(s->buf, &at, end, &len) || len > end - at)
			return true;
		at += len;
	} else {
		if (ci->fde_aug_size >= end - at)
			return true;
		at += ci->fde_aug_size;
	}
	return instructions_ok(s, at, end, ci->fde_enc);
}

/* The FDE offsets the chain walk checked, in increasing order. */
struct offsets {
	Dwarf_Off *v;
	size_t n, cap;
};

static bool offsets_add(struct offsets *o, Dwarf_Off off)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 256;
		Dwarf_Off *v = realloc(o->v, cap * sizeof(*v));
		if (!v)
			return false;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = off;
	return true;
}

static bool offsets_has(const struct offsets *o, uint64_t off)
{
	size_t lo = 0, hi = o->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->v[mid] == off)
			return true;
		if (o->v[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The chain, as libdw's linear search reads it; the offset of every FDE checked into `fdes`
 * (when given). */
static bool chain_ok(const unsigned char *e_ident, Elf_Data *data, struct offsets *fdes)
{
	struct sec s = {data->d_buf, data->d_size, e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8};
	Dwarf_Off off = 0, cie_off = (Dwarf_Off)-1;
	struct cie_info ci = {0};
	for (;;) {
		Dwarf_Off next = off; /* dwarf_next_cfi leaves it there when it cannot measure the entry */
		Dwarf_CFI_Entry e;
		int r = dwarf_next_cfi(e_ident, data, true, off, &next, &e);
		if (r > 0)
			break; /* the end, or a terminator: libdw's search ends there too */
		if (r < 0) {
			if (next <= off)
				break; /* libdw cannot get past it either */
			off = next; /* libdw skips the entry and reads on: so do we */
			continue;
		}
		if (dwarf_cfi_cie_p(&e)) {
			struct cie_info unused;
			if (!cie_ok(&s, &e.cie, &unused))
				return false;
		} else {
			if (e.fde.CIE_pointer != cie_off) {
				Dwarf_Off unused;
				Dwarf_CFI_Entry cie;
				cie_off = (Dwarf_Off)-1;
				if (dwarf_next_cfi(e_ident, data, true, e.fde.CIE_pointer, &unused, &cie) != 0 ||
				    !dwarf_cfi_cie_p(&cie))
					goto next; /* libdw will not use this FDE either (not listed) */
				/* the CIE may be one the chain never meets: its instructions too */
				if (!cie_ok(&s, &cie.cie, &ci))
					return false;
				cie_off = e.fde.CIE_pointer;
			}
			if (!fde_ok(&s, &e.fde, &ci) || (fdes && !offsets_add(fdes, off)))
				return false;
		}
	next:
		if (next <= off)
			break;
		off = next;
	}
	return true;
}

/* An encoding of .eh_frame_hdr this file reads as read_encoded_value does: a base of nothing,
 * the value's own address or the header's, then a fixed-size value. */
static bool hdr_enc_ok(uint8_t enc)
{
	switch (enc & 0x70) {
	case DW_EH_PE_absptr: case DW_EH_PE_pcrel: case DW_EH_PE_textrel: case DW_EH_PE_datarel:
	case DW_EH_PE_funcrel:
		break;
	default:
		return false; /* aligned (padding by address), or one libdw refuses */
	}
	if (enc & DW_EH_PE_indirect)
		return false;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata2: case DW_EH_PE_sdata2: case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4: case DW_EH_PE_udata8: case DW_EH_PE_sdata8:
		return true;
	default:
		return false; /* a LEB128, or one libdw refuses */
	}
}

/* read_encoded_value of a value at buf[*at] of [buf, buf + size), which libdw places at `vaddr`
 * (pcrel: vaddr + *at; datarel: vaddr; textrel and funcrel: 0 in libdw's header reads). */
static bool hdr_value(const unsigned char *e_ident, const uint8_t *buf, size_t size,
		      uint64_t vaddr, uint8_t enc, size_t *at, uint64_t *out)
{
	if (!hdr_enc_ok(enc))
		return false;
	uint64_t base = (enc & 0x70) == DW_EH_PE_pcrel ? vaddr + *at
		      : (enc & 0x70) == DW_EH_PE_datarel ? vaddr : 0;
	size_t n;
	switch (enc & 0x07) {
	case DW_EH_PE_udata2: n = 2; break;
	case DW_EH_PE_udata4: n = 4; break;
	case DW_EH_PE_udata8: n = 8; break;
	default: n = e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8; break; /* absptr */
	}
	if (*at > size || n > size - *at)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) /* little-endian: eh_frame_hdr_parse refuses the other */
		v |= (uint64_t)buf[*at + i] << (8 * i);
	if ((enc & 0x0f) == DW_EH_PE_sdata2)
		v = (uint64_t)(int64_t)(int16_t)(uint16_t)v;
	else if ((enc & 0x0f) == DW_EH_PE_sdata4)
		v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	*at += n;
	*out = base + v;
	return true;
}

/* encoded_value_size of a table encoding (the step between entries is twice it) */
static size_t table_value_size(const unsigned char *e_ident, uint8_t enc)
{
	switch (enc & 0x07) {
	case DW_EH_PE_udata2: return 2;
	case DW_EH_PE_udata4: return 4;
	case DW_EH_PE_udata8: return 8;
	case DW_EH_PE_absptr: return e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	default: return 0;
	}
}

bool eh_frame_hdr_parse(const unsigned char *e_ident, const uint8_t *buf, size_t size,
			uint64_t vaddr, struct eh_frame_hdr *h)
{
	*h = (struct eh_frame_hdr){.buf = buf, .size = size, .vaddr = vaddr};
	/* libdw reads its 2-byte header values in the host's order and the others in the file's:
	 * only a little-endian file is read here */
	if (!buf || e_ident[EI_DATA] != ELFDATA2LSB || size < 4 || buf[0] != 1)
		return false;
	uint8_t ptr_enc = buf[1], count_enc = buf[2], table_enc = buf[3];
	size_t at = 4;
	if (ptr_enc == DW_EH_PE_omit || !hdr_value(e_ident, buf, size, vaddr, ptr_enc, &at,
						   &h->eh_frame_ptr))
		return false;
	if (count_enc == DW_EH_PE_omit)
		return true; /* no table: libdw searches the chain */
	uint64_t count;
	if (!hdr_value(e_ident, buf, size, vaddr, count_enc, &at, &count))
		return false;
	if (count == 0 || table_enc == DW_EH_PE_omit ||
	    (table_enc & ~DW_EH_PE_signed) == DW_EH_PE_uleb128)
		return true; /* no table either */
	size_t vsize = table_value_size(e_ident, table_enc);
	if (!vsize || count > ((size - at) / vsize) / 2)
		return false; /* libdw: no CFI */
	if (!hdr_enc_ok(table_enc))
		return false; /* libdw would read it: refused here */
	h->table = buf + at;
	h->entries = (size_t)count;
	h->enc = table_enc;
	return true;
}

/* Every table entry's FDE address names an FDE the chain walk checked. The values are read as
 * binary_search_fde reads them: from the table's first byte, which it takes to be at the
 * header's address. */
static bool table_ok(const unsigned char *e_ident, const struct eh_frame_hdr *h,
		     uint64_t frame_vaddr, const struct offsets *fdes)
{
	size_t vsize = table_value_size(e_ident, h->enc);
	size_t avail = h->size - (size_t)(h->table - h->buf);
	for (size_t i = 0; i < h->entries; i++) {
		size_t at = 2 * i * vsize + vsize; /* the entry's second value: the FDE */
		uint64_t fde;
		if (!hdr_value(e_ident, h->table, avail, h->vaddr, h->enc, &at, &fde) ||
		    !offsets_has(fdes, fde - frame_vaddr))
			return false;
	}
	return true;
}

bool eh_frame_cfi_ok(const unsigned char *e_ident, void *elf_data, uint64_t frame_vaddr,
		     const struct eh_frame_hdr *hdr)
{
	Elf_Data *data = elf_data;
	if (!data->d_buf)
		return !(hdr && hdr->table);
	if (!hdr || !hdr->table)
		return chain_ok(e_ident, data, NULL);
	struct offsets fdes = {0};
	bool ok = chain_ok(e_ident, data, &fdes) && table_ok(e_ident, hdr, frame_vaddr, &fdes);
	free(fdes.v);
	return ok;
}

bool eh_frame_registers_ok(const unsigned char *e_ident, void *elf_data)
{
	return eh_frame_cfi_ok(e_ident, elf_data, 0, NULL);
}
