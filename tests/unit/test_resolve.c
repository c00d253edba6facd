/* test_resolve.c — host names to addresses without NSS (net/): numeric addresses, the hosts
 * file's text, DNS answer messages (compressed names, CNAME chains, truncation, errors), the
 * order resolve tries them in, and which failures mean an unreachable server. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../net/addr_list.h"
#include "../../net/dns_answer.h"
#include "../../net/hosts_file.h"
#include "../../net/net_error.h"
#include "../../net/resolve.h"

static const char *text_of(const struct addr_list *l, size_t i)
{
	static char buf[8][64];
	net_addr_text(&l->v[i], buf[i % 8], sizeof(buf[0]));
	return buf[i % 8];
}

Test(addr_list, numeric_hosts)
{
	struct net_addr a;
	cr_assert(net_addr_parse("10.1.2.3", 8, &a));
	cr_assert_eq(a.family, AF_INET);
	cr_assert(net_addr_parse("[::1]", 5, &a));
	cr_assert_eq(a.family, AF_INET6);
	cr_assert(net_addr_parse("fe80::1:2", 9, &a));
	cr_assert_not(net_addr_parse("10.1.2", 6, &a));
	cr_assert_not(net_addr_parse("10.1.2.300", 10, &a));
	cr_assert_not(net_addr_parse("clickhouse", 10, &a));
	cr_assert_not(net_addr_parse("[::1", 4, &a));
	cr_assert_not(net_addr_parse("::1%eth0", 8, &a), "zone indexes are not taken");
	cr_assert_not(net_addr_parse("1.2.3.4\0", 8, &a));
	cr_assert_not(net_addr_parse("", 0, &a));
}

Test(addr_list, bounded_and_without_repeats)
{
	struct addr_list l = {0};
	unsigned char v4[4] = {10, 0, 0, 0};
	cr_assert(addr_list_add(&l, AF_INET, v4));
	cr_assert_not(addr_list_add(&l, AF_INET, v4), "a repeat");
	for (int i = 1; i < 40; i++) {
		v4[3] = (unsigned char)i;
		addr_list_add(&l, AF_INET, v4);
	}
	cr_assert_eq(l.n, ADDR_LIST_MAX);
	cr_assert_not(addr_list_add(&l, AF_UNIX, v4));
}

Test(hosts_file, lookups)
{
	const char *hosts = "# comment 10.0.0.9 clickhouse\n"
			    "127.0.0.1\tlocalhost\n"
			    "::1     localhost ip6-localhost ip6-loopback\r\n"
			    "10.0.0.5 ch.example.org  ClickHouse  # the server\n"
			    "not-an-address clickhouse\n"
			    "[10.0.0.6] clickhouse\n"
			    "10.0.0.7 clickhouse-2 clickhousex\n"
			    "   \n"
			    "10.0.0.8 clickhouse.\n"
			    "10.0.0.5 clickhouse";
	struct addr_list l = {0};
	cr_assert_eq(hosts_lookup(hosts, strlen(hosts), "clickhouse", &l), 2);
	cr_assert_str_eq(text_of(&l, 0), "10.0.0.5", "case-insensitive, in file order");
	cr_assert_str_eq(text_of(&l, 1), "10.0.0.8", "a trailing dot on either side; the repeat once");
	l.n = 0;
	cr_assert_eq(hosts_lookup(hosts, strlen(hosts), "localhost.", &l), 2);
	cr_assert_str_eq(text_of(&l, 0), "127.0.0.1");
	cr_assert_str_eq(text_of(&l, 1), "::1", "a CRLF line");
	l.n = 0;
	cr_assert_eq(hosts_lookup(hosts, strlen(hosts), "the", &l), 0, "not from a comment");
	cr_assert_eq(hosts_lookup(hosts, strlen(hosts), "", &l), 0);
	cr_assert_eq(hosts_lookup(hosts, 20, "clickhouse", &l), 0, "the text's end is respected");
	const char nul[] = "10.0.0.1 a\0b\n10.0.0.2 b\n";
	cr_assert_eq(hosts_lookup(nul, sizeof(nul) - 1, "b", &l), 1);
}

/* ---- DNS messages built by hand (RFC 1035 4.1) ---- */

