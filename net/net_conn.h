/* net_conn.h — one client connection, plain TCP or TLS: opened to a host (resolved without NSS,
 * resolve.h) by a deadline, then written and read with every call bounded by a deadline. */
#ifndef V8WALK_NET_CONN_H
#define V8WALK_NET_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net_error.h"
#include "tls_client.h"

struct net_target {
	const char *host;          /* a name, an IPv4 address or a bracketed IPv6 address */
	unsigned port;
	struct tls_trust *tls;     /* NULL: plain TCP */
	const char *hosts_file;    /* "/etc/hosts" */
};

struct net_conn {
	int fd;                    /* -1: not open */
	struct tls_session *tls;
};

void net_conn_init(struct net_conn *c);
/* Resolve, connect (by connect_by_ns) and, for TLS, handshake (by deadline_ns). */
bool net_conn_open(struct net_conn *c, const struct net_target *t, uint64_t connect_by_ns,
		   uint64_t deadline_ns, struct net_error *err);
bool net_conn_is_open(const struct net_conn *c);
/* All of a[0..alen) then b[0..blen). */
bool net_conn_write2(struct net_conn *c, const void *a, size_t alen, const void *b, size_t blen,
		     uint64_t deadline_ns, struct net_error *err);
/* Bytes read (> 0), 0 at the server's close, -1 with the kind in *err. */
ssize_t net_conn_read(struct net_conn *c, void *buf, size_t cap, uint64_t deadline_ns,
		      struct net_error *err);
/* An idle connection the server closed (or sent something on) is not worth a request. */
bool net_conn_idle_broken(const struct net_conn *c);
void net_conn_close(struct net_conn *c);

#endif
