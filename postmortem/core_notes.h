/* core_notes.h — parsing a core's PT_NOTE segment into its core_file: NT_PRSTATUS (one per thread),
 * NT_PRPSINFO, NT_SIGINFO, NT_FILE and NT_AUXV. */
#ifndef V8WALK_CORE_NOTES_H
#define V8WALK_CORE_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "core_file.h"

/* Parse one note segment (may be called for several); false with *err on a malformed note. */
bool core_notes_parse(struct core_file *cf, const uint8_t *p, size_t len, struct strbuf *err);

#endif
