/* hosts_file.c — looking a name up in /etc/hosts text (hosts_file.h). */
#include "hosts_file.h"

#include <string.h>
#include <strings.h>

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The next field of line[*pos..end): its start and length, or false at the line's end. */
static bool next_field(const char *line, size_t end, size_t *pos, size_t *start, size_t *flen)
{
	size_t p = *pos;
	while (p < end && blank(line[p]))
		p++;
	if (p >= end)
		return false;
	*start = p;
	while (p < end && !blank(line[p]))
		p++;
	*flen = p - *start;
	*pos = p;
	return true;
}

size_t hosts_lookup(const char *text, size_t len, const char *name, struct addr_list *out)
{
	size_t nlen = strlen(name);
	if (nlen && name[nlen - 1] == '.')
		nlen--;
	if (!nlen)
		return 0;
	size_t added = 0;
	for (size_t line = 0; line < len;) {
		const char *nl = memchr(text + line, '\n', len - line);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *hash = memchr(text + line, '#', end - line);
		size_t stop = hash ? (size_t)(hash - text) : end;
		size_t pos = line, start, flen;
		struct net_addr addr;
		if (next_field(text, stop, &pos, &start, &flen) &&
		    net_addr_parse(text + start, flen, &addr) && text[start] != '[') {
			while (next_field(text, stop, &pos, &start, &flen)) {
				size_t f = flen;
				if (f > 1 && text[start + f - 1] == '.')
					f--;
				if (f == nlen && !strncasecmp(text + start, name, nlen)) {
					added += addr_list_add(out, addr.family, addr.a);
					break;
				}
			}
		}
		line = end + 1;
	}
	return added;
}
