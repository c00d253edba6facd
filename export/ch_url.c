/* ch_url.c — parsing and checking the ClickHouse address (ch_url.h). */
#include "ch_url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ch_name_ok(const char *s, size_t len)
{
	if (len == 0 || len >= CH_NAME_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

static bool fail(char *why, size_t why_len, const char *msg)
{
	snprintf(why, why_len, "%s", msg);
	return false;
}

static bool host_ok(const char *s, size_t len)
{
	if (len == 0 || len >= CH_HOST_MAX)
		return false;
	if (s[0] == '[') {
		if (s[len - 1] != ']' || len < 3)
			return false;
		for (size_t i = 1; i + 1 < len; i++)
			if (!(isxdigit((unsigned char)s[i]) || s[i] == ':' || s[i] == '.'))
				return false;
		return true;
	}
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '.' || s[i] == '_'))
			return false;
	return true;
}

bool ch_url_parse(const char *text, struct ch_url *u, char *why, size_t why_len)
{
	static const struct {
		const char *prefix;
		bool tls;
	} schemes[] = {{"clickhouse://", false}, {"http://", false}, {"clickhouses://", true},
		       {"https://", true}};
	memset(u, 0, sizeof(*u));
	const char *rest = NULL;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i].prefix);
		if (!strncmp(text, schemes[i].prefix, n)) {
			rest = text + n;
			u->tls = schemes[i].tls;
			break;
		}
	}
	if (!rest)
		return fail(why, why_len, "the address must start with clickhouse://, clickhouses://, "
			    "http:// or https:// (e.g. clickhouse://HOST:8123/DB)");
	const char *slash = strchr(rest, '/');
	if (!slash)
		return fail(why, why_len, "the address names no database: clickhouse://HOST[:PORT]/DB[.TABLE]");
	const char *at = memchr(rest, '@', (size_t)(slash - rest));
	if (at)
		return fail(why, why_len, "the address holds credentials, which `ps` would show: put the "
			    "password in V8WALK_CLICKHOUSE_PASSWORD or --export-credentials FILE");
	/* the port: after the last ':' that is not inside an IPv6 bracket (']' forgets the ones before) */
	const char *hostend = slash, *colon = NULL;
	for (const char *c = rest; c < slash; c++) {
		if (*c == ']')
			colon = NULL;
		else if (*c == ':')
			colon = c;
	}
	u->port = u->tls ? 8443 : 8123;
	if (colon) {
		hostend = colon;
		char *end;
		long port = strtol(colon + 1, &end, 10);
		if (end != slash || colon + 1 == slash || port < 1 || port > 65535)
			return fail(why, why_len, "the port must be a number from 1 to 65535");
		u->port = (unsigned)port;
	}
	if (!host_ok(rest, (size_t)(hostend - rest)))
		return fail(why, why_len, "the host must be a name or an address (letters, digits, '-', "
			    "'.', or [IPv6])");
	memcpy(u->host, rest, (size_t)(hostend - rest));
	const char *db = slash + 1;
	const char *dot = strchr(db, '.');
	size_t dblen = dot ? (size_t)(dot - db) : strlen(db);
	if (!ch_name_ok(db, dblen))
		return fail(why, why_len, "the database name must be letters, digits and '_' (at most 63)");
	memcpy(u->database, db, dblen);
	const char *table = dot ? dot + 1 : "v8walk";
	if (!ch_name_ok(table, strlen(table)))
		return fail(why, why_len, "the table name must be letters, digits and '_' (at most 63)");
	snprintf(u->table, sizeof(u->table), "%s", table);
	snprintf(u->base, sizeof(u->base), "%s://%s:%u/", u->tls ? "https" : "http", u->host, u->port);
	return true;
}
