/* thread_role.c — naming threads by their role. */
#include "thread_role.h"

#include <string.h>

static bool stack_has(const struct thread_facts *tf, const char *needle)
{
	for (int i = 0; i < tf->nframes; i++) {
		const struct frame *f = &tf->frames[i];
		if (f->kind == FK_NATIVE && f->name && strstr(intern_get(tf->strings, f->name), needle))
			return true;
	}
	return false;
}

static bool runs_js(const struct thread_facts *tf)
{
	for (int i = 0; i < tf->nframes; i++)
		if (tf->frames[i].kind == FK_JS || tf->frames[i].kind == FK_JS_INLINED)
			return true;
	return false;
}

const char *thread_role(const struct thread_facts *tf, bool *final)
{
	*final = true;
	if (tf->is_leader)
		return "main";
	if (tf->kernel_name && tf->kernel_name[0] &&
	    (!tf->process_name || strcmp(tf->kernel_name, tf->process_name) != 0))
		return tf->kernel_name;
	/* only the main thread and workers run JavaScript: this also names workers where node's
	 * own symbols are stripped (a distribution's libnode) */
	if (runs_js(tf))
		return "worker";
	if (tf->complete && tf->nframes > 0) {
		if (stack_has(tf, "node::worker::Worker::StartThread"))
			return "worker";
		if (stack_has(tf, "PlatformWorkerThread") || stack_has(tf, "WorkerThreadsTaskRunner"))
			return "V8 platform";
		if (stack_has(tf, "uv__thread_start") || stack_has(tf, "uv__work_"))
			return "libuv worker";
		return "thread";
	}
	*final = false;
	return "thread";
}
