/* resolve.h — a host name to addresses without NSS (so that a statically linked v8walk resolves
 * as a dynamic one would on the usual hosts): a numeric address first, then the hosts file, then
 * DNS through the resolver configuration (/etc/resolv.conf: its name servers, search domains and
 * ndots, so that a Kubernetes service name resolves inside a pod). IPv4 addresses are tried
 * before IPv6 ones for DNS; the hosts file keeps its own order. */
#ifndef V8WALK_RESOLVE_H
#define V8WALK_RESOLVE_H

#include <stdbool.h>

#include "addr_list.h"
#include "net_error.h"

enum { HOSTS_FILE_MAX = 1 << 20 }; /* bytes of the hosts file read at most */

/* host: a name, an IPv4 address or an IPv6 address with or without brackets; hosts_file: the
 * hosts file's path ("/etc/hosts"). false with NET_RESOLVE and one line in *err. */
bool net_resolve(const char *host, const char *hosts_file, struct addr_list *out,
		 struct net_error *err);

#endif
