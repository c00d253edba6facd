/* demangle.c — C++ symbol demangling through libiberty's cplus_demangle. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

char *demangle(const char *name, bool with_params)
{
	if (strncmp(name, "_Z", 2) != 0)
		return xstrdup(name);
	int opts = DMGL_ANSI | (with_params ? DMGL_PARAMS : 0);
	char *d = cplus_demangle(name, opts);
	if (!d)
		return xstrdup(name);
	char *r = xstrdup(d);
	free(d);
	return r;
}
