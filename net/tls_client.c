/* tls_client.c — the TLS client over mbedTLS (tls_client.h). */
#include "tls_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include "../util/xalloc.h"
#include "addr_list.h"
#include "ca_bundle.h"
#include "fd_io.h"

enum { SAN_IP_TAG = MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS };

struct tls_trust {
	mbedtls_entropy_context entropy;
	mbedtls_ctr_drbg_context drbg;
	mbedtls_x509_crt ca;
	mbedtls_ssl_config conf;
	char source[256]; /* where the CAs came from, for the error lines */
};

struct tls_session {
	mbedtls_ssl_context ssl;
	int fd;
	uint64_t deadline_ns;
	enum net_fail io_fail; /* what the socket met in the last mbedTLS call (NET_OK: nothing) */
	int io_errno;
	bool by_ip;
	struct net_addr ip;
};

static void tls_text(int ret, char *buf, size_t cap)
{
	mbedtls_strerror(ret, buf, cap);
}

static bool load_cas(struct tls_trust *t, const char *ca_file, struct net_error *err)
{
	char text[128];
	int ret;
	if (ca_file) {
		snprintf(t->source, sizeof(t->source), "%s", ca_file);
		ret = mbedtls_x509_crt_parse_file(&t->ca, ca_file);
	} else if ((ca_file = ca_bundle_find()) != NULL) {
		snprintf(t->source, sizeof(t->source), "the host's CA bundle %s", ca_file);
		ret = mbedtls_x509_crt_parse_file(&t->ca, ca_file);
	} else {
		snprintf(t->source, sizeof(t->source), "the host's CA directory %s", ca_bundle_dir);
		ret = mbedtls_x509_crt_parse_path(&t->ca, ca_bundle_dir);
		if (ret < 0 || t->ca.version == 0)
			return net_fail(err, NET_CONFIG, "TLS: no CA bundle on this host (looked for %s and "
					"the other usual places, and %s/); set V8WALK_CLICKHOUSE_CA to a PEM "
					"file of the CAs to trust", ca_bundle_files[0], ca_bundle_dir);
	}
	if (ret < 0) {
		tls_text(ret, text, sizeof(text));
		return net_fail(err, NET_CONFIG, "TLS: cannot load the CAs of %s (%s)", t->source, text);
	}
	/* ret > 0: that many certificates could not be parsed; the others are trusted */
	if (t->ca.version == 0)
		return net_fail(err, NET_CONFIG, "TLS: %s holds no certificate v8walk can read", t->source);
	return true;
}

