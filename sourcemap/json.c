/* json.c — the bounded pull-style JSON reader. */
#include "json.h"

#include <string.h>

static bool fail(struct json *j, const char *why)
{
	if (!j->err)
		j->err = why;
	return false;
}

void json_init(struct json *j, const char *buf, size_t len)
{
	j->p = buf;
	j->end = buf + len;
	j->depth = 0;
	j->err = NULL;
}

static void ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

char json_peek(struct json *j)
{
	ws(j);
	return j->p < j->end ? *j->p : 0;
}

bool json_enter(struct json *j, char open)
{
	if (j->err)
		return false;
	if (json_peek(j) != open)
		return fail(j, open == '{' ? "expected an object" : "expected an array");
	if (j->depth >= JSON_MAX_DEPTH)
		return fail(j, "JSON nested too deeply");
	j->p++;
	j->depth++;
	return true;
}

bool json_more(struct json *j, char close, bool *first)
{
	if (j->err)
		return false;
	char c = json_peek(j);
	if (c == close) {
		j->p++;
		j->depth--;
		return false;
	}
	if (!*first) {
		if (c != ',')
			return fail(j, "expected ',' or a closing bracket");
		j->p++;
		if (json_peek(j) == close)
			return fail(j, "trailing comma");
	} else if (c == 0) {
		return fail(j, "unterminated object or array");
	}
	*first = false;
	return true;
}

static bool hex4(struct json *j, uint32_t *u)
{
	if (j->end - j->p < 4)
		return fail(j, "truncated \\u escape");
	*u = 0;
	for (int i = 0; i < 4; i++) {
		int h = hex_digit(j->p[i]);
		if (h < 0)
			return fail(j, "bad \\u escape");
		*u = *u << 4 | (uint32_t)h;
	}
	j->p += 4;
	return true;
}

