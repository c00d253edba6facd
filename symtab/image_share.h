/* image_share.h — ELF images shared by the address spaces of one run: a node binary sampled in
 * twenty processes (--all-node, several --pid) is opened, its symbols indexed and its unwind
 * tables read once, not twenty times. An image is keyed by the identity of the file the processes
 * map (device and inode, as /proc/PID/maps gives them and as the opened descriptor was checked to
 * be: an inode cannot be reused while the image holds it open), and closed when the last address
 * space lets it go. Single-threaded, like the sampling loop that uses it. */
#ifndef V8WALK_IMAGE_SHARE_H
#define V8WALK_IMAGE_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "elf_image.h"

struct shared_image {
	uint64_t dev, ino;
	struct elf_image *img;
	unsigned long refs;
};

struct image_share {
	struct shared_image *v;
	size_t n, cap;
};

void image_share_init(struct image_share *s);
/* Closes what is still held (address spaces should have released theirs first). */
void image_share_free(struct image_share *s);
/* The image of file (dev, ino) with one more reference, or NULL when none is open (dev 0, an
 * unknown device, is never shared). */
struct elf_image *image_share_get(struct image_share *s, uint64_t dev, uint64_t ino);
/* A freshly opened image of (dev, ino), held once by the caller. */
void image_share_add(struct image_share *s, uint64_t dev, uint64_t ino, struct elf_image *img);
/* One reference less; the image is closed with its last. An image the share does not hold is
 * closed at once. */
void image_share_release(struct image_share *s, struct elf_image *img);

#endif