struct msg {
	unsigned char b[1024];
	size_t n;
};

static void put16(struct msg *m, unsigned v)
{
	m->b[m->n++] = (unsigned char)(v >> 8);
	m->b[m->n++] = (unsigned char)v;
}

static void put_name(struct msg *m, const char *dotted)
{
	while (*dotted) {
		size_t len = strcspn(dotted, ".");
		m->b[m->n++] = (unsigned char)len;
		memcpy(m->b + m->n, dotted, len);
		m->n += len;
		dotted += len + (dotted[len] == '.');
	}
	m->b[m->n++] = 0;
}

static void header(struct msg *m, unsigned flags, unsigned qd, unsigned an)
{
	m->n = 0;
	put16(m, 0x1234);
	put16(m, flags);
	put16(m, qd);
	put16(m, an);
	put16(m, 0);
	put16(m, 0);
}

/* a response's header and its one question */
static void question(struct msg *m, unsigned answers, const char *name, unsigned type)
{
	header(m, 0x8180, 1, answers);
	put_name(m, name);
	put16(m, type);
	put16(m, DNS_CLASS_IN);
}

/* a record whose owner is a pointer to the question's name (offset 12) */
static void record(struct msg *m, unsigned type, unsigned class, const void *rdata, unsigned len)
{
	put16(m, 0xc00c);
	put16(m, type);
	put16(m, class);
	put16(m, 0);
	put16(m, 60);
	put16(m, len);
	memcpy(m->b + m->n, rdata, len);
	m->n += len;
}

Test(dns_answer, a_cname_chain_then_addresses)
{
	struct msg m;
	question(&m, 4, "clickhouse.monitoring.svc.cluster.local", DNS_TYPE_A);
	unsigned char cname[] = {2, 'c', 'h', 0xc0, 0x0c};
	record(&m, 5, DNS_CLASS_IN, cname, sizeof(cname));
	unsigned char a1[4] = {10, 96, 0, 10}, a2[4] = {10, 96, 0, 11};
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a1, 4);
	record(&m, DNS_TYPE_A, 3 /* CHAOS */, a2, 4);
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a2, 4);
	struct addr_list l = {0};
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 2);
	cr_assert_str_eq(text_of(&l, 0), "10.96.0.10");
	cr_assert_str_eq(text_of(&l, 1), "10.96.0.11");
	l.n = 0;
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_AAAA, &l), 0, "no AAAA records");
	/* every cut of the message: what comes before the cut, never more, never a crash */
	for (size_t cut = 0; cut < m.n; cut++) {
		l.n = 0;
		size_t got = dns_answer_addrs(m.b, cut, DNS_TYPE_A, &l);
		cr_assert_leq(got, 2);
		if (cut < m.n - 14)
			cr_assert_leq(got, 1, "cut at %zu", cut);
	}
}

Test(dns_answer, aaaa_records)
{
	struct msg m;
	question(&m, 1, "ch6.example", DNS_TYPE_AAAA);
	unsigned char a6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	record(&m, DNS_TYPE_AAAA, DNS_CLASS_IN, a6, 16);
	struct addr_list l = {0};
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_AAAA, &l), 1);
	cr_assert_str_eq(text_of(&l, 0), "2001:db8::1");
	/* an A-typed record of the wrong length is not an address */
	header(&m, 0x8180, 0, 1);
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a6, 16);
	l.n = 0;
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 0);
}

