/* addr_list.c — address lists and numeric host text (addr_list.h). */
#include "addr_list.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

size_t net_addr_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

bool addr_list_add(struct addr_list *l, int family, const void *bytes)
{
	size_t len = net_addr_len(family);
	if (!len || l->n >= ADDR_LIST_MAX)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].family == family && !memcmp(l->v[i].a, bytes, len))
			return false;
	struct net_addr *a = &l->v[l->n++];
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(a->a, bytes, len);
	return true;
}

bool net_addr_parse(const char *text, size_t len, struct net_addr *out)
{
	char buf[64];
	if (len >= 2 && text[0] == '[' && text[len - 1] == ']') {
		text++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(buf) || memchr(text, 0, len))
		return false;
	memcpy(buf, text, len);
	buf[len] = 0;
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, out->a) == 1) {
		out->family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, buf, out->a) == 1) {
		out->family = AF_INET6;
		return true;
	}
	return false;
}

void net_addr_text(const struct net_addr *a, char *buf, size_t cap)
{
	if (!inet_ntop(a->family, a->a, buf, (socklen_t)cap) && cap)
		buf[0] = 0;
}
