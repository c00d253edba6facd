/* layout.h — everything v8walk needs to know about one V8 build's object and frame layout, as a
 * flat table of integers resolved once per binary: first from the `v8dbg_*` metadata (ordered
 * alternative spellings, see layout_specs.c), then from per-V8-version fallbacks (fallbacks.c).
 * The decoder reads `L->v[ITEM]` and never tests versions itself. */
#ifndef V8WALK_LAYOUT_H
#define V8WALK_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "metadata.h"
#include "version.h"

/* X(item, description) — the description names the V8 concept (used by --version-info) */
#define V8_LAYOUT_ITEMS(X)                                                                         \
	/* tagging */                                                                              \
	X(SMI_SHIFT_SIZE, "SmiShiftSize")                                                          \
	X(TAGGED_SIZE, "TaggedSize")                                                               \
	X(HEAP_OBJECT_TAG, "HeapObjectTag")                                                        \
	/* frame slots, relative to fp */                                                          \
	X(FP_CONTEXT, "frame: context or marker")                                                  \
	X(FP_FUNCTION, "frame: JSFunction")                                                        \
	X(FP_ARGS, "frame: receiver and arguments")                                                \
	X(FP_BYTECODE_ARRAY, "frame: BytecodeArray")                                               \
	X(FP_BYTECODE_OFFSET, "frame: bytecode offset")                                            \
	/* object fields (byte offsets from the untagged start) */                                 \
	X(HEAPOBJECT_MAP, "HeapObject.map")                                                        \
	X(MAP_INSTANCE_TYPE, "Map.instance_type")                                                  \
	X(MAP_CONSTRUCTOR, "Map.constructor_or_back_pointer")                                      \
	X(FIXED_ARRAY_LENGTH, "FixedArrayBase.length")                                             \
	X(FIXED_ARRAY_DATA, "FixedArray data")                                                     \
	X(ODDBALL_KIND, "Oddball.kind")                                                            \
	X(JSFUNC_SHARED, "JSFunction.shared")                                                      \
	X(JSFUNC_CONTEXT, "JSFunction.context")                                                    \
	X(JSFUNC_CODE, "JSFunction.code (a dispatch handle with leaptiering)")                     \
	X(JSFUNC_FEEDBACK_CELL, "JSFunction.feedback_cell")                                        \
	X(SFI_FUNCTION_DATA, "SharedFunctionInfo.function_data")                                   \
	X(SFI_NAME, "SharedFunctionInfo.name_or_scope_info")                                       \
	X(SFI_SCRIPT, "SharedFunctionInfo.script")                                                 \
	X(SFI_TOKEN_OFFSET, "SharedFunctionInfo.raw_function_token_offset")                        \
	X(SFI_FLAGS, "SharedFunctionInfo.flags")                                                   \
	X(SFI_WRAPPER_SFI, "SharedFunctionInfoWrapper.shared_info")                                \
	X(SCRIPT_SOURCE, "Script.source")                                                          \
	X(SCRIPT_NAME, "Script.name")                                                              \
	X(SCRIPT_LINE_ENDS, "Script.line_ends")                                                    \
	X(SCOPEINFO_NPARAMS, "ScopeInfo slot: parameter count")                                    \
	X(SCOPEINFO_NLOCALS, "ScopeInfo slot: context local count")                                \
	X(SCOPEINFO_FIRST_VARS, "ScopeInfo slot: first variable part")                             \
	X(SCOPEINFO_POS_IN_HEADER, "ScopeInfo position pair at slots 3-4 (V8 >= 12.8.44)")         \
	X(SCOPEINFO_MAX_INLINED_LOCALS, "ScopeInfo: locals above this use a hash table")           \
	X(SCOPEFLAG_SAVED_CLASS_VAR_BIT, "ScopeFlags: has_saved_class_variable bit")               \
	X(SCOPEFLAG_RECEIVER_SHIFT, "ScopeFlags: receiver_variable shift (2 bits; a slot when 1 or 2; V8 9.x)") \
	X(SCOPEFLAG_FUNCVAR_SHIFT, "ScopeFlags: function_variable shift (2 bits)")                 \
	X(SCOPEFLAG_INFERRED_NAME_BIT, "ScopeFlags: has_inferred_function_name bit")               \
	X(SCOPEFLAG_SCOPE_TYPE_MASK, "ScopeFlags: scope_type mask")                                \
	X(UNCOMPILED_INFERRED_NAME, "UncompiledData.inferred_name")                                \
	X(UNCOMPILED_START, "UncompiledData.start_position")                                       \
	X(UNCOMPILED_END, "UncompiledData.end_position")                                           \
	/* strings */                                                                              \
	X(STRING_LENGTH, "String.length")                                                          \
	X(SEQ_ONE_CHARS, "SeqOneByteString chars")                                                 \
	X(SEQ_TWO_CHARS, "SeqTwoByteString chars")                                                 \
	X(CONS_FIRST, "ConsString.first")                                                          \
	X(CONS_SECOND, "ConsString.second")                                                        \
	X(SLICED_PARENT, "SlicedString.parent")                                                    \
	X(SLICED_OFFSET, "SlicedString.offset")                                                    \
	X(THIN_ACTUAL, "ThinString.actual")                                                        \
	X(EXT_RESOURCE, "ExternalString.resource")                                                 \
	X(EXT_DATA_CACHE, "ExternalString cached data pointer")                                    \
	X(STR_REP_MASK, "StringRepresentationMask")                                                \
	X(STR_SEQ_TAG, "SeqStringTag")                                                             \
	X(STR_CONS_TAG, "ConsStringTag")                                                           \
	X(STR_EXT_TAG, "ExternalStringTag")                                                        \
	X(STR_SLICED_TAG, "SlicedStringTag")                                                       \
	X(STR_THIN_TAG, "ThinStringTag")                                                           \
	X(STR_ENC_MASK, "StringEncodingMask")                                                      \
	X(STR_ONE_BYTE_TAG, "OneByteStringTag")                                                    \
	X(STR_UNCACHED_EXT_MASK, "uncached external string bit")                                   \
	X(FIRST_NONSTRING_TYPE, "FirstNonstringType")                                              \
	X(ODDBALL_UNDEFINED, "Oddball kind: undefined")                                            \
	/* code objects */                                                                         \
	X(CODE_INSTR_START, "Code.instruction_start")                                              \
	X(CODE_INSTR_INLINE, "Code instructions inline (before V8 11.1.204)")                      \
	X(CODE_INSTR_SIZE, "Code.instruction_size")                                                \
	X(CODE_FLAGS, "Code.flags")                                                                \
	X(CODE_SPT, "Code.source_position_table")                                                  \
	X(CODE_DEOPT_DATA, "Code.deoptimization_data")                                             \
	X(CODE_KIND_MASK, "CodeKindFieldMask")                                                     \
	X(CODE_KIND_SHIFT, "CodeKindFieldShift")                                                   \
	X(CODEKIND_INTERPRETED, "CodeKind INTERPRETED_FUNCTION")                                   \
	X(CODEKIND_BASELINE, "CodeKind BASELINE")                                                  \
	X(CODEKIND_MAGLEV, "CodeKind MAGLEV (TURBOPROP before V8 10)")                             \
	X(CODEKIND_TURBOFAN, "CodeKind TURBOFAN / TURBOFAN_JS")                                    \
	X(IS_BODY, "InstructionStream: first instruction")                                         \
	X(IS_CODE, "InstructionStream.code (back pointer)")                                        \
	X(BASELINE_DATA_CODE, "BaselineData.baseline_code (V8 9.x)")                               \
	X(BASELINE_DATA_DATA, "BaselineData.data (V8 9.x)")                                        \
	X(INTERPRETER_DATA_BYTECODE, "InterpreterData.bytecode_array")                             \
	X(BYTECODE_WRAPPER_BYTECODE, "BytecodeWrapper.bytecode")                                   \
	X(LEAPTIERING, "JSFunction code through the dispatch table (V8 >= 13.3)")                  \
	X(BCA_LENGTH, "BytecodeArray.length")                                                      \
	X(BCA_DATA, "BytecodeArray first bytecode")                                                \
	X(BCA_SPT, "BytecodeArray.source_position_table")                                          \
	X(SPT_FORMAT, "source-position table code-delta encoding (0 signed, 1 packed flags)")      \
	X(DEOPT_INLINED_COUNT, "DeoptimizationData InlinedFunctionCount index")                    \
	X(DEOPT_LITERALS, "DeoptimizationData LiteralArray index")                                 \
	X(DEOPT_SFI, "DeoptimizationData SharedFunctionInfo index")                                \
	X(DEOPT_WRAPPED_SFI, "DeoptimizationData WrappedSharedFunctionInfo index")                 \
	X(DEOPT_INLINING_POS, "DeoptimizationData InliningPositions index")                        \
	X(DEOPT_FIRST_ENTRY, "DeoptimizationData first entry {bytecode offset, translation, pc}")  \
	X(MAGLEV_SAFEPOINTS, "Maglev safepoint table layout of safepoints.h (V8 13.6/14.6)")       \
	/* objects, properties and names (receivers in stack traces) */                           \
	X(MAP_BIT_FIELD, "Map.bit_field")                                                    \
	X(MAP_BIT_FIELD2, "Map.bit_field2")                                                  \
	X(MAP_BIT_FIELD3, "Map.bit_field3")                                                  \
	X(MAP_PROTOTYPE, "Map.prototype")                                                    \
	X(MAP_DESCRIPTORS, "Map.instance_descriptors")                                       \
	X(MAP_INSTANCE_SIZE_WORDS, "Map.instance_size_in_words")                             \
	X(MAP_INOBJECT_START, "Map.inobject_properties_start_or_constructor_function_index") \
	X(BF_IS_CONSTRUCTOR_BIT, "Map bit_field: is_constructor bit")                        \
	X(BF2_NEW_TARGET_IS_BASE_BIT, "Map bit_field2: new_target_is_base bit")              \
	X(BF3_DICT_SHIFT, "Map bit_field3: is_dictionary_map bit")                           \
	X(BF3_PROTO_MAP_SHIFT, "Map bit_field3: is_prototype_map bit")                       \
	X(BF3_NOD_SHIFT, "Map bit_field3: number_of_own_descriptors shift")                  \
	X(BF3_NOD_MASK, "Map bit_field3: number_of_own_descriptors mask")                    \
	X(DESC_HEADER, "DescriptorArray header size")                                        \
	X(DESC_ENTRY_SIZE, "DescriptorArray entry size (slots)")                             \
	X(DESC_KEY, "DescriptorArray entry: key slot")                                       \
	X(DESC_DETAILS, "DescriptorArray entry: details slot")                               \
	X(DESC_VALUE, "DescriptorArray entry: value slot")                                   \
	X(PROP_KIND_MASK, "PropertyDetails kind mask")                                       \
	X(PROP_KIND_ACCESSOR, "PropertyDetails kind: accessor")                              \
	X(PROP_LOC_MASK, "PropertyDetails location mask")                                    \
	X(PROP_LOC_SHIFT, "PropertyDetails location shift")                                  \
	X(PROP_LOC_DESCRIPTOR, "PropertyDetails location: descriptor")                       \
	X(PROP_ATTR_MASK, "PropertyDetails attributes mask")                                 \
	X(PROP_ATTR_SHIFT, "PropertyDetails attributes shift")                               \
	X(PROP_DONT_ENUM, "PropertyAttributes DONT_ENUM")                                    \
	X(PROP_INDEX_MASK, "PropertyDetails field index mask")                               \
	X(PROP_INDEX_SHIFT, "PropertyDetails field index shift")                             \
	X(PROP_REPR_MASK, "PropertyDetails representation mask")                             \
	X(PROP_REPR_SHIFT, "PropertyDetails representation shift")                           \
	X(PROP_REPR_DOUBLE, "PropertyDetails representation: double")                        \
	X(JSRECEIVER_PROPERTIES, "JSReceiver.raw_properties_or_hash")                        \
	X(PROPERTY_ARRAY_DATA, "PropertyArray data")                                         \
	X(NAMEDICT_PREFIX_START, "NameDictionary prefix start index")                        \
	X(NAMEDICT_PREFIX_SIZE, "NameDictionary prefix size")                                \
	X(NAMEDICT_ENTRY_SIZE, "NameDictionary entry size")                                  \
	X(TUPLE2_VALUE1, "Tuple2.value1")                                                    \
	X(ACCESSOR_GETTER, "AccessorPair.getter")                                            \
	X(ACCESSOR_SETTER, "AccessorPair.setter")                                            \
	X(SYMBOL_DESCRIPTION, "Symbol.description")                                          \
	X(SFI_NATIVE_BIT, "SharedFunctionInfo flags: is_native bit")                         \
	X(SFI_CLASS_CTOR_BIT, "SharedFunctionInfo flags: is_class_constructor bit")          \
	X(ODDBALL_NULL, "Oddball kind: null")                                                \
	X(ODDBALL_TRUE, "Oddball kind: true")                                                \
	X(ODDBALL_FALSE, "Oddball kind: false")                                              \
	X(CONTEXT_EXTENSION, "Context slot: extension")                                            \
	X(JSGEN_FUNCTION, "JSGeneratorObject.function")                                            \
	X(JSGEN_CONTEXT, "JSGeneratorObject.context")                                              \
	X(JSGEN_RECEIVER, "JSGeneratorObject.receiver")                                            \
	X(JSGEN_INPUT_OR_DEBUG_POS, "JSGeneratorObject.input_or_debug_pos")                        \
	X(JSGEN_RESUME_MODE, "JSGeneratorObject.resume_mode")                                      \
	X(JSGEN_REGISTERS, "JSGeneratorObject.parameters_and_registers")                           \
	X(JSGEN_CONTINUATION, "JSGeneratorObject.continuation")                                    \
	X(JSASYNC_PROMISE, "JSAsyncFunctionObject.promise")                                        \
	X(JSPROMISE_REACTIONS, "JSPromise.reactions_or_result")                                    \
	X(JSPROMISE_FLAGS, "JSPromise.flags")                                                      \
	X(PROMISE_STATUS_MASK, "JSPromise flags: status mask")                                     \
	X(REACTION_NEXT, "PromiseReaction.next")                                                   \
	X(REACTION_FULFILL, "PromiseReaction.fulfill_handler")                                     \
	X(REACTION_PROMISE, "PromiseReaction.promise_or_capability")                               \
	X(REACTION_REJECT, "PromiseReaction.reject_handler")                                       \
	X(CAPABILITY_PROMISE, "PromiseCapability.promise")                                         \
	X(JSASYNCGEN_QUEUE, "JSAsyncGeneratorObject.queue")                                        \
	X(AGR_PROMISE, "AsyncGeneratorRequest.promise")                                            \
	X(SFI_BUILTIN_ID, "SharedFunctionInfo: builtin id (a Smi; -1 or an object when none)")     \
	X(CONTEXT_PROMISE_SLOT, "Context slot: the promise of Promise resolving functions")        \
	X(CONTEXT_CAPABILITY_SLOT, "Context slot: the capability of Promise.all/allSettled/any elements") \
	X(ASYNC_ALLSETTLED, "Error.stack follows Promise.allSettled elements (1) or stops there (0)") \
	X(FP_JOB_PROMISE, "frame: a promise reaction job's promise_or_capability (first spill slot)") \
	/* heap pages (a MemoryChunk's header, or from V8 13 its metadata) */                    \
	X(PAGE_SHIFT, "heap page alignment (log2)")                                                \
	X(PAGE_METADATA, "page header: pointer to the page's metadata (V8 >= 13)")                 \
	X(PAGE_RESERVATION, "page header/metadata: reservation {page allocator, address, size}")   \
	X(PAGE_FLAGS, "page header: flags")                                                        \
	X(PAGE_AREA_START, "page header/metadata: area_start")                                     \
	X(PAGE_AREA_END, "page header/metadata: area_end")                                         \
	X(PAGE_HEAP, "page header/metadata: heap")                                                 \
	X(PAGE_FROM_BIT, "page flags: FROM_PAGE (the young generation's inactive half)")           \
	X(SCRIPT_EVAL_FROM_SHARED, "Script.eval_from_shared_or_wrapped_arguments")           \
	X(SCRIPT_EVAL_FROM_POSITION, "Script.eval_from_position")                            \
	X(STACK_TYPE_RULE, "Error.stack: type prefix unless the name starts with it (0) / when the name is another identifier (1)") \
	X(STACK_METHOD_SPACE, "Error.stack: a space also ends a function name before the method name") \
	X(STACK_FUNCTION_RECEIVER, "Error.stack: type of a function receiver: constructor name (0), class name (1), constructor's own name (2)") \
	/* instance types */                                                                       \
	X(T_JSFUNC_FIRST, "first JSFunction type")                                                 \
	X(T_JSFUNC_LAST, "last JSFunction type")                                                   \
	X(T_SFI, "SHARED_FUNCTION_INFO_TYPE")                                                      \
	X(T_SFI_WRAPPER, "SHARED_FUNCTION_INFO_WRAPPER_TYPE")                                      \
	X(T_SCRIPT, "SCRIPT_TYPE")                                                                 \
	X(T_SCOPE_INFO, "SCOPE_INFO_TYPE")                                                         \
	X(T_FIXED_ARRAY, "FIXED_ARRAY_TYPE")                                                       \
	X(T_TRUSTED_FIXED_ARRAY, "TRUSTED_FIXED_ARRAY_TYPE")                                       \
	X(T_PROTECTED_FIXED_ARRAY, "PROTECTED_FIXED_ARRAY_TYPE")                                   \
	X(T_WEAK_FIXED_ARRAY, "WEAK_FIXED_ARRAY_TYPE")                                             \
	X(T_TRUSTED_WEAK_FIXED_ARRAY, "TRUSTED_WEAK_FIXED_ARRAY_TYPE")                             \
	X(T_PROTECTED_WEAK_FIXED_ARRAY, "PROTECTED_WEAK_FIXED_ARRAY_TYPE")                         \
	X(T_BYTE_ARRAY, "BYTE_ARRAY_TYPE")                                                         \
	X(T_TRUSTED_BYTE_ARRAY, "TRUSTED_BYTE_ARRAY_TYPE")                                         \
	X(T_ODDBALL, "ODDBALL_TYPE")                                                               \
	X(T_MAP, "MAP_TYPE")                                                                       \
	X(T_BYTECODE_ARRAY, "BYTECODE_ARRAY_TYPE")                                                 \
	X(T_CODE, "CODE_TYPE")                                                                     \
	X(T_INSTRUCTION_STREAM, "INSTRUCTION_STREAM_TYPE")                                         \
	X(T_UNCOMPILED_WITHOUT, "UNCOMPILED_DATA_WITHOUT_PREPARSE_DATA_TYPE")                      \
	X(T_UNCOMPILED_WITH, "UNCOMPILED_DATA_WITH_PREPARSE_DATA_TYPE")                            \
	X(T_UNCOMPILED_WITHOUT_JOB, "UNCOMPILED_DATA_WITHOUT_PREPARSE_DATA_WITH_JOB_TYPE")         \
	X(T_UNCOMPILED_WITH_JOB, "UNCOMPILED_DATA_WITH_PREPARSE_DATA_AND_JOB_TYPE")                \
	X(T_FEEDBACK_VECTOR, "FEEDBACK_VECTOR_TYPE")                                               \
	X(T_BASELINE_DATA, "BASELINE_DATA_TYPE (V8 9.x)")                                          \
	X(T_FEEDBACK_CELL, "FEEDBACK_CELL_TYPE")                                                   \
	X(T_JS_GLOBAL_PROXY, "JS_GLOBAL_PROXY_TYPE")                                               \
	X(T_JS_GLOBAL_OBJECT, "JS_GLOBAL_OBJECT_TYPE")                                             \
	X(T_SYMBOL, "SYMBOL_TYPE")                                                           \
	X(T_PROPERTY_ARRAY, "PROPERTY_ARRAY_TYPE")                                           \
	X(T_ACCESSOR_PAIR, "ACCESSOR_PAIR_TYPE")                                             \
	X(T_JS_PROXY, "JS_PROXY_TYPE")                                                       \
	X(T_TUPLE2, "TUPLE2_TYPE")                                                           \
	X(T_HEAP_NUMBER, "HEAP_NUMBER_TYPE")                                                 \
	X(T_JS_ARRAY, "JS_ARRAY_TYPE")                                                       \
	X(T_JS_BOUND_FUNCTION, "JS_BOUND_FUNCTION_TYPE")                                     \
	X(T_JS_ASYNC_FUNCTION_OBJECT, "JS_ASYNC_FUNCTION_OBJECT_TYPE")                       \
	X(T_JS_PROMISE, "JS_PROMISE_TYPE")                                                   \
	X(T_PROMISE_REACTION, "PROMISE_REACTION_TYPE")                                       \
	X(T_JS_ASYNC_GENERATOR_OBJECT, "JS_ASYNC_GENERATOR_OBJECT_TYPE")                     \
	X(T_PROMISE_CAPABILITY, "PROMISE_CAPABILITY_TYPE")                                   \
	X(T_ASYNC_GENERATOR_REQUEST, "ASYNC_GENERATOR_REQUEST_TYPE")                         \
	X(T_CONTEXT_FIRST, "FirstContextType")                                               \
	X(T_CONTEXT_LAST, "LastContextType")                                                 \
	X(T_INTERPRETER_DATA, "INTERPRETER_DATA_TYPE")                                             \
	X(T_BYTECODE_WRAPPER, "BYTECODE_WRAPPER_TYPE")                                       \
	X(T_WASM_INSTANCE_OBJECT, "WASM_INSTANCE_OBJECT_TYPE")                               \
	X(T_WASM_MODULE_OBJECT, "WASM_MODULE_OBJECT_TYPE")                                   \
	/* frame types (renumbered in every release) */                                            \
	X(FT_ENTRY, "EntryFrame")                                                                  \
	X(FT_CONSTRUCT_ENTRY, "ConstructEntryFrame")                                               \
	X(FT_EXIT, "ExitFrame")                                                                    \
	X(FT_INTERPRETED, "InterpretedFrame")                                                      \
	X(FT_BASELINE, "BaselineFrame")                                                            \
	X(FT_MAGLEV, "MaglevFrame")                                                                \
	X(FT_TURBOFAN, "Optimized/Turbofan/TurbofanJS frame")                                      \
	X(FT_STUB, "StubFrame")                                                                    \
	X(FT_BUILTIN, "BuiltinFrame")                                                              \
	X(FT_BUILTIN_EXIT, "BuiltinExitFrame")                                                     \
	X(FT_INTERNAL, "InternalFrame")                                                            \
	X(FT_CONSTRUCT, "ConstructFrame")                                                          \
	X(FT_FAST_CONSTRUCT, "FastConstructFrame")                                                 \
	X(FT_WASM, "WasmFrame")