struct tls_trust *tls_trust_new(const char *ca_file, struct net_error *err)
{
	struct tls_trust *t = xcalloc(1, sizeof(*t));
	mbedtls_entropy_init(&t->entropy);
	mbedtls_ctr_drbg_init(&t->drbg);
	mbedtls_x509_crt_init(&t->ca);
	mbedtls_ssl_config_init(&t->conf);
	static const unsigned char who[] = "v8walk tls client";
	char text[128];
	int ret = mbedtls_ctr_drbg_seed(&t->drbg, mbedtls_entropy_func, &t->entropy, who, sizeof(who));
	if (ret) {
		tls_text(ret, text, sizeof(text));
		net_fail(err, NET_CONFIG, "TLS: cannot seed the random generator (%s)", text);
		goto fail;
	}
	if (!load_cas(t, ca_file, err))
		goto fail;
	ret = mbedtls_ssl_config_defaults(&t->conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
					  MBEDTLS_SSL_PRESET_DEFAULT);
	if (ret) {
		tls_text(ret, text, sizeof(text));
		net_fail(err, NET_CONFIG, "TLS: cannot configure mbedTLS (%s)", text);
		goto fail;
	}
	mbedtls_ssl_conf_authmode(&t->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_ca_chain(&t->conf, &t->ca, NULL);
	mbedtls_ssl_conf_rng(&t->conf, mbedtls_ctr_drbg_random, &t->drbg);
	mbedtls_ssl_conf_min_version(&t->conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	return t;
fail:
	tls_trust_free(t);
	return NULL;
}

void tls_trust_free(struct tls_trust *t)
{
	if (!t)
		return;
	mbedtls_ssl_config_free(&t->conf);
	mbedtls_x509_crt_free(&t->ca);
	mbedtls_ctr_drbg_free(&t->drbg);
	mbedtls_entropy_free(&t->entropy);
	free(t);
}

static int bio_send(void *ctx, const unsigned char *buf, size_t len)
{
	struct tls_session *s = ctx;
	ssize_t n = fd_send_by(s->fd, buf, len, s->deadline_ns, &s->io_fail);
	if (n < 0) {
		s->io_errno = errno;
		return MBEDTLS_ERR_NET_SEND_FAILED;
	}
	return (int)n;
}

static int bio_recv(void *ctx, unsigned char *buf, size_t len)
{
	struct tls_session *s = ctx;
	ssize_t n = fd_recv_by(s->fd, buf, len, s->deadline_ns, &s->io_fail);
	if (n < 0) {
		s->io_errno = errno;
		return MBEDTLS_ERR_NET_RECV_FAILED;
	}
	return (int)n;
}

/* The server's own certificate (depth 0) must list the address asked for among its IP
 * address entries (RFC 6125: an IP address never matches a DNS name or the CN). */
static int verify_ip(void *ctx, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
	const struct tls_session *s = ctx;
	if (depth != 0)
		return 0;
	size_t len = net_addr_len(s->ip.family);
	for (const mbedtls_x509_sequence *san = &crt->subject_alt_names; san; san = san->next)
		if (san->buf.tag == SAN_IP_TAG && san->buf.len == len && san->buf.p &&
		    !memcmp(san->buf.p, s->ip.a, len))
			return 0;
	*flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
	return 0;
}

/* The verification flags as one line. */
static void describe_verify(uint32_t flags, const char *host, const char *source,
			    struct net_error *err)
{
	char *line = err->text;
	err->kind = NET_TLS;
	snprintf(line, NET_ERROR_TEXT_MAX, "TLS: the server's certificate");
	size_t at = strlen(line);
	const char *sep = " ";
	struct {
		uint32_t flag;
		const char *text;
	} known[] = {
		{MBEDTLS_X509_BADCERT_NOT_TRUSTED, "is not signed by a CA in %s (V8WALK_CLICKHOUSE_CA "
						   "names the CA file of a private or self-signed server)"},
		{MBEDTLS_X509_BADCERT_CN_MISMATCH, "is not valid for %s"},
		{MBEDTLS_X509_BADCERT_EXPIRED, "has expired"},
		{MBEDTLS_X509_BADCERT_FUTURE, "is not valid yet (is the clock right?)"},
		{MBEDTLS_X509_BADCERT_REVOKED, "is revoked"},
	};
	uint32_t rest = flags;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (!(flags & known[i].flag))
			continue;
		rest &= ~known[i].flag;
		const char *arg = known[i].flag == MBEDTLS_X509_BADCERT_CN_MISMATCH ? host : source;
		at += (size_t)snprintf(line + at, at < NET_ERROR_TEXT_MAX ? NET_ERROR_TEXT_MAX - at : 0, "%s", sep);
		if (at < NET_ERROR_TEXT_MAX)
			at += (size_t)snprintf(line + at, NET_ERROR_TEXT_MAX - at, known[i].text, arg);
		sep = "; and ";
	}
	if (rest) {
		char info[128];
		mbedtls_x509_crt_verify_info(info, sizeof(info), "", rest);
		info[strcspn(info, "\n")] = 0;
		if (at < NET_ERROR_TEXT_MAX)
			snprintf(line + at, NET_ERROR_TEXT_MAX - at, "%sfails verification: %s", sep, info);
	}
}

/* A failed mbedTLS call: the socket's failure if it had one, else mbedTLS's reason. */
static void describe_failure(struct tls_session *s, int ret, const char *during,
			     struct net_error *err)
{
	char text[128];
	if (s->io_fail == NET_TIMEOUT)
		net_fail(err, NET_TIMEOUT, "no answer in time %s", during);
	else if (s->io_fail != NET_OK)
		net_fail(err, NET_IO, "the connection broke %s (%s)", during, strerror(s->io_errno));
	else if (ret == MBEDTLS_ERR_SSL_CONN_EOF)
		net_fail(err, NET_IO, "the server closed the connection %s", during);
	else {
		tls_text(ret, text, sizeof(text));
		net_fail(err, NET_TLS, "TLS failed %s (%s)", during, text);
	}
}

struct tls_session *tls_session_start(struct tls_trust *t, int fd, const char *host,
				      uint64_t deadline_ns, struct net_error *err)
{
	struct tls_session *s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->deadline_ns = deadline_ns;
	mbedtls_ssl_init(&s->ssl);
	char text[128];
	int ret = mbedtls_ssl_setup(&s->ssl, &t->conf);
	if (ret) {
		tls_text(ret, text, sizeof(text));
		net_fail(err, NET_CONFIG, "TLS: cannot start a session (%s)", text);
		goto fail;
	}
	s->by_ip = net_addr_parse(host, strlen(host), &s->ip);
	if (s->by_ip)
		mbedtls_ssl_set_verify(&s->ssl, verify_ip, s); /* no SNI and no DNS-name check */
	else if ((ret = mbedtls_ssl_set_hostname(&s->ssl, host)) != 0) {
		tls_text(ret, text, sizeof(text));
		net_fail(err, NET_CONFIG, "TLS: cannot use the host name %s (%s)", host, text);
		goto fail;
	}
	mbedtls_ssl_set_bio(&s->ssl, s, bio_send, bio_recv, NULL);
	while ((ret = mbedtls_ssl_handshake(&s->ssl)) != 0) {
		if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE)
			continue;
		if (ret == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED)
			describe_verify(mbedtls_ssl_get_verify_result(&s->ssl), host, t->source, err);
		else
			describe_failure(s, ret, "during the TLS handshake", err);
		goto fail;
	}
	return s;
fail:
	tls_session_free(s);
	return NULL;
}

bool tls_session_send(struct tls_session *s, const void *p, size_t n, uint64_t deadline_ns,
		      struct net_error *err)
{
	const unsigned char *b = p;
	s->deadline_ns = deadline_ns;
	s->io_fail = NET_OK;
	while (n) {
		int ret = mbedtls_ssl_write(&s->ssl, b, n);
		if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE)
			continue;
		if (ret < 0) {
			describe_failure(s, ret, "while sending", err);
			return false;
		}
		b += ret;
		n -= (size_t)ret;
	}
	return true;
}

ssize_t tls_session_recv(struct tls_session *s, void *p, size_t n, uint64_t deadline_ns,
			 struct net_error *err)
{
	s->deadline_ns = deadline_ns;
	s->io_fail = NET_OK;
	for (;;) {
		int ret = mbedtls_ssl_read(&s->ssl, p, n);
		if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE)
			continue;
		if (ret == 0 || ret == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || ret == MBEDTLS_ERR_SSL_CONN_EOF)
			return 0; /* closed, with or without its close_notify */
		if (ret < 0) {
			describe_failure(s, ret, "while receiving", err);
			return -1;
		}
		return ret;
	}
}

void tls_session_free(struct tls_session *s)
{
	if (!s)
		return;
	mbedtls_ssl_free(&s->ssl);
	free(s);
}
