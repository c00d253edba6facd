/* dns_answer.c — addresses from a DNS answer message (dns_answer.h). */
#include "dns_answer.h"

#include <stdint.h>
#include <sys/socket.h>

enum { HEADER_LEN = 12, LABEL_POINTER = 0xc0 };

static unsigned get16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Skip the (possibly compressed) name at msg[*pos]: labels up to the root or a pointer; names
 * are never followed through their pointers, so no loop is possible. */
static bool skip_name(const unsigned char *msg, size_t len, size_t *pos)
{
	size_t p = *pos;
	for (;;) {
		if (p >= len)
			return false;
		unsigned c = msg[p];
		if ((c & LABEL_POINTER) == LABEL_POINTER) {
			if (p + 2 > len)
				return false;
			*pos = p + 2;
			return true;
		}
		if (c & LABEL_POINTER)
			return false; /* 0x40 and 0x80: extended label types, not used in answers */
		if (c == 0) {
			*pos = p + 1;
			return true;
		}
		p += 1 + c;
	}
}

size_t dns_answer_addrs(const unsigned char *msg, size_t len, int qtype, struct addr_list *out)
{
	int family = qtype == DNS_TYPE_A ? AF_INET : qtype == DNS_TYPE_AAAA ? AF_INET6 : 0;
	size_t want = net_addr_len(family);
	if (!want || len < HEADER_LEN)
		return 0;
	unsigned flags = get16(msg + 2);
	if (!(flags & 0x8000) || (flags & 0x000f)) /* not a response, or RCODE != NOERROR */
		return 0;
	unsigned qdcount = get16(msg + 4), ancount = get16(msg + 6);
	size_t pos = HEADER_LEN;
	for (unsigned i = 0; i < qdcount; i++) {
		if (!skip_name(msg, len, &pos) || len - pos < 4)
			return 0;
		pos += 4; /* QTYPE, QCLASS */
	}
	size_t added = 0;
	for (unsigned i = 0; i < ancount; i++) {
		if (!skip_name(msg, len, &pos) || len - pos < 10)
			break;
		unsigned type = get16(msg + pos), class = get16(msg + pos + 2);
		size_t rdlen = get16(msg + pos + 8);
		pos += 10;
		if (len - pos < rdlen)
			break;
		if (type == (unsigned)qtype && class == DNS_CLASS_IN && rdlen == want)
			added += addr_list_add(out, family, msg + pos);
		pos += rdlen;
	}
	return added;
}