static void put_utf8(struct strbuf *out, uint32_t u)
{
	char b[4];
	size_t n;
	if (u < 0x80) {
		b[0] = (char)u;
		n = 1;
	} else if (u < 0x800) {
		b[0] = (char)(0xc0 | u >> 6);
		b[1] = (char)(0x80 | (u & 0x3f));
		n = 2;
	} else if (u < 0x10000) {
		b[0] = (char)(0xe0 | u >> 12);
		b[1] = (char)(0x80 | (u >> 6 & 0x3f));
		b[2] = (char)(0x80 | (u & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | u >> 18);
		b[1] = (char)(0x80 | (u >> 12 & 0x3f));
		b[2] = (char)(0x80 | (u >> 6 & 0x3f));
		b[3] = (char)(0x80 | (u & 0x3f));
		n = 4;
	}
	sb_addn(out, b, n);
}

static bool escape(struct json *j, struct strbuf *out)
{
	if (j->p >= j->end)
		return fail(j, "unterminated string");
	char c = *j->p++;
	const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
	const char *at = c ? strchr(from, c) : NULL;
	if (at) {
		sb_addc(out, to[at - from]);
		return true;
	}
	if (c != 'u')
		return fail(j, "bad escape in a string");
	uint32_t u;
	if (!hex4(j, &u))
		return false;
	if (u >= 0xd800 && u < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
		const char *save = j->p;
		j->p += 2;
		uint32_t lo;
		if (!hex4(j, &lo))
			return false;
		if (lo >= 0xdc00 && lo < 0xe000)
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		else
			j->p = save; /* a lone high surrogate: written as is */
	}
	put_utf8(out, u);
	return true;
}

bool json_read_string(struct json *j, struct strbuf *out)
{
	if (j->err)
		return false;
	if (json_peek(j) != '"')
		return fail(j, "expected a string");
	j->p++;
	for (;;) {
		const char *run = j->p;
		while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
			j->p++;
		sb_addn(out, run, (size_t)(j->p - run));
		if (j->p >= j->end)
			return fail(j, "unterminated string");
		char c = *j->p++;
		if (c == '"')
			return true;
		if (c != '\\')
			return fail(j, "control character in a string");
		if (!escape(j, out))
			return false;
	}
}

bool json_key(struct json *j, struct strbuf *key)
{
	sb_reset(key);
	if (!json_read_string(j, key))
		return false;
	if (json_peek(j) != ':')
		return fail(j, "expected ':' after a key");
	j->p++;
	return true;
}

/* Scan a number's syntax; *integral says it had no fraction or exponent. */
static bool scan_number(struct json *j, bool *integral)
{
	const char *p = j->p;
	if (p < j->end && *p == '-')
		p++;
	if (p >= j->end || *p < '0' || *p > '9')
		return fail(j, "bad value");
	if (*p == '0')
		p++;
	else
		while (p < j->end && *p >= '0' && *p <= '9')
			p++;
	*integral = true;
	if (p < j->end && *p == '.') {
		*integral = false;
		p++;
		if (p >= j->end || *p < '0' || *p > '9')
			return fail(j, "bad number");
		while (p < j->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < j->end && (*p == 'e' || *p == 'E')) {
		*integral = false;
		p++;
		if (p < j->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= j->end || *p < '0' || *p > '9')
			return fail(j, "bad number");
		while (p < j->end && *p >= '0' && *p <= '9')
			p++;
	}
	j->p = p;
	return true;
}

bool json_int(struct json *j, int64_t *v)
{
	if (j->err)
		return false;
	json_peek(j);
	const char *start = j->p;
	bool integral;
	if (!scan_number(j, &integral))
		return false;
	if (!integral)
		return fail(j, "expected an integer");
	bool neg = *start == '-';
	uint64_t mag = 0;
	for (const char *p = start + neg; p < j->p; p++) {
		if (mag > (UINT64_C(1) << 62) / 10)
			return fail(j, "integer out of range");
		mag = mag * 10 + (uint64_t)(*p - '0');
	}
	if (mag > (UINT64_C(1) << 62))
		return fail(j, "integer out of range");
	*v = neg ? -(int64_t)mag : (int64_t)mag;
	return true;
}

static bool literal(struct json *j, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return fail(j, "bad value");
	j->p += n;
	return true;
}

/* One scalar (string, number, literal), skipped. */
static bool skip_scalar(struct json *j, char c)
{
	if (c == '"') {
		j->p++;
		while (j->p < j->end && *j->p != '"') {
			if ((unsigned char)*j->p < 0x20)
				return fail(j, "control character in a string");
			if (*j->p == '\\' && j->end - j->p < 2)
				break;
			j->p += *j->p == '\\' ? 2 : 1;
		}
		if (j->p >= j->end)
			return fail(j, "unterminated string");
		j->p++;
		return true;
	}
	if (c == 't')
		return literal(j, "true");
	if (c == 'f')
		return literal(j, "false");
	if (c == 'n')
		return literal(j, "null");
	bool integral;
	return scan_number(j, &integral);
}

bool json_skip(struct json *j)
{
	if (j->err)
		return false;
	/* per open bracket: its closing character and whether it has had an element yet */
	char stack[JSON_MAX_DEPTH];
	bool first[JSON_MAX_DEPTH];
	int depth = 0;
	for (;;) {
		char c = json_peek(j);
		if (c == '{' || c == '[') {
			if (j->depth + depth >= JSON_MAX_DEPTH)
				return fail(j, "JSON nested too deeply");
			stack[depth] = c == '{' ? '}' : ']';
			first[depth++] = true;
			j->p++;
		} else if (!skip_scalar(j, c)) {
			return false;
		}
		/* after a value: close finished containers, then find the next value */
		for (;;) {
			if (depth == 0)
				return true;
			char close = stack[depth - 1];
			c = json_peek(j);
			if (c == close) {
				j->p++;
				depth--;
				continue;
			}
			if (!first[depth - 1]) {
				if (c != ',')
					return fail(j, "expected ',' or a closing bracket");
				j->p++;
			}
			first[depth - 1] = false;
			if (close == '}') {
				if (json_peek(j) != '"' || !skip_scalar(j, '"'))
					return fail(j, "expected a key");
				if (json_peek(j) != ':')
					return fail(j, "expected ':' after a key");
				j->p++;
			}
			break;
		}
	}
}

bool json_at_end(struct json *j)
{
	return json_peek(j) == 0 && j->p == j->end;
}
