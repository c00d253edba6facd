/* net_error.c — failure kinds and their text (net_error.h). */
#include "net_error.h"

#include <stdarg.h>
#include <stdio.h>

bool net_fail(struct net_error *e, enum net_fail kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	e->kind = kind;
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	return false;
}

bool net_fail_unreachable(enum net_fail kind)
{
	switch (kind) {
	case NET_RESOLVE:
	case NET_CONNECT:
	case NET_TIMEOUT:
	case NET_IO:
		return true;
	case NET_OK:
	case NET_TLS:
	case NET_CONFIG:
	case NET_PROTOCOL:
	case NET_TOO_BIG:
		break;
	}
	return false;
}
