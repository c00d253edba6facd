/* safepoints.h — Maglev safepoint tables: which deoptimization entry a call's return address
 * belongs to. V8 itself names the frames of optimized code from the deoptimization entry of the
 * safepoint at the return address; v8walk uses it for Maglev code, whose source-position table
 * is imprecise inside peeled loop iterations and out-of-line code. Layout (measured on V8 13.6 and
 * 14.6, metadata start = instructions end): int32 length, uint32, uint32 entry configuration
 * (has_deopt_data bit 0, register-index bytes bits 1-3, pc bytes bits 4-6, deopt-index bytes
 * bits 7-9), uint32; then per entry: pc, [deopt index + 1, trampoline pc + 1], one byte of extra
 * spill slots, the register indexes. */
#ifndef V8WALK_SAFEPOINTS_H
#define V8WALK_SAFEPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MAGLEV_SAFEPOINT_HEADER = 16, MAGLEV_SAFEPOINT_CONFIG = 8, MAGLEV_SAFEPOINT_MAX = 1 << 16 };

/* Bytes a table with this header needs (0 when the header is implausible). */
size_t maglev_safepoints_size(const uint8_t *header, size_t n);
/* The deoptimization index of the safepoint at pc_offset (a return address); false when there
 * is none or it carries no deoptimization entry. */
bool maglev_deopt_index(const uint8_t *table, size_t n, uint32_t pc_offset, int *deopt_index);

#endif
