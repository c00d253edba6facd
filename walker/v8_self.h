/* v8_self.h — what V8's own CPU profiler (`node --cpu-prof`) charges, for --v8-self: the rules of
 * its stack iterator for the profiler (src/execution/frames.cc, StackFrameIteratorForProfiler),
 * its tick sampler (src/profiler/tick-sample.cc, TickSample::GetStackSample) and its symbolizer
 * (src/profiler/symbolizer.cc, Symbolizer::SymbolizeTickSample) that decide which JavaScript frame
 * a sample is charged to, applied to what a sample copied. Checked against the sources of V8 11.3
 * (Node 20) and 13.8 (Node 25, as 13.6 of Node 24 for these functions). The walker
 * (stackwalk.c) asks; docs/accuracy.md says what each rule moves. */
#ifndef V8WALK_V8_SELF_H
#define V8WALK_V8_SELF_H

#include <stdbool.h>
#include <stdint.h>

#include "../mem/memsrc.h"
#include "../v8/version.h"

/* Is builtin (its symbol, "Builtins_X") one V8's profiler takes a frame that returns into it for an
 * interpreted frame, whose function it then finds from the frame's bytecode array
 * (IsInterpreterFramePc: InterpreterEntryTrampoline, InterpreterEnterAtBytecode,
 * InterpreterEnterAtNextBytecode; before V8 13 also BaselineOrInterpreterEnterAtBytecode and
 * …AtNextBytecode)? A frame that returns into any other builtin — a bytecode handler that called a
 * builtin itself, a builtin that ran on its caller's frame — is typed TURBOFAN and charged to the
 * code at its pc, and no builtin has an entry in --cpu-prof's code map: its function is left out. */
bool v8self_interpreter_entry(const char *builtin, const struct v8_version *v);

/* Does V8 discard a sample whose pc is this one in its code range (JIT code, the builtins'
 * remapped copy) because the pc is where a frame is set up or torn down (IsNoFrameRegion: push
 * rbp / mov rbp,rsp, pop rbp / ret; x86-64 patterns, V8 checks none on arm64)? V8 then charges the
 * sample to "(program)". mem holds the code. */
bool v8self_no_frame_region(struct memsrc *mem, uint64_t pc);

#endif
