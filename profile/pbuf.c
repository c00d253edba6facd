/* pbuf.c — protocol-buffers encoding. */
#include "pbuf.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void pb_init(struct pbuf *pb)
{
	memset(pb, 0, sizeof(*pb));
}

void pb_free(struct pbuf *pb)
{
	free(pb->b);
	memset(pb, 0, sizeof(*pb));
}

void pb_reset(struct pbuf *pb)
{
	pb->n = 0;
}

static void put(struct pbuf *pb, const void *data, size_t len)
{
	XGROW(pb->b, pb->cap, pb->n + len + 1);
	if (len)
		memcpy(pb->b + pb->n, data, len);
	pb->n += len;
}

static void varint(struct pbuf *pb, uint64_t v)
{
	uint8_t tmp[10];
	size_t k = 0;
	do {
		tmp[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(pb, tmp, k);
}

void pb_uint(struct pbuf *pb, uint32_t field, uint64_t v)
{
	varint(pb, (uint64_t)field << 3 | 0);
	varint(pb, v);
}

void pb_bytes(struct pbuf *pb, uint32_t field, const void *data, size_t len)
{
	varint(pb, (uint64_t)field << 3 | 2);
	varint(pb, len);
	put(pb, data, len);
}

void pb_msg(struct pbuf *pb, uint32_t field, const struct pbuf *sub)
{
	pb_bytes(pb, field, sub->b, sub->n);
}

void pb_packed(struct pbuf *pb, uint32_t field, const uint64_t *v, size_t n)
{
	struct pbuf tmp;
	pb_init(&tmp);
	for (size_t i = 0; i < n; i++)
		varint(&tmp, v[i]);
	pb_msg(pb, field, &tmp);
	pb_free(&tmp);
}

void pb_append(struct pbuf *pb, const struct pbuf *more)
{
	put(pb, more->b, more->n);
}
