/* image_share.c — reference-counted ELF images keyed by file identity (image_share.h). */
#include "image_share.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void image_share_init(struct image_share *s)
{
	memset(s, 0, sizeof(*s));
}

void image_share_free(struct image_share *s)
{
	for (size_t i = 0; i < s->n; i++)
		elf_image_close(s->v[i].img);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct elf_image *image_share_get(struct image_share *s, uint64_t dev, uint64_t ino)
{
	if (!dev)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].dev == dev && s->v[i].ino == ino) {
			s->v[i].refs++;
			return s->v[i].img;
		}
	return NULL;
}

void image_share_add(struct image_share *s, uint64_t dev, uint64_t ino, struct elf_image *img)
{
	XGROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = (struct shared_image){.dev = dev, .ino = ino, .img = img, .refs = 1};
}

void image_share_release(struct image_share *s, struct elf_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].img != img)
			continue;
		if (--s->v[i].refs == 0) {
			elf_image_close(img);
			s->v[i] = s->v[--s->n];
		}
		return;
	}
	elf_image_close(img);
}
