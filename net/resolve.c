/* resolve.c — numeric, hosts file, then DNS with res_nsearch (resolve.h). glibc's resolver reads
 * /etc/resolv.conf itself and needs no NSS module, so it works in a static binary. */
#include "resolve.h"

#include <arpa/nameser.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/config_file.h"
#include "dns_answer.h"
#include "hosts_file.h"

enum { DNS_ANSWER_MAX = 8192 };

static bool from_hosts_file(const char *path, const char *host, struct addr_list *out)
{
	struct strbuf text;
	sb_init(&text);
	size_t found = config_file_read(path, HOSTS_FILE_MAX, &text) && text.len
			       ? hosts_lookup(text.s, text.len, host, out)
			       : 0;
	sb_free(&text);
	return found > 0;
}

/* RFC 6761: localhost and names under it are the loopback, whatever DNS says. */
static bool loopback_name(const char *host, struct addr_list *out)
{
	size_t n = strlen(host);
	if (n && host[n - 1] == '.')
		n--;
	bool yes = (n == 9 && !strncasecmp(host, "localhost", 9)) ||
		   (n > 10 && !strncasecmp(host + n - 10, ".localhost", 10));
	if (yes) {
		static const unsigned char v4[4] = {127, 0, 0, 1};
		addr_list_add(out, AF_INET, v4);
		addr_list_add(out, AF_INET6, &in6addr_loopback);
	}
	return yes;
}

static bool from_dns(const char *host, struct addr_list *out, struct net_error *err)
{
	struct __res_state rs;
	memset(&rs, 0, sizeof(rs));
	if (res_ninit(&rs) != 0)
		return net_fail(err, NET_RESOLVE, "cannot resolve %s: the resolver configuration "
				"(/etc/resolv.conf) could not be read", host);
	unsigned char *answer = malloc(DNS_ANSWER_MAX);
	const int types[] = {DNS_TYPE_A, DNS_TYPE_AAAA};
	int h_err = 0;
	for (size_t i = 0; answer && i < sizeof(types) / sizeof(types[0]) && !out->n; i++) {
		int n = res_nsearch(&rs, host, DNS_CLASS_IN, types[i], answer, DNS_ANSWER_MAX);
		if (n < 0) {
			if (!h_err || rs.res_h_errno != HOST_NOT_FOUND)
				h_err = rs.res_h_errno;
			if (h_err == TRY_AGAIN)
				break; /* no server answered: asking again for AAAA doubles the wait */
			continue;
		}
		/* a longer answer was cut at the buffer: the records before the cut count */
		dns_answer_addrs(answer, n < DNS_ANSWER_MAX ? (size_t)n : DNS_ANSWER_MAX, types[i], out);
	}
	free(answer);
	res_nclose(&rs);
	if (out->n)
		return true;
	return net_fail(err, NET_RESOLVE, "cannot resolve %s (%s)", host,
			h_err == HOST_NOT_FOUND || h_err == NO_DATA || !h_err
				? "no such host in /etc/hosts or DNS"
				: hstrerror(h_err));
}

bool net_resolve(const char *host, const char *hosts_file, struct addr_list *out,
		 struct net_error *err)
{
	struct net_addr a;
	out->n = 0;
	if (net_addr_parse(host, strlen(host), &a)) {
		addr_list_add(out, a.family, a.a);
		return true;
	}
	if (!host[0] || host[0] == '[')
		return net_fail(err, NET_RESOLVE, "cannot resolve %s: not an address", host);
	if (from_hosts_file(hosts_file, host, out) || loopback_name(host, out))
		return true;
	return from_dns(host, out, err);
}
