/* version.c — version parsing and the V8 → Node line table. */
#include "version.h"

#include <stdio.h>
#include <string.h>

bool v8_version_parse(const char *s, struct v8_version *out)
{
	memset(out, 0, sizeof(*out));
	int n = sscanf(s, "%d.%d.%d.%d", &out->major, &out->minor, &out->build, &out->patch);
	return n >= 2 && out->major > 0;
}

int node_line_for_v8(const struct v8_version *v)
{
	/* official releases; later minors of a line keep the same V8 minor */
	static const struct {
		int major, minor, node;
	} table[] = {
	    {9, 4, 16},  {10, 1, 18}, {10, 2, 18}, {11, 3, 20}, {12, 4, 22},
	    {13, 6, 24}, {14, 1, 25}, {14, 6, 26},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].major == v->major && table[i].minor == v->minor)
			return table[i].node;
	return 0;
}
