/* pbuf.h — a small protocol-buffers writer: varints, length-delimited fields and nested
 * messages into a growing byte buffer (enough for pprof's profile.proto). */
#ifndef V8WALK_PBUF_H
#define V8WALK_PBUF_H

#include <stddef.h>
#include <stdint.h>

struct pbuf {
	uint8_t *b;
	size_t n, cap;
};

void pb_init(struct pbuf *pb);
void pb_free(struct pbuf *pb);
void pb_reset(struct pbuf *pb);
/* field with wire type 0 (uint64, int64, bool) */
void pb_uint(struct pbuf *pb, uint32_t field, uint64_t v);
/* field with wire type 2 (string, bytes) */
void pb_bytes(struct pbuf *pb, uint32_t field, const void *data, size_t len);
/* a nested message (its encoded bytes) */
void pb_msg(struct pbuf *pb, uint32_t field, const struct pbuf *sub);
/* the bytes of another buffer, as they are */
void pb_append(struct pbuf *pb, const struct pbuf *more);
/* a packed repeated varint field */
void pb_packed(struct pbuf *pb, uint32_t field, const uint64_t *v, size_t n);

#endif
