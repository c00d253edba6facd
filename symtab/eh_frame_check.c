/* eh_frame_check.c — register numbers of .eh_frame call-frame instructions (eh_frame_check.h).
 * CIEs and FDEs are found with libdw's dwarf_next_cfi; an FDE's instructions start after its
 * address fields (sized by the CIE's 'R' pointer encoding) and its augmentation data. */
#include "eh_frame_check.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <string.h>

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			v = UINT64_MAX; /* too large for 64 bits: implausible anyway */
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static void skip(struct cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

/* Bytes of a pointer in DW_EH_PE encoding `enc` (0 = variable: LEB128). */
static size_t ptr_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: return 2;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: return 4;
	case DW_EH_PE_uleb128: case DW_EH_PE_sleb128: return 0;
	default: return 8; /* absptr, udata8, sdata8 */
	}
}

static void skip_ptr(struct cur *c, uint8_t enc)
{
	size_t n = ptr_size(enc);
	if (n)
		skip(c, n);
	else
		uleb(c);
}

/* Walk one instruction stream; false when it names an implausible register. */
static bool instructions_ok(const uint8_t *p, const uint8_t *end, uint8_t fde_enc)
{
	struct cur c = {p, end, false};
#define REG() do { if (uleb(&c) > EH_FRAME_MAX_REG) return false; } while (0)
	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc: continue;
		case DW_CFA_offset: uleb(&c); continue; /* register in the low 6 bits */
		case DW_CFA_restore: continue;
		}
		switch (op) {
		case DW_CFA_nop: case DW_CFA_remember_state: case DW_CFA_restore_state:
		case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_set_loc: skip_ptr(&c, fde_enc); break;
		case DW_CFA_advance_loc1: skip(&c, 1); break;
		case DW_CFA_advance_loc2: skip(&c, 2); break;
		case DW_CFA_advance_loc4: skip(&c, 4); break;
		case DW_CFA_offset_extended: case DW_CFA_def_cfa: case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
		case DW_CFA_offset_extended_sf: case DW_CFA_def_cfa_sf: case DW_CFA_val_offset_sf:
			REG(); uleb(&c); break; /* the second operand: (S)LEB128, same length rule */
		case DW_CFA_restore_extended: case DW_CFA_undefined: case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			REG(); break;
		case DW_CFA_register: REG(); REG(); break;
		case DW_CFA_def_cfa_offset: case DW_CFA_def_cfa_offset_sf: case DW_CFA_GNU_args_size:
			uleb(&c); break;
		case DW_CFA_def_cfa_expression: skip(&c, uleb(&c)); break;
		case DW_CFA_expression: case DW_CFA_val_expression: REG(); skip(&c, uleb(&c)); break;
		default:
			return true; /* libdw stops at an opcode it does not know, and so do we */
		}
	}
#undef REG
	return true;
}

/* The FDE pointer encoding of a CIE ('R' in a 'z' augmentation; absptr otherwise). */
static uint8_t cie_fde_encoding(const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	if (!aug || aug[0] != 'z' || !cie->augmentation_data)
		return DW_EH_PE_absptr;
	struct cur c = {cie->augmentation_data, cie->augmentation_data + cie->augmentation_data_size,
			false};
	for (const char *a = aug + 1; *a && c.p < c.end; a++) {
		if (*a == 'R')
			return *c.p;
		if (*a == 'L')
			c.p++;
		else if (*a == 'P') {
			uint8_t enc = *c.p++;
			skip_ptr(&c, enc);
		} else if (*a != 'S') {
			break;
		}
	}
	return DW_EH_PE_absptr;
}

bool eh_frame_registers_ok(const unsigned char *e_ident, void *elf_data)
{
	Elf_Data *data = elf_data;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e, cie;
	Dwarf_Off cie_off = (Dwarf_Off)-1;
	uint8_t enc = DW_EH_PE_absptr;
	int r;
	while ((r = dwarf_next_cfi(e_ident, data, true, off, &next, &e)) == 0) {
		if (dwarf_cfi_cie_p(&e)) {
			if (!instructions_ok(e.cie.initial_instructions, e.cie.initial_instructions_end,
					     cie_fde_encoding(&e.cie)))
				return false;
		} else {
			if (e.fde.CIE_pointer != cie_off) {
				Dwarf_Off unused;
				if (dwarf_next_cfi(e_ident, data, true, e.fde.CIE_pointer, &unused, &cie) != 0 ||
				    !dwarf_cfi_cie_p(&cie))
					goto next; /* libdw will not use this FDE either */
				cie_off = e.fde.CIE_pointer;
				enc = cie_fde_encoding(&cie.cie);
			}
			struct cur c = {e.fde.start, e.fde.end, false};
			skip_ptr(&c, enc); /* initial_location */
			skip_ptr(&c, enc & 0x0f); /* address_range */
			if (cie.cie.augmentation && cie.cie.augmentation[0] == 'z')
				skip(&c, uleb(&c));
			if (!c.bad && !instructions_ok(c.p, c.end, enc))
				return false;
		}
	next:
		if (next <= off)
			break;
		off = next;
	}
	return true;
}
