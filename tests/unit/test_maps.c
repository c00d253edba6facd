/* test_maps.c — /proc/PID/maps parsing (symtab/maps.c): the fields of each line, a path with
 * spaces or " (deleted)", and mappings without a path (anonymous memory: V8's JIT code, thread
 * stacks), whatever line follows them. */
#include <criterion/criterion.h>

#include "../../symtab/maps.h"

Test(maps, an_anonymous_mapping_has_no_path_whatever_follows_it)
{
	const char *text =
	    "00400000-00401000 r-xp 00001000 08:01 1234                               /usr/bin/node\n"
	    "7fb8bc000000-7fb8bc03f000 rwxp 00000000 00:00 0 \n"
	    "7fb8bc03f000-7fb8dbe40000 ---p 00000000 00:00 0\n"
	    "7fb8e0000000-7fb8e0001000 r--p 00000000 08:01 99   /tmp/a file with spaces (deleted)\n"
	    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n";
	struct maps m;
	maps_init(&m);
	cr_assert_eq(maps_parse(text, &m), 5);
	cr_assert_str_eq(m.v[0].path, "/usr/bin/node");
	cr_assert_eq(m.v[0].start, 0x400000);
	cr_assert_eq(m.v[0].pgoff, 0x1000);
	cr_assert_eq(m.v[0].inode, 1234);
	cr_assert_eq(m.v[1].start, 0x7fb8bc000000);
	cr_assert_null(m.v[1].path, "anonymous JIT memory, followed by another line: %s", m.v[1].path);
	cr_assert(m.v[1].prot & MAP_X);
	cr_assert_null(m.v[2].path, "anonymous, the line's end right after the inode");
	cr_assert_str_eq(m.v[3].path, "/tmp/a file with spaces");
	cr_assert(m.v[3].deleted);
	cr_assert_str_eq(m.v[4].path, "[stack]");
	maps_free(&m);
}
