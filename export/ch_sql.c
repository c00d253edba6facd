/* ch_sql.c — quoting, filters and times for report's queries (ch_sql.h). */

#include "ch_sql.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/text_escape.h"

enum { WHERE_KEY_MAX = 64, WHERE_VALUE_MAX = 1024 };

bool ch_quote(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	sb_addc(out, '\'');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			sb_addc(out, '\\');
		sb_addc(out, s[i]);
	}
	sb_addc(out, '\'');
	return true;
}

static bool key_ok(const char *s, size_t len)
{
	if (!len || len > WHERE_KEY_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return false;
	return true;
}

static bool is_key(const char *k, size_t klen, const char *name)
{
	return strlen(name) == klen && !memcmp(k, name, klen);
}

bool ch_where_condition(struct strbuf *out, const char *key_value, struct strbuf *why)
{
	const char *eq = strchr(key_value, '=');
	if (!eq || !key_ok(key_value, (size_t)(eq - key_value))) {
		sb_add(why, "--where needs KEY=VALUE (service, host, process, thread, pid, tid or a "
			    "label's key), not '");
		sb_add_escaped_str(why, key_value);
		sb_addc(why, '\'');
		return false;
	}
	const char *k = key_value, *v = eq + 1;
	size_t klen = (size_t)(eq - key_value), vlen = strlen(v);
	if (vlen > WHERE_VALUE_MAX) {
		sb_printf(why, "--where %.*s: the value is longer than %d bytes", (int)klen, k,
			  WHERE_VALUE_MAX);
		return false;
	}
	size_t mark = out->len;
	if (is_key(k, klen, "pid") || is_key(k, klen, "tid")) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*v || *end || n < 0 || n > 0x7fffffff) {
			sb_printf(why, "--where %.*s needs a number", (int)klen, k);
			return false;
		}
		sb_printf(out, " AND %.*s = %ld", (int)klen, k, n);
		return true;
	}
	if (is_key(k, klen, "service") || is_key(k, klen, "host") || is_key(k, klen, "process") ||
	    is_key(k, klen, "thread")) {
		sb_printf(out, " AND %.*s = ", (int)klen, k);
	} else {
		sb_add(out, " AND labels.value[indexOf(labels.key, ");
		ch_quote(out, k, klen); /* a checked key: letters, digits, '_', '.', '-' */
		sb_add(out, ")] = ");
	}
	if (!ch_quote(out, v, vlen)) {
		out->len = mark;
		out->s[mark] = 0;
		sb_printf(why, "--where %.*s: the value holds a control character", (int)klen, k);
		return false;
	}
	return true;
}

bool ch_parse_time(const char *text, int64_t now, int64_t *out)
{
	if (!strcmp(text, "now")) {
		*out = now;
		return true;
	}
	char *end;
	if (text[0] == '@') {
		long long v = strtoll(text + 1, &end, 10);
		if (end == text + 1 || *end || v < 0)
			return false;
		*out = v;
		return true;
	}
	if (isdigit((unsigned char)text[0])) {
		double v = strtod(text, &end);
		double unit = !strcmp(end, "") || !strcmp(end, "s") ? 1
			      : !strcmp(end, "m")		    ? 60
			      : !strcmp(end, "h")		    ? 3600
			      : !strcmp(end, "d")		    ? 86400
								    : -1;
		if (end != text && unit > 0 && v >= 0 && v * unit < 1e10) {
			*out = now - (int64_t)(v * unit);
			return true;
		}
	}
	struct tm tm = {0};
	const char *formats[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
				 "%Y-%m-%dT%H:%M", "%Y-%m-%d"};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		memset(&tm, 0, sizeof(tm));
		const char *rest = strptime(text, formats[i], &tm);
		if (rest && (*rest == 0 || !strcmp(rest, "Z"))) {
			*out = (int64_t)timegm(&tm);
			return true;
		}
	}
	return false;
}
