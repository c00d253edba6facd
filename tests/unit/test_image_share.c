/* test_image_share.c — ELF images shared between address spaces: one open per file identity,
 * closed with the last reference (symtab/image_share.h). */
#include <criterion/criterion.h>
#include <sys/stat.h>

#include "../../symtab/image_share.h"

Test(image_share, one_image_per_file_closed_with_its_last_reference)
{
	struct stat st;
	cr_assert_eq(stat("/proc/self/exe", &st), 0);
	const char *err = NULL;
	struct elf_image *img = elf_image_open("/proc/self/exe", &err);
	cr_assert_not_null(img, "%s", err ? err : "");
	struct image_share s;
	image_share_init(&s);
	cr_expect_null(image_share_get(&s, st.st_dev, st.st_ino), "nothing is open yet");
	image_share_add(&s, st.st_dev, st.st_ino, img);
	cr_expect_eq(image_share_get(&s, st.st_dev, st.st_ino), img, "a second address space gets the same image");
	cr_expect_null(image_share_get(&s, st.st_dev, st.st_ino + 1), "another inode is another file");
	cr_expect_null(image_share_get(&s, 0, st.st_ino), "an unknown device is never shared");
	image_share_release(&s, img);
	cr_expect_eq(s.n, 1, "still held by the first");
	image_share_release(&s, img);
	cr_expect_eq(s.n, 0, "closed with its last reference");
	cr_expect_null(image_share_get(&s, st.st_dev, st.st_ino));
	image_share_free(&s);
}
