/* ch_url.h — the ClickHouse address of --export and report --from:
 * clickhouse://HOST[:PORT]/DB[.TABLE] (HTTP, default port 8123), clickhouses://… or
 * https://HOST[:PORT]/DB[.TABLE] (TLS, default port 8443), http://… as clickhouse://. TABLE is the
 * prefix of the two tables (TABLE_samples, TABLE_stacks; default "v8walk"). Credentials in the
 * address are refused: they would be visible in `ps` (ch_credentials.h says where they go). */
#ifndef V8WALK_CH_URL_H
#define V8WALK_CH_URL_H

#include <stdbool.h>
#include <stddef.h>

enum { CH_NAME_MAX = 64, CH_HOST_MAX = 256 };

struct ch_url {
	bool tls;
	char host[CH_HOST_MAX];   /* a name, an IPv4 address or a bracketed IPv6 address */
	unsigned port;
	char database[CH_NAME_MAX];
	char table[CH_NAME_MAX];  /* the tables' prefix */
	char base[CH_HOST_MAX + 32]; /* "http(s)://HOST:PORT/" */
};

/* Parse `text`; false with a one-line reason in why[0..why_len) when it is not such an address. */
bool ch_url_parse(const char *text, struct ch_url *u, char *why, size_t why_len);
/* A ClickHouse identifier v8walk accepts: [A-Za-z_][A-Za-z0-9_]{0,62}. */
bool ch_name_ok(const char *s, size_t len);

#endif
