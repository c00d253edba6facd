/* user_groups.c — /etc/passwd and /etc/group lines read by hand (user_groups.h). */
#include "user_groups.h"

#include <string.h>

enum { FIELDS_MAX = 7 };

struct field {
	const char *s;
	size_t len;
};

/* Split line[0..len) at ':' into at most FIELDS_MAX fields; returns how many, or -1 for more. */
static int split(const char *line, size_t len, struct field *f)
{
	int n = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != ':')
			continue;
		if (n == FIELDS_MAX)
			return -1;
		f[n].s = line + start;
		f[n].len = i - start;
		n++;
		start = i + 1;
	}
	return n;
}

/* A decimal id below 2^32 - 1 (the value -1 stands for "no id" in the kernel's calls). */
static bool parse_id(const struct field *f, unsigned long *out)
{
	if (!f->len || f->len > 10)
		return false;
	unsigned long v = 0;
	for (size_t i = 0; i < f->len; i++) {
		if (f->s[i] < '0' || f->s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(f->s[i] - '0');
	}
	if (v >= 0xffffffffUL)
		return false;
	*out = v;
	return true;
}

static bool field_is(const struct field *f, const char *s, size_t slen)
{
	return f->len == slen && !memcmp(f->s, s, slen);
}

/* Call fn on every line of text[0..len) (without its '\n' and a '\r' before it) until it
 * returns true; lines starting with '+' or '-' (NIS compat entries) and '#' are skipped. */
static bool each_line(const char *text, size_t len,
		      bool (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t n = end - at;
		if (n && text[at + n - 1] == '\r')
			n--;
		if (n && text[at] != '+' && text[at] != '-' && text[at] != '#' && fn(ctx, text + at, n))
			return true;
		at = end + 1;
	}
	return false;
}

struct passwd_query {
	const char *user;
	size_t ulen;
	unsigned long uid, gid;
};

static bool passwd_line(void *ctx, const char *line, size_t len)
{
	struct passwd_query *q = ctx;
	struct field f[FIELDS_MAX];
	return split(line, len, f) == 7 && field_is(&f[0], q->user, q->ulen) &&
	       parse_id(&f[2], &q->uid) && parse_id(&f[3], &q->gid);
}

bool passwd_find(const char *text, size_t len, const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd_query q = {.user = user, .ulen = strlen(user)};
	if (!q.ulen || !each_line(text, len, passwd_line, &q))
		return false;
	*uid = (uid_t)q.uid;
	*gid = (gid_t)q.gid;
	return true;
}

struct group_query {
	const char *user;
	size_t ulen;
	gid_t *groups;
	int n, cap;
	bool overflow;
};

static bool add_group(struct group_query *q, gid_t g)
{
	for (int i = 0; i < q->n; i++)
		if (q->groups[i] == g)
			return true;
	if (q->n == q->cap) {
		q->overflow = true;
		return false;
	}
	q->groups[q->n++] = g;
	return true;
}

static bool group_line(void *ctx, const char *line, size_t len)
{
	struct group_query *q = ctx;
	struct field f[FIELDS_MAX];
	unsigned long gid;
	if (split(line, len, f) != 4 || !parse_id(&f[2], &gid))
		return false;
	const char *m = f[3].s, *end = f[3].s + f[3].len;
	while (m < end) {
		const char *comma = memchr(m, ',', (size_t)(end - m));
		const char *stop = comma ? comma : end;
		struct field member = {m, (size_t)(stop - m)};
		if (field_is(&member, q->user, q->ulen))
			return !add_group(q, (gid_t)gid); /* stop at an overflow */
		m = stop + 1;
	}
	return false;
}

int group_list(const char *text, size_t len, const char *user, gid_t primary, gid_t *groups,
	       int cap)
{
	struct group_query q = {.user = user, .ulen = strlen(user), .groups = groups, .cap = cap};
	if (!add_group(&q, primary))
		return -1;
	if (q.ulen)
		each_line(text, len, group_line, &q);
	return q.overflow ? -1 : q.n;
}
