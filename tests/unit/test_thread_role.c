/* test_thread_role.c — thread roles from the facts the sampler, live dumps and cores have: the
 * leader, a kernel thread name (live only), JS frames, and the bottom of a complete stack. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../walker/thread_role.h"

static struct intern names;
static struct frame frames[4];

static void stack_of(const char *bottom)
{
	memset(frames, 0, sizeof(frames));
	frames[0].kind = FK_NATIVE;
	frames[0].name = intern_str(&names, "epoll_wait");
	frames[1].kind = FK_NATIVE;
	frames[1].name = intern_str(&names, bottom);
}

static const char *role(bool leader, const char *kname, bool complete, bool *final)
{
	struct thread_facts tf = {.is_leader = leader, .kernel_name = kname, .process_name = "node",
				  .frames = frames, .nframes = 2, .complete = complete,
				  .strings = &names};
	return thread_role(&tf, final);
}

Test(thread_role, from_leader_name_and_stack)
{
	intern_init(&names);
	bool final;
	stack_of("node::worker::Worker::StartThread(void*)::{lambda(void*)#1}::_FUN");
	cr_assert_str_eq(role(true, NULL, true, &final), "main");
	cr_assert(final);
	cr_assert_str_eq(role(false, "node", true, &final), "worker", "a thread named like the process was not renamed");
	cr_assert_str_eq(role(false, NULL, true, &final), "worker", "cores have no thread names");
	cr_assert_str_eq(role(false, "WorkerThread", true, &final), "WorkerThread", "node's own name wins");
	stack_of("node::(anonymous namespace)::PlatformWorkerThread");
	cr_assert_str_eq(role(false, NULL, true, &final), "V8 platform");
	stack_of("uv__thread_start");
	cr_assert_str_eq(role(false, NULL, true, &final), "libuv worker");
	stack_of("start_thread");
	cr_assert_str_eq(role(false, NULL, true, &final), "thread");
	cr_assert(final);
	stack_of("node::worker::Worker::StartThread");
	cr_assert_str_eq(role(false, NULL, false, &final), "thread", "an incomplete walk cannot tell");
	cr_assert_not(final);
	stack_of("[unknown] (libnode.so.108+0x4242)"); /* a stripped libnode names nothing */
	frames[0].kind = FK_JS;
	cr_assert_str_eq(role(false, NULL, false, &final), "worker", "only workers run JS besides main");
	cr_assert(final);
	cr_assert_str_eq(role(true, NULL, false, &final), "main");
	intern_free(&names);
}
