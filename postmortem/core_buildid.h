/* core_buildid.h — the build-id of an ELF file as the crashed process had it mapped, read from
 * the core's own copy of the file's first page (ELF header, program headers, notes), so that
 * the file on disk can be checked against it. */
#ifndef V8WALK_CORE_BUILDID_H
#define V8WALK_CORE_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core_file.h"

enum { BUILD_ID_MAX = 64 };

/* `start` is where the file's offset 0 is mapped. Returns the build-id length (0 when the core
 * does not hold the headers or they carry no build-id). */
size_t core_build_id(const struct core_file *cf, uint64_t start, uint8_t out[BUILD_ID_MAX]);

#endif
