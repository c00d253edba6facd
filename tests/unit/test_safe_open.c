/* test_safe_open.c — opening files a target or a core names (util/safe_open.c): a path resolved
 * inside the target's root never leads out of it, and only a regular file of the expected
 * identity and size is opened — FIFOs, devices, symlinks and replaced files are refused. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../util/safe_open.h"

static char root[] = "/tmp/v8walk-safe-open-XXXXXX";
static char p[256];

static const char *at(const char *rel)
{
	snprintf(p, sizeof(p), "%s%s", root, rel);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(root));
	cr_assert_eq(mkdir(at("/etc"), 0755), 0);
	cr_assert_eq(mkdir(at("/lib"), 0755), 0);
	write_file(at("/etc/inside"), "inside the root\n");
	write_file(at("/lib/real.so"), "a library\n");
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(safe_open, .init = setup, .fini = teardown);

static int open_as(const char *path, const struct file_expect *ex, const char **err)
{
	struct stat st;
	*err = NULL;
	return safe_open(path, ex, &st, err);
}

Test(safe_open, symlinks_resolve_inside_the_targets_root)
{
	/* an absolute symlink in the target's tree means the target's /etc, not the host's */
	cr_assert_eq(symlink("/etc/inside", at("/lib/abs.so")), 0); /* at(): one buffer, one call */
	cr_assert_eq(symlink("/etc", at("/etc2")), 0);
	cr_assert_eq(symlink("../../../../../../etc/hostname", at("/lib/dots.so")), 0);
	const char *err;
	struct file_expect in_root = {.root = root, .follow = true};
	int fd = open_as("/lib/abs.so", &in_root, &err);
	cr_assert_geq(fd, 0, "%s", err);
	char buf[32] = {0};
	cr_assert_gt(read(fd, buf, sizeof(buf) - 1), 0);
	cr_assert_str_eq(buf, "inside the root\n", "the target's /etc/inside, resolved in its root");
	close(fd);
	fd = open_as("/etc2/inside", &in_root, &err); /* an intermediate symlink, also inside */
	cr_assert_geq(fd, 0, "%s", err);
	close(fd);
	/* ../ cannot climb above the root: the host's /etc/hostname is not reached */
	cr_assert_lt(open_as("/lib/dots.so", &in_root, &err), 0);
	cr_assert_str_eq(err, "no such file");
	/* without follow, a symlink as the last component is refused */
	struct file_expect nofollow = {.root = root};
	cr_assert_lt(open_as("/lib/abs.so", &nofollow, &err), 0);
	cr_assert_str_eq(err, "it is a symbolic link");
}

Test(safe_open, fifos_devices_and_directories_are_refused_without_blocking, .timeout = 10)
{
	cr_assert_eq(mkfifo(at("/lib/fifo.so"), 0600), 0);
	const char *err;
	struct file_expect plain = {.follow = true};
	cr_assert_lt(open_as(at("/lib/fifo.so"), &plain, &err), 0);
	cr_assert_str_eq(err, "it is a FIFO, not a regular file");
	cr_assert_lt(open_as("/dev/zero", &plain, &err), 0);
	cr_assert_str_eq(err, "it is a device, not a regular file");
	cr_assert_lt(open_as(at("/lib"), &plain, &err), 0);
	cr_assert_str_eq(err, "it is a directory, not a regular file");
}

Test(safe_open, identity_and_size_are_checked_on_the_open_descriptor)
{
	struct stat st;
	cr_assert_eq(stat(at("/lib/real.so"), &st), 0);
	const char *err;
	struct file_expect same = {.root = root, .dev = st.st_dev, .ino = st.st_ino};
	int fd = open_as("/lib/real.so", &same, &err);
	cr_assert_geq(fd, 0, "%s", err);
	close(fd);
	/* replaced since the maps were read: another inode at the same path */
	write_file(at("/lib/other.so"), "another file\n");
	char from[256];
	snprintf(from, sizeof(from), "%s", at("/lib/other.so"));
	cr_assert_eq(rename(from, at("/lib/real.so")), 0);
	cr_assert_lt(open_as("/lib/real.so", &same, &err), 0);
	cr_assert_str_eq(err, "it is not the file the process mapped (replaced since)");
	struct file_expect other_dev = {.root = root, .dev = st.st_dev + 1};
	cr_assert_lt(open_as("/lib/real.so", &other_dev, &err), 0, "the device counts too");
	struct file_expect small = {.root = root, .max_size = 4};
	cr_assert_lt(open_as("/lib/real.so", &small, &err), 0);
	cr_assert_str_eq(err, "it is larger than any file v8walk reads");
}
