/* tls_client.h — TLS over a connected socket, as a client (mbedTLS): the server's certificate
 * chain is verified against the CAs given (a file) or the host's bundle (ca_bundle.h), and its
 * name against the host asked for — a DNS name by the certificate's DNS names (SNI sent), an IP
 * address by its IP address entries (mbedTLS 2.28 matches DNS names only: v8walk checks those
 * itself). TLS 1.2 and later. Reads and writes wait at most until a deadline. */
#ifndef V8WALK_TLS_CLIENT_H
#define V8WALK_TLS_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net_error.h"

struct tls_trust;   /* the CAs, the random generator and the configuration: one per server */
struct tls_session; /* one connection */

/* ca_file: a PEM file of the CAs to trust, or NULL for the host's bundle. NULL with NET_CONFIG
 * when no CA could be loaded. */
struct tls_trust *tls_trust_new(const char *ca_file, struct net_error *err);
void tls_trust_free(struct tls_trust *t);

/* Handshake over fd (connected, non-blocking) with `host` (a name, or an IP address with or
 * without brackets); NULL with NET_TLS (certificate, name, protocol), NET_IO or NET_TIMEOUT. */
struct tls_session *tls_session_start(struct tls_trust *t, int fd, const char *host,
				      uint64_t deadline_ns, struct net_error *err);
/* All of p[0..n), or false with the kind in *err. */
bool tls_session_send(struct tls_session *s, const void *p, size_t n, uint64_t deadline_ns,
		      struct net_error *err);
/* Bytes read (> 0), 0 when the server closed the connection, -1 with the kind in *err. */
ssize_t tls_session_recv(struct tls_session *s, void *p, size_t n, uint64_t deadline_ns,
			 struct net_error *err);
/* Free the session (the socket stays the caller's to close). */
void tls_session_free(struct tls_session *s);

#endif