enum v8_item {
#define X(name, desc) L_##name,
	V8_LAYOUT_ITEMS(X)
#undef X
	L_COUNT
};

enum v8_item_source { SRC_MISSING = 0, SRC_METADATA, SRC_FALLBACK, SRC_OVERRIDE };

struct v8_frametype_name {
	int32_t value;
	char *name; /* "InterpretedFrame" */
};

struct v8_layout {
	struct v8_version version; /* the version the fallbacks were chosen for */
	int32_t v[L_COUNT];
	uint8_t src[L_COUNT];           /* enum v8_item_source */
	const char *how[L_COUNT];       /* matched metadata name, or the fallback's note */
	struct v8_frametype_name *frametypes; /* every frametype_* of the binary */
	size_t nframetypes;
	int32_t max_frametype;
};

/* One row of the metadata table: alternative spellings, most recent first. */
struct v8_layout_spec {
	const char *md[5];
};

/* One fallback row: when the item is missing and from <= version < until (until 0 = open),
 * value = (base item's value, or 0 when base < 0) + delta. */
struct v8_fallback {
	enum v8_item item;
	uint64_t from, until;
	int base; /* an enum v8_item, or -1 */
	int32_t delta;
	const char *note;
};

extern const struct v8_layout_spec v8_layout_specs[L_COUNT];
extern const struct v8_fallback v8_fallbacks[];
extern const size_t v8_nfallbacks;
extern const char *const v8_item_desc[L_COUNT];
extern const char *const v8_item_name[L_COUNT];

/* Resolve every item for a binary's metadata and V8 version. */
void v8_layout_resolve(struct v8_layout *L, const struct v8_metadata *md,
		       const struct v8_version *version);
void v8_layout_free(struct v8_layout *L);
static inline bool v8_has(const struct v8_layout *L, enum v8_item i) { return L->src[i] != SRC_MISSING; }
/* Name of a frame type number ("InterpretedFrame"), or NULL. */
const char *v8_frametype_name(const struct v8_layout *L, int32_t type);
/* Items the decoder cannot work without that are still missing (NULL-terminated list). */
size_t v8_layout_missing_required(const struct v8_layout *L, enum v8_item *out, size_t cap);

#endif
