/* fd_room.h — descriptors held per thread (its /proc files, its perf events) stop short of the
 * process's limit, so that a target with thousands of threads cannot take the last descriptors
 * v8walk needs for its own work (the thread scan, the target's maps and files, the output). */
#ifndef V8WALK_FD_ROOM_H
#define V8WALK_FD_ROOM_H

/* The first descriptor number a holder must not keep: the soft RLIMIT_NOFILE now, less `spare`
 * (INT_MAX when unlimited or unreadable). */
int fd_ceiling(int spare);
/* fd when it is below ceiling (or negative: passed through); else closed, errno EMFILE, -1. */
int fd_below(int fd, int ceiling);

#endif
