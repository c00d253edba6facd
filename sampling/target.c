/* target.c — the checks every live mode runs before it touches a process. */
#include "target.h"

#include <stdio.h>
#include <string.h>

#include "diagnose.h"

bool live_target_open(struct live_target *t, pid_t pid, const struct target_opts *to,
		      struct strbuf *msg)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (!process_exists(pid)) {
		explain_no_process(pid, confinement_in_container(), msg);
		return false;
	}
	process_comm(pid, t->comm, sizeof(t->comm));
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	addrspace_init(&t->as, pid, root);
	if (to->images)
		addrspace_share_images(&t->as, to->images);
	int err = addrspace_load_proc(&t->as);
	if (err) {
		t->refused = diagnose_access(pid, -err, msg);
		return false;
	}
	struct strbuf why;
	sb_init(&why);
	enum v8_open_status st = v8_runtime_open(&t->rt, &t->as, to->force_version, &why);
	if (st != V8_OK) {
		if (st == V8_NOT_NODE) {
			sb_printf(msg, "process %d (%s) is not a Node.js process: %s", (int)pid, t->comm, why.s);
			suggest_node_child(pid, msg);
		}
		else
			sb_printf(msg, "process %d (%s): %s", (int)pid, t->comm, why.s);
		sb_free(&why);
		v8_runtime_free(&t->rt);
		return false;
	}
	sb_free(&why);
	t->have_rt = true;
	addrspace_preload(&t->as);
	return true;
}

void live_target_close(struct live_target *t)
{
	if (t->have_rt)
		v8_runtime_free(&t->rt);
	addrspace_free(&t->as);
}
