/* test_v8_self.c — V8's CPU profiler's attribution rules that --v8-self applies (walker/v8_self.h,
 * walker/gc_frames.h): which builtins V8's profiler takes a frame returning into for an
 * interpreted frame, the code patterns at which it discards a sample, and the frames in whose
 * scope its VM state is GC. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../walker/gc_frames.h"
#include "../../walker/v8_self.h"
#include "fake_heap.h"
#include "frame_builders.h"

static struct fake_heap fh;
static struct intern strings;

static void setup(void)
{
	fh_init(&fh);
	intern_init(&strings);
	intern_str(&strings, ""); /* id 0, as stackwalk_init makes it: a frame named 0 is unnamed */
}

static void teardown(void)
{
	intern_free(&strings);
	fh_free(&fh);
}

TestSuite(v8_self, .init = setup, .fini = teardown);

static const struct v8_version v11 = {11, 3, 244, 8}, v13 = {13, 6, 233, 17};

Test(v8_self, interpreted_frames_are_those_returning_into_the_interpreters_entries)
{
	cr_assert(v8self_interpreter_entry("Builtins_InterpreterEntryTrampoline", &v11));
	cr_assert(v8self_interpreter_entry("Builtins_InterpreterEnterAtBytecode", &v13));
	cr_assert(v8self_interpreter_entry("Builtins_InterpreterEnterAtNextBytecode", &v13));
	/* a bytecode handler that called a builtin, or any other builtin, is not one */
	cr_assert_not(v8self_interpreter_entry("Builtins_GetIteratorHandler", &v11));
	cr_assert_not(v8self_interpreter_entry("Builtins_LdaNamedPropertyHandler", &v13));
	cr_assert_not(v8self_interpreter_entry("Builtins_InterpreterPushArgsThenCall", &v11));
	cr_assert_not(v8self_interpreter_entry("Builtins_CallFunction_ReceiverIsAny", &v11));
	cr_assert_not(v8self_interpreter_entry(NULL, &v11), "an unnamed builtin");
	/* V8 11.3 also takes the baseline-or-interpreter entries, 13.8 no longer */
	cr_assert(v8self_interpreter_entry("Builtins_BaselineOrInterpreterEnterAtBytecode", &v11));
	cr_assert(v8self_interpreter_entry("Builtins_BaselineOrInterpreterEnterAtNextBytecode", &v11));
	cr_assert_not(v8self_interpreter_entry("Builtins_BaselineOrInterpreterEnterAtBytecode", &v13));
}

/* code bytes at an address of the fake heap's memory, n bytes after a page boundary */
static uint64_t code_at(const uint8_t *bytes, size_t len, unsigned after_page)
{
	uint64_t region = fh_alloc(&fh, 3 * 4096) - 1;
	uint64_t page = (region + 4095) & ~(uint64_t)4095;
	uint64_t at = page + 4096 + after_page;
	memset(fh_ptr(&fh, at - 16), 0x90, 32); /* nop around it */
	memcpy(fh_ptr(&fh, at), bytes, len);
	return at;
}

Test(v8_self, samples_where_a_frame_is_set_up_or_torn_down_are_discarded)
{
	static const uint8_t prologue[] = {0x55, 0x48, 0x89, 0xE5, 0x56}; /* push rbp; mov rbp,rsp; push rsi */
	uint64_t at = code_at(prologue, sizeof(prologue), 64);
	cr_assert(v8self_no_frame_region(&fh.base, at), "at push rbp");
	cr_assert(v8self_no_frame_region(&fh.base, at + 1), "at mov rbp,rsp, after push rbp");
	cr_assert_not(v8self_no_frame_region(&fh.base, at + 4), "the frame is set up");
	static const uint8_t epilogue[] = {0x48, 0x89, 0xEC, 0x5D, 0xC3}; /* mov rsp,rbp; pop rbp; ret */
	at = code_at(epilogue, sizeof(epilogue), 64);
	cr_assert_not(v8self_no_frame_region(&fh.base, at), "before the frame is torn down");
	cr_assert(v8self_no_frame_region(&fh.base, at + 3), "at pop rbp");
	cr_assert(v8self_no_frame_region(&fh.base, at + 4), "at ret, after pop rbp");
	static const uint8_t ret_n[] = {0x5D, 0xC2, 0x10, 0x00}; /* pop rbp; ret 16 */
	at = code_at(ret_n, sizeof(ret_n), 64);
	cr_assert(v8self_no_frame_region(&fh.base, at));
	cr_assert(v8self_no_frame_region(&fh.base, at + 1));
	static const uint8_t body[] = {0x48, 0x8B, 0x45, 0xF0, 0xC3}; /* mov rax,[rbp-16]; ret */
	at = code_at(body, sizeof(body), 64);
	for (int i = 0; i < 5; i++)
		cr_assert_not(v8self_no_frame_region(&fh.base, at + (uint64_t)i), "offset %d", i);
	cr_assert_not(v8self_no_frame_region(&fh.base, 0x10), "unreadable code");
}

Test(v8_self, across_a_page_boundary_the_patterns_rest_is_matched_at_the_pc)
{
	/* V8 does not read the byte before a pc that starts a page: the pattern's rest at the pc
	 * counts, whatever precedes it */
	static const uint8_t mov[] = {0x48, 0x89, 0xE5};
	uint64_t at = code_at(mov, sizeof(mov), 0);
	*(uint8_t *)fh_ptr(&fh, at - 1) = 0x90;
	cr_assert(v8self_no_frame_region(&fh.base, at));
	static const uint8_t ret[] = {0xC3};
	at = code_at(ret, sizeof(ret), 0);
	cr_assert(v8self_no_frame_region(&fh.base, at));
	/* within a page the byte before must be the pattern's first */
	at = code_at(ret, sizeof(ret), 8);
	cr_assert_not(v8self_no_frame_region(&fh.base, at), "ret after a nop");
	*(uint8_t *)fh_ptr(&fh, at - 1) = 0x5D;
	cr_assert(v8self_no_frame_region(&fh.base, at), "ret after pop rbp");
}

Test(v8_self, v8s_gc_state_covers_the_collector_and_what_marks_or_sweeps_for_it)
{
	struct frame entry = fb_native(&strings, "v8::internal::Heap::CollectGarbage");
	struct frame step = fb_native(&strings, "v8::internal::IncrementalMarking::Observer::Step");
	struct frame refill = fb_native(&strings, "v8::internal::PagedSpaceBase::RefillLabMain");
	struct frame task = fb_native(&strings, "v8::internal::IncrementalMarkingJob::Task::RunInternal");
	struct frame minor = fb_native(&strings, "v8::internal::MinorGCJob::Task::RunInternal");
	struct frame alloc = fb_native(&strings, "v8::internal::Heap::AllocateRaw");
	struct frame js = fb_js(&strings, "IncrementalMarking::Observer::Step", "/app/x.js", 1, 1);
	cr_assert(frame_in_gc_state(&strings, &entry));
	cr_assert(frame_in_gc_state(&strings, &step));
	cr_assert(frame_in_gc_state(&strings, &refill));
	cr_assert(frame_in_gc_state(&strings, &task));
	cr_assert(frame_in_gc_state(&strings, &minor));
	cr_assert_not(frame_in_gc_state(&strings, &alloc), "allocating is not collecting");
	cr_assert_not(frame_in_gc_state(&strings, &js), "a JS function may be called anything");
	/* the collector's entry alone is what the default (and the samplers' sleeps) count */
	cr_assert_not(frame_is_gc_entry(&strings, &step));
	cr_assert(frame_is_gc_entry(&strings, &entry));
}
