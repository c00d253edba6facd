/* test_user_groups.c — launch mode's user and groups from /etc/passwd and /etc/group text
 * (cli/user_groups.c): getgrouplist's answer for well-formed files, and malformed, NIS compat
 * and oversized lines skipped, ids out of range refused, the group list bounded. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../cli/user_groups.h"

static const char passwd[] =
	"root:x:0:0:root:/root:/bin/bash\n"
	"+nisuser::::::\n"
	"broken:x:12\n"
	"toolong:x:1:1:a:b:c:d\n"
	"big:x:4294967295:1:max:/:/bin/sh\n"
	"neg:x:-5:1::/:/bin/sh\n"
	"alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\r\n"
	"alice:x:2000:2000:second entry:/:/bin/sh\n"
	"bob:x:1001:100::/home/bob:/usr/sbin/nologin";

Test(user_groups, passwd_lines)
{
	uid_t uid;
	gid_t gid;
	cr_assert(passwd_find(passwd, strlen(passwd), "alice", &uid, &gid));
	cr_assert_eq(uid, 1000, "the first entry wins");
	cr_assert_eq(gid, 1000);
	cr_assert(passwd_find(passwd, strlen(passwd), "bob", &uid, &gid), "the last line without a newline");
	cr_assert_eq(uid, 1001);
	cr_assert_eq(gid, 100);
	cr_assert(passwd_find(passwd, strlen(passwd), "root", &uid, &gid));
	cr_assert_eq(uid, 0);
	cr_assert_not(passwd_find(passwd, strlen(passwd), "broken", &uid, &gid));
	cr_assert_not(passwd_find(passwd, strlen(passwd), "toolong", &uid, &gid));
	cr_assert_not(passwd_find(passwd, strlen(passwd), "big", &uid, &gid), "(uid_t)-1 is no user");
	cr_assert_not(passwd_find(passwd, strlen(passwd), "neg", &uid, &gid));
	cr_assert_not(passwd_find(passwd, strlen(passwd), "+nisuser", &uid, &gid));
	cr_assert_not(passwd_find(passwd, strlen(passwd), "ali", &uid, &gid));
	cr_assert_not(passwd_find(passwd, strlen(passwd), "", &uid, &gid));
	cr_assert_not(passwd_find(passwd, 20, "alice", &uid, &gid), "the text's end is respected");
}

static const char group[] =
	"root:x:0:\n"
	"adm:x:4:syslog,alice\n"
	"wheel:x:10:alicex,xalice\n"
	"users:x:100:bob,alice,carol\n"
	"alice:x:1000:\n"
	"docker:x:999:alice\n"
	"# a comment:x:5:alice\n"
	"-nisgroup:x:6:alice\n"
	"broken:x:notanumber:alice\n"
	"extra:x:7:alice:more\n"
	"again:x:4:alice\n";

Test(user_groups, group_lists)
{
	gid_t g[16];
	int n = group_list(group, strlen(group), "alice", 1000, g, 16);
	cr_assert_eq(n, 4);
	cr_assert_eq(g[0], 1000, "the primary group first");
	cr_assert_eq(g[1], 4);
	cr_assert_eq(g[2], 100);
	cr_assert_eq(g[3], 999);
	n = group_list(group, strlen(group), "bob", 100, g, 16);
	cr_assert_eq(n, 1, "the primary group once, though it lists bob too");
	n = group_list(group, strlen(group), "nobody", 65534, g, 16);
	cr_assert_eq(n, 1);
	cr_assert_eq(g[0], 65534);
	cr_assert_eq(group_list(group, strlen(group), "alice", 1000, g, 3), -1, "more groups than room");
	cr_assert_eq(group_list("", 0, "alice", 7, g, 1), 1);
}

Test(user_groups, a_very_long_member_list)
{
	static char text[1 << 20];
	size_t at = (size_t)snprintf(text, sizeof(text), "big:x:42:");
	while (at + 32 < sizeof(text))
		at += (size_t)snprintf(text + at, sizeof(text) - at, "user%05zu,", at % 100000);
	at += (size_t)snprintf(text + at, sizeof(text) - at, "alice\n");
	gid_t g[4];
	cr_assert_eq(group_list(text, at, "alice", 1, g, 4), 2);
	cr_assert_eq(g[1], 42);
}
