/* version_info.h — `--version-info`: what v8walk detected in a target (node and V8 versions,
 * where the metadata came from, which fallbacks were used). */
#ifndef V8WALK_VERSION_INFO_H
#define V8WALK_VERSION_INFO_H

#include <stdio.h>

#include "../symtab/addrspace.h"
#include "../v8/runtime.h"

void print_version_info(FILE *out, const struct v8_runtime *rt, const struct addrspace *as);

#endif