Test(dns_answer, refusals_and_malformed_messages)
{
	struct msg m;
	unsigned char a[4] = {1, 2, 3, 4};
	struct addr_list l = {0};
	header(&m, 0x0100, 0, 1); /* a query, not a response */
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a, 4);
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 0);
	header(&m, 0x8183, 0, 1); /* NXDOMAIN */
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a, 4);
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 0);
	header(&m, 0x8180, 1, 1); /* the question's name runs off the end */
	m.b[m.n++] = 63;
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 0);
	header(&m, 0x8180, 1, 1); /* a label with the reserved 0x40 bits */
	m.b[m.n++] = 0x41;
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 0);
	header(&m, 0x8180, 0, 1); /* rdlength past the end */
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a, 4);
	m.b[m.n - 5] = 0xff;
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 0);
	header(&m, 0x8180, 0, 65535); /* counts beyond the message */
	record(&m, DNS_TYPE_A, DNS_CLASS_IN, a, 4);
	cr_assert_eq(dns_answer_addrs(m.b, m.n, DNS_TYPE_A, &l), 1);
	cr_assert_eq(dns_answer_addrs(m.b, 11, DNS_TYPE_A, &l), 0);
	cr_assert_eq(dns_answer_addrs(m.b, m.n, 5, &l), 0, "only A and AAAA are asked for");
	cr_assert_eq(l.n, 1);
}

static char *temp_hosts(const char *text)
{
	static char path[] = "/tmp/v8walk-hosts-XXXXXX";
	strcpy(path, "/tmp/v8walk-hosts-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

Test(resolve, numeric_then_hosts_file_then_localhost)
{
	char *hosts = temp_hosts("10.9.8.7 clickhouse.test\n::1 six.test\n");
	struct addr_list l;
	struct net_error err = {0};
	cr_assert(net_resolve("[::1]", hosts, &l, &err));
	cr_assert_eq(l.n, 1);
	cr_assert_str_eq(text_of(&l, 0), "::1");
	cr_assert(net_resolve("192.0.2.1", hosts, &l, &err));
	cr_assert_str_eq(text_of(&l, 0), "192.0.2.1");
	cr_assert(net_resolve("CLICKHOUSE.test", hosts, &l, &err));
	cr_assert_eq(l.n, 1);
	cr_assert_str_eq(text_of(&l, 0), "10.9.8.7");
	/* no hosts file: localhost is the loopback all the same (RFC 6761) */
	cr_assert(net_resolve("localhost", "/nonexistent/hosts", &l, &err));
	cr_assert_eq(l.n, 2);
	cr_assert_str_eq(text_of(&l, 0), "127.0.0.1");
	cr_assert_str_eq(text_of(&l, 1), "::1");
	cr_assert(net_resolve("db.localhost", "/nonexistent/hosts", &l, &err));
	cr_assert_not(net_resolve("[nonsense]", hosts, &l, &err));
	cr_assert_eq(err.kind, NET_RESOLVE);
	unlink(hosts);
}

Test(net_error, unreachable_is_told_from_misconfigured)
{
	/* the agent waits for an unreachable server, but stops at a refused certificate, a
	 * missing CA bundle or an answer that is not HTTP */
	cr_assert(net_fail_unreachable(NET_RESOLVE));
	cr_assert(net_fail_unreachable(NET_CONNECT));
	cr_assert(net_fail_unreachable(NET_TIMEOUT));
	cr_assert(net_fail_unreachable(NET_IO));
	cr_assert_not(net_fail_unreachable(NET_OK));
	cr_assert_not(net_fail_unreachable(NET_TLS));
	cr_assert_not(net_fail_unreachable(NET_CONFIG));
	cr_assert_not(net_fail_unreachable(NET_PROTOCOL));
	cr_assert_not(net_fail_unreachable(NET_TOO_BIG));
	struct net_error e;
	cr_assert_not(net_fail(&e, NET_IO, "broke (%s)", "reset"));
	cr_assert_str_eq(e.text, "broke (reset)");
}
