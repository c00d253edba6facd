/* test_gc_frames.c — which stacks are inside V8's garbage collector: the samplers keep a main
 * thread's sleep only there, and the .cpuprofile writer puts such samples in (garbage collector). */
#include <criterion/criterion.h>

#include "../../walker/gc_frames.h"
#include "frame_builders.h"

static struct intern strings;

static void setup(void) { intern_init(&strings); }
static void teardown(void) { intern_free(&strings); }

TestSuite(gc_frames, .init = setup, .fini = teardown);

Test(gc_frames, a_collection_entry_anywhere_in_the_stack_is_gc)
{
	struct frame f[] = {
		fb_native(&strings, "__futex_abstimed_wait_common"),
		fb_native(&strings, "v8::platform::DefaultJobHandle::Join"),
		fb_native(&strings, "v8::internal::ScavengerCollector::CollectGarbage"),
		fb_native(&strings, "v8::internal::Heap::PerformGarbageCollection"),
		fb_native(&strings, "v8::internal::Heap::CollectGarbage"),
		fb_js(&strings, "parse", "/app/parse.js", 10, 3),
	};
	cr_assert(frames_in_gc(&strings, f, 6));
	cr_assert(frames_in_gc(&strings, f + 3, 1), "PerformGarbageCollection alone");
	cr_assert(frames_in_gc(&strings, f + 4, 1), "CollectGarbage alone");
	/* a helper's own name is not the entry: the thread may be a helper, not in a collection */
	cr_assert_not(frames_in_gc(&strings, f, 3));
}

Test(gc_frames, a_sleep_elsewhere_is_not_gc)
{
	struct frame f[] = {
		fb_native(&strings, "__futex_abstimed_wait_common"),
		fb_native(&strings, "v8::internal::FutexEmulation::WaitSync"),
		fb_native(&strings, "Builtins_AtomicsWait"),
		fb_js(&strings, "mainTurn", "/app/handoff.js", 24, 22),
	};
	cr_assert_not(frames_in_gc(&strings, f, 4));
	cr_assert_not(frames_in_gc(&strings, f, 0));
}

Test(gc_frames, only_native_frames_name_the_collector)
{
	/* a JS function may be called anything; an unnamed frame names nothing */
	struct frame js = fb_js(&strings, "Heap::CollectGarbage", "/app/x.js", 1, 1);
	struct frame unnamed = fb_native(&strings, "x");
	unnamed.name = 0;
	cr_assert_not(frame_is_gc_entry(&strings, &js));
	cr_assert_not(frame_is_gc_entry(&strings, &unnamed));
}
