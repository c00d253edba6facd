/* tcp_connect.h — a TCP connection to the first of a list of addresses that accepts, each given
 * its share of the time left; the socket is non-blocking, close-on-exec, with TCP_NODELAY. */
#ifndef V8WALK_TCP_CONNECT_H
#define V8WALK_TCP_CONNECT_H

#include <stdint.h>

#include "addr_list.h"
#include "net_error.h"

/* The connected socket, or -1 with NET_CONNECT (refused everywhere, or no answer by
 * deadline_ns) and one line naming the last address tried in *err. `what` names the server
 * in that line ("HOST:PORT"). */
int tcp_connect(const struct addr_list *addrs, unsigned port, uint64_t deadline_ns,
		const char *what, struct net_error *err);

#endif
