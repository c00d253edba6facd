/* fallbacks.c — per-V8-version values for layout items the metadata lacks. One row per fact, with
 * the version range it holds for and where it comes from. Rows apply only when the metadata is
 * silent; they are tried in order, so a row may use an item an earlier row resolved.
 *
 * Node ↔ V8: 16 = 9.4, 18 = 10.2, 20 = 11.3, 22 = 12.4, 24 = 13.6, 26 = 14.6. */
#include "layout.h"

#include <stddef.h>

#define ANY 0
#define NONE -1

const struct v8_fallback v8_fallbacks[] = {
    /* frame slots: bytecode slots were exported from V8 9.5.2 (Node 16 lacks them) */
    {L_FP_BYTECODE_ARRAY, V8V(8, 7, 198), ANY, L_FP_FUNCTION, -16,
     "fp_function - 16 (V8 >= 8.7.198; exported from 9.5.2)"},
    {L_FP_BYTECODE_ARRAY, ANY, V8V(8, 7, 198), L_FP_FUNCTION, -8, "fp_function - 8 (V8 < 8.7.198)"},
    {L_FP_BYTECODE_OFFSET, ANY, ANY, L_FP_BYTECODE_ARRAY, -8, "fp_bytecode_array - 8"},
    {L_FP_ARGS, ANY, ANY, NONE, 16, "x86-64: receiver at fp+16"},

    /* JSFunction.code: not exported on Node 20 (11.3); on 24/26 the slot holds a dispatch handle */
    {L_JSFUNC_CODE, V8V(11, 7, 368), ANY, L_JSFUNC_SHARED, -8, "shared - 8 (V8 >= 11.7.368)"},
    {L_JSFUNC_CODE, ANY, V8V(11, 7, 368), L_JSFUNC_SHARED, 24, "shared + 24 (V8 < 11.7.368)"},
    {L_LEAPTIERING, V8V(13, 3, 0), ANY, NONE, 1, "dispatch-table handle in JSFunction (Node 24+)"},
    {L_LEAPTIERING, ANY, V8V(13, 3, 0), NONE, 0, "code pointer in JSFunction"},

    /* SFI.function_data lost its metadata in V8 12 (Node 22); no V8_SANDBOX in Node builds */
    {L_SFI_FUNCTION_DATA, ANY, ANY, NONE, 8, "8 (no sandbox in Node; trusted_function_data on 13.6/14.6, measured)"},
    {L_SFI_WRAPPER_SFI, V8V(12, 6, 0), ANY, NONE, 8, "8 (SharedFunctionInfoWrapper, V8 >= 12.6)"},

    /* Script.source is not exported by V8 9.x (Node 16) */
    {L_SCRIPT_SOURCE, ANY, ANY, L_SCRIPT_NAME, -8, "name - 8"},

    /* ScopeInfo: positions moved into the header (slots 3, 4) in V8 12.8.44, Chromium CL 5627032 */
    {L_SCOPEINFO_POS_IN_HEADER, V8V(12, 8, 44), ANY, NONE, 1, "V8 >= 12.8.44"},
    {L_SCOPEINFO_POS_IN_HEADER, ANY, V8V(12, 8, 44), NONE, 0, "V8 < 12.8.44"},
    {L_SCOPEINFO_MAX_INLINED_LOCALS, ANY, ANY, NONE, 75, "kScopeInfoMaxInlinedLocalNamesSize"},
    /* ScopeFlags bit layout (scope-info.tq): stable from V8 9.x to 14.x */
    {L_SCOPEFLAG_SCOPE_TYPE_MASK, ANY, ANY, NONE, 0xf, "scope_type: 4 bits"},
    {L_SCOPEFLAG_SAVED_CLASS_VAR_BIT, ANY, ANY, NONE, 10, "has_saved_class_variable: bit 10"},
    {L_SCOPEFLAG_FUNCVAR_SHIFT, ANY, ANY, NONE, 12, "function_variable: bits 12-13"},
    {L_SCOPEFLAG_INFERRED_NAME_BIT, ANY, ANY, NONE, 14, "has_inferred_function_name: bit 14"},
    /* V8 9.x kept a receiver_info slot (stack or context index of `this`) before the function
     * variable; measured on 9.4 (class constructors and methods), gone in 10.2 */
    {L_SCOPEFLAG_RECEIVER_SHIFT, ANY, V8V(10, 0, 0), NONE, 7, "receiver_variable: bits 7-8 (V8 9.x)"},

    /* strings: constant since long before Node 16 */
    {L_EXT_DATA_CACHE, ANY, ANY, L_EXT_RESOURCE, 8, "resource + 8 (cached data pointer)"},
    {L_STR_UNCACHED_EXT_MASK, ANY, ANY, NONE, 0x10, "kUncachedExternalStringMask"},
    {L_HEAPOBJECT_MAP, ANY, ANY, NONE, 0, "map word at 0"},
    {L_SEQ_TWO_CHARS, ANY, ANY, L_SEQ_ONE_CHARS, 0, "same as one-byte chars"},

    /* JSFunction type range: exported from V8 12 (Node 22); 17 types (First + 16) */
    {L_T_JSFUNC_LAST, ANY, ANY, L_T_JSFUNC_FIRST, 16, "first + 16 (SFI type check decides)"},

    /* objects and names (stack-trace naming of receivers) */
    {L_MAP_BIT_FIELD, ANY, ANY, NONE, 14, "14"},
    {L_MAP_BIT_FIELD2, ANY, ANY, NONE, 15, "15"},
    {L_MAP_BIT_FIELD3, ANY, ANY, NONE, 16, "16"},
    {L_MAP_PROTOTYPE, ANY, ANY, NONE, 24, "24"},
    {L_MAP_DESCRIPTORS, ANY, ANY, NONE, 40, "40"},
    {L_MAP_INSTANCE_SIZE_WORDS, ANY, ANY, NONE, 8, "8"},
    {L_MAP_INOBJECT_START, ANY, ANY, NONE, 9, "9"},
    /* map.tq: bit_field is_constructor = bit 6; bit_field2 new_target_is_base = bit 0 (elements
     * kind from bit 2); bit_field3 is_prototype_map sits just below is_dictionary_map */
    {L_BF_IS_CONSTRUCTOR_BIT, ANY, ANY, NONE, 6, "bit 6 (map.tq)"},
    {L_BF2_NEW_TARGET_IS_BASE_BIT, ANY, ANY, NONE, 0, "bit 0 (map.tq)"},
    {L_BF3_PROTO_MAP_SHIFT, ANY, ANY, L_BF3_DICT_SHIFT, -1, "is_dictionary_map - 1 (map.tq)"},
    {L_PROPERTY_ARRAY_DATA, ANY, ANY, NONE, 16, "16 (map, length_and_hash)"},
    {L_TUPLE2_VALUE1, ANY, ANY, NONE, 8, "8"},
    /* SharedFunctionInfoFlags: function_kind bits 0-4, is_native bit 5, is_class_constructor
     * bit 10 (measured identical on Node 16 to 26) */
    {L_SFI_NATIVE_BIT, ANY, ANY, NONE, 5, "bit 5 (measured 9.4 to 14.6)"},
    {L_SFI_CLASS_CTOR_BIT, ANY, ANY, NONE, 10, "bit 10 (measured 9.4 to 14.6)"},
    /* Error.stack formatting (call-site-info.cc AppendMethodCall), measured per Node line:
     * 9.4 prefixes the type unless the function name starts with it; 10.2+ when the function name
     * is an identifier other than the type. 12.4+ also accept "get x" ending in method name x.
     * A function receiver names the type by its constructor ("Function") on 9.4, by its class
     * name for class constructors on 10.2-12.4, by its own name for any constructor on 13.6+. */
    {L_STACK_TYPE_RULE, V8V(10, 0, 0), ANY, NONE, 1, "identifier rule (measured 10.2+; 9.4 prefix rule)"},
    {L_STACK_TYPE_RULE, ANY, V8V(10, 0, 0), NONE, 0, "starts-with rule (measured 9.4)"},
    {L_STACK_METHOD_SPACE, V8V(12, 0, 0), ANY, NONE, 1, "' ' or '.' (measured 12.4+; 11.3 '.')"},
    {L_STACK_METHOD_SPACE, ANY, V8V(12, 0, 0), NONE, 0, "'.' only (measured 9.4-11.3)"},
    {L_STACK_FUNCTION_RECEIVER, V8V(13, 0, 0), ANY, NONE, 2, "constructor's name (measured 13.6+)"},
    {L_STACK_FUNCTION_RECEIVER, V8V(10, 0, 0), V8V(13, 0, 0), NONE, 1, "class name (measured 10.2-12.4)"},
    {L_STACK_FUNCTION_RECEIVER, ANY, V8V(10, 0, 0), NONE, 0, "constructor name (measured 9.4)"},

    /* async stack traces (measured on Node 16 to 26 with %DebugPrint and memory dumps) */
    {L_CONTEXT_EXTENSION, ANY, ANY, NONE, 2, "Context::EXTENSION_INDEX"},
    {L_JSGEN_FUNCTION, ANY, ANY, NONE, 24, "24 (after the JSObject header)"},
    {L_JSGEN_CONTEXT, ANY, ANY, NONE, 32, "32"},
    {L_JSGEN_RECEIVER, ANY, ANY, NONE, 40, "40"},
    {L_JSGEN_INPUT_OR_DEBUG_POS, ANY, ANY, NONE, 48, "48"},
    {L_JSGEN_RESUME_MODE, ANY, ANY, NONE, 56, "56"},
    {L_JSGEN_CONTINUATION, ANY, ANY, NONE, 64, "64"},
    {L_JSGEN_REGISTERS, ANY, ANY, NONE, 72, "72"},
    {L_JSASYNC_PROMISE, ANY, ANY, NONE, 80, "80"},
    {L_JSPROMISE_REACTIONS, ANY, ANY, NONE, 24, "24"},
    {L_JSPROMISE_FLAGS, ANY, ANY, NONE, 32, "32"},
    {L_PROMISE_STATUS_MASK, ANY, ANY, NONE, 3, "status: bits 0-1 (0 = pending)"},
    /* PromiseReaction gained continuation_preserved_embedder_data first (measured: 11.3 has
     * next at 8, 12.4 at 16) */
    {L_REACTION_NEXT, V8V(12, 0, 0), ANY, NONE, 16, "16 (measured 12.4+)"},
    {L_REACTION_NEXT, ANY, V8V(12, 0, 0), NONE, 8, "8 (measured 9.4-11.3)"},
    {L_REACTION_FULFILL, ANY, ANY, L_REACTION_NEXT, 16, "next + 16 (after reject_handler)"},
    {L_REACTION_PROMISE, ANY, ANY, L_REACTION_NEXT, 24, "next + 24"},
    {L_REACTION_REJECT, ANY, ANY, L_REACTION_NEXT, 8, "next + 8"},
    {L_CAPABILITY_PROMISE, ANY, ANY, NONE, 8, "8 (measured 9.4-14.6)"},
    {L_JSASYNCGEN_QUEUE, ANY, ANY, NONE, 80, "80 (after the generator fields; measured 9.4-14.6)"},
    {L_AGR_PROMISE, ANY, ANY, NONE, 32, "32 (next, resume_mode, value, promise)"},
    /* a builtin's SharedFunctionInfo holds Smi(id): in function_data up to V8 12, in its own
     * field from 13 (measured 13.6, 14.6: user functions hold Smi(-1) there) */
    {L_SFI_BUILTIN_ID, V8V(13, 0, 0), ANY, NONE, 16, "16 (measured 13.6, 14.6)"},
    {L_SFI_BUILTIN_ID, ANY, V8V(13, 0, 0), L_SFI_FUNCTION_DATA, 0, "function_data (measured 9.4-12.4)"},
    {L_CONTEXT_PROMISE_SLOT, ANY, ANY, NONE, 2, "PromiseBuiltins::kPromiseSlot"},
    {L_CONTEXT_CAPABILITY_SLOT, ANY, ANY, NONE, 3, "PromiseBuiltins::kPromiseAllResolveElementCapabilitySlot"},
    {L_ASYNC_ALLSETTLED, V8V(10, 0, 0), ANY, NONE, 1, "followed (measured 10.2+)"},
    {L_ASYNC_ALLSETTLED, ANY, V8V(10, 0, 0), NONE, 0, "not followed (measured 9.4)"},
    /* PromiseFulfillReactionJob / PromiseRejectReactionJob keep the task's promise_or_capability
     * in their first spill slot (measured on every line; 9.4's reject job one slot further) */
    {L_FP_JOB_PROMISE, ANY, ANY, NONE, -16, "fp - 16 (measured; 9.4's reject job fp - 24)"},

    /* heap pages, found from outside (--pending): every data page's reservation names V8's static
     * default page allocator and the page itself; measured on 9.4, 10.2, 11.3 (header), 12.4
     * (header, shifted by flags moving first), 13.6 and 14.6 (the page's metadata, malloc'd) */
    {L_PAGE_SHIFT, ANY, ANY, NONE, 18, "256 KiB pages"},
    {L_PAGE_METADATA, V8V(13, 0, 0), ANY, NONE, 8, "8 (measured 13.6, 14.6)"},
    {L_PAGE_RESERVATION, V8V(13, 0, 0), ANY, NONE, 0, "metadata + 0 (measured 13.6, 14.6)"},
    {L_PAGE_RESERVATION, V8V(12, 0, 0), V8V(13, 0, 0), NONE, 80, "80 (measured 12.4)"},
    {L_PAGE_RESERVATION, ANY, V8V(12, 0, 0), NONE, 72, "72 (measured 9.4-11.3)"},
    {L_PAGE_FLAGS, V8V(12, 0, 0), ANY, NONE, 0, "0 (measured 12.4-14.6)"},
    {L_PAGE_FLAGS, ANY, V8V(12, 0, 0), NONE, 8, "8 (measured 9.4-11.3)"},
    {L_PAGE_AREA_START, V8V(13, 0, 0), ANY, NONE, 72, "metadata + 72 (measured 13.6, 14.6)"},
    {L_PAGE_AREA_START, V8V(12, 0, 0), V8V(13, 0, 0), NONE, 32, "32 (measured 12.4)"},
    {L_PAGE_AREA_START, ANY, V8V(12, 0, 0), NONE, 24, "24 (measured 9.4-11.3)"},
    {L_PAGE_AREA_END, V8V(13, 0, 0), ANY, NONE, 56, "metadata + 56 (measured 13.6, 14.6)"},
    {L_PAGE_AREA_END, V8V(12, 0, 0), V8V(13, 0, 0), NONE, 40, "40 (measured 12.4)"},
    {L_PAGE_AREA_END, ANY, V8V(12, 0, 0), NONE, 32, "32 (measured 9.4-11.3)"},
    {L_PAGE_HEAP, V8V(13, 0, 0), ANY, NONE, 64, "metadata + 64 (measured 13.6, 14.6)"},
    {L_PAGE_HEAP, V8V(12, 0, 0), V8V(13, 0, 0), NONE, 24, "24 (measured 12.4)"},
    {L_PAGE_HEAP, ANY, V8V(12, 0, 0), NONE, 16, "16 (measured 9.4-11.3)"},
    {L_PAGE_FROM_BIT, ANY, ANY, NONE, 3, "FROM_PAGE: bit 3 (basic-memory-chunk.h)"},

    /* Code objects (used for exact positions) */
    {L_CODE_INSTR_INLINE, V8V(11, 1, 204), ANY, NONE, 0, "pointer (Code/InstructionStream split)"},
    {L_CODE_INSTR_INLINE, ANY, V8V(11, 1, 204), NONE, 1, "instructions inline in Code"},
    {L_CODE_INSTR_START, V8V(11, 1, 204), V8V(11, 5, 0), L_CODE_SPT, 16, "SPT + 16 (V8 11.x lost it)"},
    {L_CODE_FLAGS, V8V(11, 1, 204), V8V(11, 5, 0), L_CODE_INSTR_START, 8, "instruction_start + 8"},
    {L_CODE_INSTR_SIZE, V8V(11, 1, 204), V8V(11, 5, 0), L_CODE_FLAGS, 8, "flags + 8"},
    {L_CODE_FLAGS, ANY, V8V(10, 0, 0), L_CODE_INSTR_SIZE, 8, "instruction_size + 8 (Node 16)"},
    {L_CODE_SPT, V8V(12, 0, 0), ANY, L_CODE_INSTR_START, -24, "instruction_start - 24 (CodeWrapper era)"},
    {L_CODE_SPT, ANY, V8V(12, 0, 0), L_CODE_INSTR_SIZE, -16, "instruction_size - 16"},
    {L_CODE_DEOPT_DATA, ANY, ANY, L_CODE_SPT, -8, "source_position_table - 8"},
    {L_CODE_KIND_MASK, ANY, ANY, NONE, 15, "0xf"},
    {L_CODE_KIND_SHIFT, ANY, ANY, NONE, 0, "0"},
    {L_CODEKIND_BASELINE, ANY, ANY, NONE, 11, "11 (V8 >= 9.0.240)"},
    {L_CODEKIND_INTERPRETED, ANY, ANY, L_CODEKIND_BASELINE, -1, "Baseline - 1"},
    /* code-kind.h keeps INTERPRETED_FUNCTION, BASELINE, MAGLEV (TURBOPROP in 9.x), TURBOFAN in a row */
    {L_CODEKIND_MAGLEV, ANY, ANY, L_CODEKIND_BASELINE, 1, "Baseline + 1 (code-kind.h order)"},
    {L_CODEKIND_TURBOFAN, ANY, ANY, L_CODEKIND_BASELINE, 2, "Baseline + 2 (code-kind.h order)"},
    /* V8 9.x kept baseline code in SharedFunctionInfo.function_data as BaselineData {code, data} */
    {L_BASELINE_DATA_CODE, ANY, V8V(9, 5, 0), NONE, 8, "8 (after the map; V8 9.x)"},
    {L_BASELINE_DATA_DATA, ANY, V8V(9, 5, 0), NONE, 16, "16 (V8 9.x)"},
    {L_INTERPRETER_DATA_BYTECODE, ANY, ANY, NONE, 8, "8 (after the map)"},
    {L_BYTECODE_WRAPPER_BYTECODE, ANY, ANY, NONE, 8, "8 (after the map; V8 >= 12.3)"},
    /* InstructionStream (V8 >= 11.1.204): map, then the back pointer to its Code */
    {L_IS_CODE, V8V(11, 1, 204), ANY, NONE, 8, "8 (after the map)"},
    {L_BCA_LENGTH, ANY, ANY, L_FIXED_ARRAY_LENGTH, 0, "FixedArrayBase.length"},
    {L_BCA_SPT, V8V(12, 3, 97), ANY, NONE, 24, "wrapper + 8 = 24 (V8 >= 12.3.97)"},
    {L_BCA_SPT, ANY, V8V(12, 0, 0), NONE, 32, "32 (V8 < 12)"},
    /* measured: 13.6 (Node 24) zig-zag code deltas; 14.6 (Node 26) flags packed into the delta */
    {L_SPT_FORMAT, V8V(14, 0, 0), ANY, NONE, 1, "packed flags (measured on 14.6; 13.6 is signed)"},
    {L_SPT_FORMAT, ANY, V8V(14, 0, 0), NONE, 0, "zig-zag signed code delta"},
    {L_BCA_DATA, ANY, ANY, L_BCA_SPT, 22, "source_position_table + 8 + 14 (Node 16: 54)"},
    {L_DEOPT_INLINED_COUNT, ANY, ANY, NONE, 1, "1"},
    {L_DEOPT_LITERALS, ANY, ANY, NONE, 2, "2"},
    {L_DEOPT_SFI, ANY, V8V(12, 5, 0), NONE, 6, "6"},
    {L_DEOPT_INLINING_POS, ANY, ANY, NONE, 7, "7"},
    /* measured on 13.6 and 14.6: 12 fixed slots (translation … lazy deopt count), then
     * {bytecode offset, translation index, pc} per deoptimization entry; the Maglev safepoint
     * table sits at the start of the Code's metadata (only Node 24+ builds ship Maglev) */
    {L_DEOPT_FIRST_ENTRY, V8V(13, 0, 0), ANY, NONE, 12, "12 (measured 13.6, 14.6)"},
    {L_MAGLEV_SAFEPOINTS, V8V(13, 0, 0), ANY, NONE, 1, "measured 13.6, 14.6"},
};

const size_t v8_nfallbacks = sizeof(v8_fallbacks) / sizeof(v8_fallbacks[0]);
