/* runtime.h — the V8 of one target: which module carries it (node or libnode.so), its versions,
 * metadata and resolved layout, where its embedded builtins are, and PC classification
 * (JIT code / builtins, including V8's remapped copy / native code). */
#ifndef V8WALK_RUNTIME_H
#define V8WALK_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "../symtab/addrspace.h"
#include "../util/strbuf.h"
#include "layout.h"
#include "metadata.h"

enum pc_class {
	PC_UNMAPPED, /* in no known mapping (stale maps, or garbage) */
	PC_NATIVE,   /* ELF code outside V8's builtins */
	PC_JIT,      /* anonymous executable memory: V8-generated code */
	PC_BUILTIN,  /* V8's embedded builtins, in the binary or its remapped copy */
};

enum builtin_role {
	BR_OTHER,
	BR_INTERPRETER, /* entry trampolines and bytecode handlers: the JS frame is the one to show */
	BR_BASELINE_HELPER,
	BR_PROMISE_JOB, /* PromiseFulfillReactionJob / PromiseRejectReactionJob: a microtask resolving
			 * a promise reaction (the await chain's start: walker/async_frames.h) */
};

struct pc_info {
	enum pc_class cls;
	struct module *mod;
	uint64_t vaddr;       /* link-time address in mod */
	const char *builtin;  /* "Builtins_X" for PC_BUILTIN when named */
	enum builtin_role role;
	bool bytecode_handler; /* a bytecode handler ("…Handler"): the offset is live in a register */
};

struct v8_runtime {
	struct v8_metadata md;
	struct v8_layout L;
	struct v8_version version;      /* from the binary */
	struct v8_version layout_version; /* what the fallbacks were keyed on (--force-v8-version) */
	bool forced;
	int node_line;                  /* 20 for Node 20.x (0 = unknown) */
	size_t mod;                     /* index in the addrspace's modules */
	char *module_path;
	uint64_t blob_vaddr, blob_size; /* embedded builtins, link-time addresses */
	bool have_blob;
	const char *blob_how;
};

enum v8_open_status {
	V8_OK,
	V8_NOT_NODE,       /* no module with V8 metadata */
	V8_NO_METADATA,    /* a V8 binary without v8dbg_* (stripped or built without) */
	V8_INCOMPATIBLE,   /* pointer compression or other tagging we cannot read */
	V8_UNSUPPORTED,    /* V8 version outside what the tables know, or required items missing */
};

/* Does this ELF file carry V8 (v8dbg_* metadata or V8's version symbols)? */
bool v8_image_has_v8(const struct elf_image *img);
/* Find the V8 module among the target's modules and load it. `force` (may be NULL) selects the
 * fallback row instead of the binary's own version. On failure, *msg says why, in one line. */
enum v8_open_status v8_runtime_open(struct v8_runtime *rt, struct addrspace *as,
				    const struct v8_version *force, struct strbuf *msg);
void v8_runtime_free(struct v8_runtime *rt);
/* The role of the builtin named `name` (its symbol, "Builtins_JumpLoopHandler"). */
enum builtin_role v8_builtin_role(const char *name);
/* Classify a code address (pc) of the target. */
void v8_classify_pc(const struct v8_runtime *rt, struct addrspace *as, uint64_t pc,
		    struct pc_info *out);
/* What v8_classify_pc said of the pcs asked last (direct-mapped), while the address space's
 * mappings stay indexed as they were (its generation): a walk asks the same few hundred return
 * addresses at every sample, two or three times each. */
enum { PC_CLASS_SLOTS = 2048 };
struct pc_class_cache {
	struct pc_class_entry {
		uint64_t pc;
		unsigned long gen; /* the address space's generation + 1 (0: empty) */
		struct pc_info pi;
	} *slots;
};
void pc_class_cache_init(struct pc_class_cache *c);
void pc_class_cache_free(struct pc_class_cache *c);
/* v8_classify_pc through the cache. */
void v8_classify_pc_cached(const struct v8_runtime *rt, struct addrspace *as, struct pc_class_cache *c,
			   uint64_t pc, struct pc_info *out);
/* A printable "Node 20.20.2 (V8 11.3.244.8)". */
void v8_runtime_describe(const struct v8_runtime *rt, struct strbuf *out);

#endif
