/* writers.c — the table of output formats and how a name or a file extension picks one. */
#include "writers.h"

#include <string.h>
#include <strings.h>

static const struct profile_writer writers[] = {
    {"tree", {".txt"}, write_tree, "indented call tree (default on a terminal or .txt)"},
    {"folded", {".folded", ".collapsed"}, write_folded, "FlameGraph folded stacks"},
    {"svg", {".svg"}, write_svg, "interactive flame graph (one self-contained file)"},
    {"speedscope", {".speedscope.json"}, write_speedscope, "speedscope: time order per thread"},
    {"cpuprofile", {".cpuprofile"}, write_cpuprofile, "Chrome DevTools / VS Code, one thread"},
    {"pprof", {".pb.gz", ".pprof"}, write_pprof, "gzipped pprof protobuf (go tool pprof)"},
};

const struct profile_writer *profile_writers(size_t *n)
{
	*n = sizeof(writers) / sizeof(writers[0]);
	return writers;
}

const struct profile_writer *profile_writer_named(const char *name)
{
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (!strcmp(writers[i].name, name))
			return &writers[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcasecmp(s + n - k, suffix);
}

const struct profile_writer *profile_writer_for_path(const char *path)
{
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		for (size_t e = 0; e < 3 && writers[i].extensions[e]; e++)
			if (ends_with(path, writers[i].extensions[e]))
				return &writers[i];
	return NULL;
}

void profile_writer_names(struct strbuf *out)
{
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		sb_printf(out, "%s%s", i ? ", " : "", writers[i].name);
}
