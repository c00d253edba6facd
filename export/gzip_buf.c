/* gzip_buf.c — zlib deflate with the gzip wrapper, into a strbuf (gzip_buf.h). */
#include "gzip_buf.h"

#include <zlib.h>

bool gzip_buf(const void *data, size_t len, struct strbuf *out)
{
	z_stream z = {0};
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	uLong bound = deflateBound(&z, (uLong)len);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)sb_room(out, bound);
	z.avail_out = (uInt)bound;
	int rc = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (rc != Z_STREAM_END)
		return false;
	out->len += z.total_out;
	out->s[out->len] = 0;
	return true;
}
