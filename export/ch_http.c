/* ch_http.c — ClickHouse over HTTP with libcurl; credentials from the environment or a file
 * (ch_http.h). */
#include "ch_http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"

enum { CRED_FILE_MAX = 4096, ERROR_LINE_MAX = 300 };

static bool copy_cred(char *dst, const char *src, size_t len, const char *what, struct strbuf *why)
{
	if (len >= CH_CRED_MAX) {
		sb_printf(why, "the ClickHouse %s is longer than %d bytes", what, CH_CRED_MAX - 1);
		return false;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) {
			sb_printf(why, "the ClickHouse %s holds a control character", what);
			return false;
		}
	memcpy(dst, src, len);
	dst[len] = 0;
	return true;
}

static bool credentials_from_file(const char *file, struct ch_credentials *c, struct strbuf *why)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		sb_printf(why, "cannot read the credentials file ");
		sb_add_escaped_str(why, file);
		sb_printf(why, " (%s)", strerror(errno));
		return false;
	}
	char buf[CRED_FILE_MAX];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	size_t line = strcspn(buf, "\r\n");
	char *colon = memchr(buf, ':', line);
	if (!colon) {
		sb_add(why, "the credentials file's first line must be USER:PASSWORD");
		return false;
	}
	return copy_cred(c->user, buf, (size_t)(colon - buf), "user", why) &&
	       copy_cred(c->password, colon + 1, line - (size_t)(colon + 1 - buf), "password", why);
}

bool ch_credentials_load(const char *file, struct ch_credentials *c, struct strbuf *why)
{
	memset(c, 0, sizeof(*c));
	if (file && !credentials_from_file(file, c, why))
		return false;
	const char *user = getenv("V8WALK_CLICKHOUSE_USER");
	const char *password = getenv("V8WALK_CLICKHOUSE_PASSWORD");
	if (user && !copy_cred(c->user, user, strlen(user), "user", why))
		return false;
	if (password && !copy_cred(c->password, password, strlen(password), "password", why))
		return false;
	return true;
}

void ch_http_global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

bool ch_conn_init(struct ch_conn *c, const struct ch_url *u, const struct ch_credentials *cred)
{
	memset(c, 0, sizeof(*c));
	c->url = *u;
	c->cred = *cred;
	c->connect_timeout_ms = 2000;
	c->timeout_ms = 30000;
	c->ca_file = getenv("V8WALK_CLICKHOUSE_CA");
	if (c->ca_file && !c->ca_file[0])
		c->ca_file = NULL;
	c->curl = curl_easy_init();
	return c->curl != NULL;
}

void ch_conn_free(struct ch_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
}

struct answer_sink {
	struct strbuf *sb;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct answer_sink *a = ctx;
	size_t len = size * n;
	if (a->sb->len + len > CH_ANSWER_MAX) {
		a->too_big = true;
		return 0;
	}
	sb_addn(a->sb, p, len);
	return len;
}

/* ClickHouse's answer to a failed query, as one line: "Code: N, e.displayText() = …". */
static void server_error(const struct ch_conn *c, long status, const struct strbuf *answer,
			 struct strbuf *why)
{
	size_t line = answer->s ? strcspn(answer->s, "\r\n") : 0;
	if (line > ERROR_LINE_MAX)
		line = ERROR_LINE_MAX;
	bool auth = answer->s && (strstr(answer->s, "Code: 193,") || strstr(answer->s, "Code: 192,") ||
				  strstr(answer->s, "Code: 516,"));
	sb_printf(why, "ClickHouse at %s%s answered HTTP %ld: ", c->url.base,
		  auth ? " refused the credentials (V8WALK_CLICKHOUSE_USER/PASSWORD or "
			 "--export-credentials)," : "", status);
	if (line)
		sb_add_escaped(why, answer->s, line);
	else
		sb_add(why, "(no message)");
}

bool ch_curl_unreachable(int curl_code)
{
	switch ((CURLcode)curl_code) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return true;
	default:
		return false;
	}
}

bool ch_post(struct ch_conn *c, const char *query, const void *body, size_t len, bool gzip,
	     struct strbuf *answer, struct strbuf *why)
{
	CURL *h = c->curl;
	curl_easy_reset(h);
	struct strbuf url;
	sb_init(&url);
	sb_add(&url, c->url.base);
	if (body) {
		char *q = curl_easy_escape(h, query, 0);
		sb_printf(&url, "?query=%s", q ? q : "");
		curl_free(q);
	} else {
		body = query;
		len = strlen(query);
	}
	struct curl_slist *headers = NULL;
	if (gzip)
		headers = curl_slist_append(headers, "Content-Encoding: gzip");
	headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
	sb_reset(answer);
	struct answer_sink sink = {.sb = answer};
	char errbuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(h, CURLOPT_URL, url.s);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (c->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	if (c->cred.user[0] || c->cred.password[0]) {
		curl_easy_setopt(h, CURLOPT_USERNAME, c->cred.user[0] ? c->cred.user : "default");
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->cred.password);
	}
	CURLcode rc = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(headers);
	sb_free(&url);
	c->unreachable = rc != CURLE_OK && !sink.too_big && ch_curl_unreachable((int)rc);
	if (c->unreachable)
		snprintf(c->unreachable_why, sizeof(c->unreachable_why), "%s",
			 errbuf[0] ? errbuf : curl_easy_strerror(rc));
	if (rc != CURLE_OK) {
		if (sink.too_big)
			sb_printf(why, "ClickHouse at %s answered more than %zu MiB", c->url.base,
				  CH_ANSWER_MAX >> 20);
		else
			sb_printf(why, "cannot reach ClickHouse at %s (%s)", c->url.base,
				  errbuf[0] ? errbuf : curl_easy_strerror(rc));
		return false;
	}
	if (status != 200) {
		server_error(c, status, answer, why);
		return false;
	}
	return true;
}
