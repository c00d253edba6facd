/* dns_answer.h — the addresses in a DNS answer message (RFC 1035): the message is hostile input,
 * read from a buffer with every length checked, so that it can be unit tested and fuzzed. */
#ifndef V8WALK_DNS_ANSWER_H
#define V8WALK_DNS_ANSWER_H

#include <stddef.h>

#include "addr_list.h"

enum { DNS_TYPE_A = 1, DNS_TYPE_AAAA = 28, DNS_CLASS_IN = 1 };

/* Append to *out the address of every answer record of type qtype (DNS_TYPE_A or
 * DNS_TYPE_AAAA) and class IN in msg[0..len); records of other types (the CNAMEs before them)
 * are skipped. Returns how many were appended; 0 for a message that is not a response, holds an
 * error code, or breaks off (the records before the break count). */
size_t dns_answer_addrs(const unsigned char *msg, size_t len, int qtype, struct addr_list *out);

#endif
