/* user_groups.h — a user's ids and groups from /etc/passwd and /etc/group text, for launch mode
 * under sudo (launch.c), read without NSS so that a static v8walk needs no NSS module. The text
 * is hostile input: any bytes, any length; lines that are not well-formed are skipped. Users and
 * groups that only an NSS service knows (LDAP, SSSD) are not found here: the launched program
 * then keeps its primary group only. */
#ifndef V8WALK_USER_GROUPS_H
#define V8WALK_USER_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { USER_DB_MAX = 16 << 20 }; /* bytes of /etc/passwd or /etc/group read at most */

/* passwd text (name:password:uid:gid:gecos:home:shell): the first line for `user`. */
bool passwd_find(const char *text, size_t len, const char *user, uid_t *uid, gid_t *gid);
/* group text (name:password:gid:member,member...): primary first, then the gid of every group
 * listing `user` as a member, each once, as getgrouplist gives them. Returns how many were
 * written to groups[0..cap), or -1 when the user is in more than cap groups. */
int group_list(const char *text, size_t len, const char *user, gid_t primary, gid_t *groups,
	       int cap);

#endif
