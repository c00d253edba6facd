/* version.h — V8 and Node versions: parsing, packing for table comparisons, and the Node line that
 * ships each V8 line. */
#ifndef V8WALK_VERSION_H
#define V8WALK_VERSION_H

#include <stdbool.h>
#include <stdint.h>

struct v8_version {
	int major, minor, build, patch;
};

/* Pack for ordered comparison; V8V(12, 4, 254) < V8V(12, 5, 0). */
#define V8V(a, b, c) (((uint64_t)(a) << 48) | ((uint64_t)(b) << 32) | ((uint64_t)(c) << 16))

static inline uint64_t v8_version_key(const struct v8_version *v)
{
	return V8V(v->major, v->minor, v->build) | (uint64_t)(v->patch & 0xffff);
}

/* Parse "12.4.254.21" or "12.4" (missing parts are 0); false on garbage. */
bool v8_version_parse(const char *s, struct v8_version *out);
/* The Node release line that ships a V8 major.minor, or 0 when unknown. */
int node_line_for_v8(const struct v8_version *v);

#endif
