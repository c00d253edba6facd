/* net_error.h — how a network operation failed, as a kind (for the caller's decisions: wait for
 * an unreachable server, stop at a refused certificate) and one line of text (for the user). */
#ifndef V8WALK_NET_ERROR_H
#define V8WALK_NET_ERROR_H

#include <stdbool.h>

enum net_fail {
	NET_OK = 0,
	NET_RESOLVE,  /* the name is in neither /etc/hosts nor DNS, or DNS did not answer */
	NET_CONNECT,  /* every address refused the connection or did not answer in time */
	NET_TIMEOUT,  /* the request's time ran out */
	NET_IO,       /* the connection broke (reset, closed before the answer ended) */
	NET_TLS,      /* the TLS handshake failed: certificate, name, protocol */
	NET_CONFIG,   /* no CA bundle could be loaded, or the TLS library could not start */
	NET_PROTOCOL, /* the server's answer is not HTTP/1.x as v8walk reads it */
	NET_TOO_BIG,  /* the answer is larger than the caller's limit */
};

enum { NET_ERROR_TEXT_MAX = 256 };

struct net_error {
	enum net_fail kind;
	char text[NET_ERROR_TEXT_MAX]; /* one line, no trailing period */
};

/* Set kind and text (printf-style); returns false so that callers can `return net_fail(...)`. */
bool net_fail(struct net_error *e, enum net_fail kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Could the server not be reached (rather than refusing us, or answering wrongly)? A caller
 * that waits for a server to come back waits on these only. */
bool net_fail_unreachable(enum net_fail kind);

#endif
