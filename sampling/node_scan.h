/* node_scan.h — --all-node: the processes on the host that run V8, recognized by the symbols of
 * the files they execute (v8_image_has_v8), not by their names: a renamed node or a program
 * embedding libnode is found, a script called "node" is not. Each executable file is examined
 * once (by device and inode). */
#ifndef V8WALK_NODE_SCAN_H
#define V8WALK_NODE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../util/u64map.h"

struct node_scan {
	struct u64map verdict; /* file key → 1 (no V8) or 2 (V8) */
};

void node_scan_init(struct node_scan *ns);
void node_scan_free(struct node_scan *ns);
/* Does this process map a V8 module now? */
bool node_scan_pid(struct node_scan *ns, pid_t pid);
/* Fill up to max pids of V8 processes (v8walk itself excluded), not looking at those for which
 * known(ctx, pid) says yes (NULL: look at all); returns how many. */
size_t node_scan(struct node_scan *ns, bool (*known)(void *ctx, pid_t pid), void *ctx, pid_t *out,
		 size_t max);

#endif
