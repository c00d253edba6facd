/* hosts_file.h — the addresses /etc/hosts gives a name: the text is hostile input (any bytes,
 * any length), read from a buffer so that it can be unit tested and fuzzed. */
#ifndef V8WALK_HOSTS_FILE_H
#define V8WALK_HOSTS_FILE_H

#include <stddef.h>

#include "addr_list.h"

/* Append to *out, in file order, the address of every line of text[0..len) that lists `name`
 * (case-insensitive; a trailing dot on name is ignored; '#' starts a comment; lines whose
 * address is not numeric are skipped). Returns how many were appended. */
size_t hosts_lookup(const char *text, size_t len, const char *name, struct addr_list *out);

#endif
