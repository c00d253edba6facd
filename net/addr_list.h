/* addr_list.h — the IPv4 and IPv6 addresses a host name stands for, in the order to try them,
 * bounded and without repeats; and numeric host text ("10.0.0.1", "::1", "[::1]") to an address. */
#ifndef V8WALK_ADDR_LIST_H
#define V8WALK_ADDR_LIST_H

#include <stdbool.h>
#include <stddef.h>

enum { ADDR_LIST_MAX = 16 };

struct net_addr {
	int family;            /* AF_INET or AF_INET6 */
	unsigned char a[16];   /* 4 or 16 bytes, network order */
};

struct addr_list {
	size_t n;
	struct net_addr v[ADDR_LIST_MAX];
};

/* Append (family, bytes) unless it is there already or the list is full; true when appended. */
bool addr_list_add(struct addr_list *l, int family, const void *bytes);
/* The address length of a family: 4, 16, or 0 for another family. */
size_t net_addr_len(int family);
/* A numeric host: dotted-quad IPv4, or IPv6 with or without brackets (no zone index). */
bool net_addr_parse(const char *text, size_t len, struct net_addr *out);
/* "10.0.0.1" or "::1" into buf (at least 46 bytes). */
void net_addr_text(const struct net_addr *a, char *buf, size_t cap);

#endif
