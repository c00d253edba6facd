/* gzip_buf.h — gzip a buffer in memory (an HTTP body: ClickHouse takes Content-Encoding: gzip). */
#ifndef V8WALK_GZIP_BUF_H
#define V8WALK_GZIP_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/strbuf.h"

/* Append the gzip of data[0..len) to out; false only if zlib fails. */
bool gzip_buf(const void *data, size_t len, struct strbuf *out);

#endif
