/* callsite.c — Error.stack's frame names and eval locations. */
#include "callsite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "bytecode.h"
#include "objects.h"
#include "strings.h"

enum { MAX_CHAIN = 32, MAX_EVAL_DEPTH = 8, NAME_CACHE_MAX = 1 << 14 };

void callsite_names_init(struct callsite_names *cn, struct intern *strings,
			 struct function_cache *funcs, struct script_cache *scripts,
			 struct positions *positions)
{
	memset(cn, 0, sizeof(*cn));
	cn->strings = strings;
	cn->funcs = funcs;
	cn->scripts = scripts;
	cn->positions = positions;
	u64map_init(&cn->cache, 0);
	u64map_init(&cn->constructor_names, NAME_CACHE_MAX);
}

void callsite_names_free(struct callsite_names *cn)
{
	u64map_free(&cn->cache);
	u64map_free(&cn->constructor_names);
	free(cn->keys);
	free(cn->vals);
	memset(cn, 0, sizeof(*cn));
}

/* Interned names are counted byte strings (a JavaScript name may hold U+0000): views, never C
 * strings. */
static struct strview str(const struct callsite_names *cn, uint32_t id)
{
	return id ? intern_view(cn->strings, id) : (struct strview){"", 0};
}

static void add_view(struct strbuf *out, const char *prefix, struct strview v)
{
	sb_add(out, prefix);
	sb_addn(out, v.s, v.len);
}

static bool view_is(struct strview v, const char *lit)
{
	size_t n = strlen(lit);
	return v.len == n && memcmp(v.s, lit, n) == 0;
}

static bool view_starts(struct strview v, const char *lit)
{
	size_t n = strlen(lit);
	return v.len >= n && memcmp(v.s, lit, n) == 0;
}

static uint32_t intern_v8_string(struct callsite_names *cn, const struct v8_heap *h, uint64_t s)
{
	struct strbuf b;
	sb_init(&b);
	uint32_t id = 0;
	if (v8_is_heap_object(s) && v8_is_string(h, s) && v8_string_utf8(h, s, V8_NAME_MAX_UNITS, &b) &&
	    b.len)
		id = intern_n(cn->strings, b.s, b.len);
	sb_free(&b);
	return id;
}

/* SharedFunctionInfo::DebugName: the name, else the inferred name (0 when neither). */
static uint32_t debug_name(const struct v8_function *f)
{
	return f->shared_name_id ? f->shared_name_id : f->inferred_id;
}

static uint32_t debug_name_of(struct callsite_names *cn, const struct v8_heap *h, uint64_t jsfunction)
{
	const struct v8_function *f = function_of_jsfunction(cn->funcs, h, jsfunction);
	return f ? debug_name(f) : 0;
}

/* Script.eval_from_shared when the script is eval'd code, else 0: kept with the cached Script
 * (it is read for every nameless function's call-site name). */
static uint64_t eval_from_shared(struct callsite_names *cn, const struct v8_heap *h, uint64_t script)
{
	struct v8_script *s = script ? script_cached(cn->scripts, script) : NULL;
	if (!s && script)
		s = script_get(cn->scripts, h, script);
	return s ? s->eval_from_shared : 0;
}

/* CallSiteInfo::GetFunctionName (without the builtin special names). */
static uint32_t function_name(struct callsite_names *cn, const struct v8_heap *h,
			      const struct v8_function *f)
{
	uint32_t n = debug_name(f);
	if (!n && f->has_script && eval_from_shared(cn, h, f->script))
		n = intern_str(cn->strings, "eval");
	return n;
}

/* Oddball.kind is exported as an int but holds a Smi (measured on Node 20-26: 0x500000000 for
 * undefined on 20), so read the whole word. */
static bool oddball_kind(const struct v8_heap *h, uint64_t v, enum v8_item kind)
{
	uint64_t k;
	return v8_has(h->L, kind) && v8_is(h, v, L_T_ODDBALL) &&
	       v8_field(h, v, h->L->v[L_ODDBALL_KIND], &k) && v8_is_smi(k) &&
	       v8_smi_value(k) == h->L->v[kind];
}

static bool is_toplevel(const struct v8_heap *h, uint64_t r)
{
	return oddball_kind(h, r, L_ODDBALL_UNDEFINED) || oddball_kind(h, r, L_ODDBALL_NULL) ||
	       v8_is(h, r, L_T_JS_GLOBAL_PROXY);
}

/* The constructor name of a primitive receiver after ToObject, or NULL for an object. */
static const char *primitive_type(const struct v8_heap *h, uint64_t r)
{
	if (v8_is_smi(r) || v8_is(h, r, L_T_HEAP_NUMBER))
		return "Number";
	if (v8_is_string(h, r))
		return "String";
	if (v8_is(h, r, L_T_SYMBOL))
		return "Symbol";
	if (oddball_kind(h, r, L_ODDBALL_TRUE) || oddball_kind(h, r, L_ODDBALL_FALSE))
		return "Boolean";
	return NULL;
}

/* JSReceiver::class_name for the receivers that reach stack traces. */
static const char *class_name(const struct v8_heap *h, uint64_t r)
{
	if (v8_is_jsfunction(h, r) || v8_is(h, r, L_T_JS_BOUND_FUNCTION))
		return "Function";
	if (v8_is(h, r, L_T_JS_ARRAY))
		return "Array";
	return "Object";
}

struct tag_scan {
	const struct v8_heap *h;
	uint64_t to_string_tag; /* String */
	uint64_t constructor;   /* JSFunction */
};

static bool scan_tag(void *vctx, const struct v8_property *p)
{
	struct tag_scan *c = vctx;
	if (p->accessor || !p->value)
		return true;
	/* the key first: the keys were copied in one batch (objects.c), a value is a read of its own */
	if (!c->to_string_tag && v8_symbol_is(c->h, p->key, "Symbol.toStringTag") && v8_is_string(c->h, p->value))
		c->to_string_tag = p->value;
	else if (!c->constructor && v8_string_equals(c->h, p->key, "constructor") && v8_is_jsfunction(c->h, p->value))
		c->constructor = p->value;
	return true;
}

static bool useful_constructor_name(struct callsite_names *cn, uint32_t n)
{
	return n && !view_is(str(cn, n), "Object");
}

/* The name of the constructor a map's back-pointer chain leads to, when it is a useful one (else
 * 0), remembered per map address as the call-site names themselves are: the walk reads a map per
 * hop (10–20 hops for objects built a property at a time) and then the constructor's name. */
static uint32_t map_constructor_name(struct callsite_names *cn, const struct v8_heap *h, uint64_t map)
{
	uint64_t v;
	if (u64map_get(&cn->constructor_names, map, &v))
		return (uint32_t)v;
	uint64_t c = v8_map_constructor(h, map);
	uint32_t n = 0;
	if (c && v8_is_jsfunction(h, c)) {
		n = debug_name_of(cn, h, c);
		if (!useful_constructor_name(cn, n))
			n = 0;
	}
	u64map_put(&cn->constructor_names, map, n);
	return n;
}

/* JSReceiver::GetConstructorName: the map's constructor (for instances of a base constructor),
 * else the first Symbol.toStringTag or inherited "constructor" along the prototype chain, else
 * the class name. */
static uint32_t constructor_name(struct callsite_names *cn, const struct v8_heap *h, uint64_t r)
{
	const struct v8_layout *L = h->L;
	uint64_t map = v8_map_of(h, r);
	uint8_t bf, bf2;
	uint32_t bf3;
	if (map && !v8_is(h, r, L_T_JS_PROXY) && v8_map_bits(h, map, &bf, &bf2, &bf3) &&
	    ((bf2 >> L->v[L_BF2_NEW_TARGET_IS_BASE_BIT]) & 1) && !((bf3 >> L->v[L_BF3_PROTO_MAP_SHIFT]) & 1)) {
		uint32_t n = map_constructor_name(cn, h, map);
		if (n)
			return n;
	}
	uint64_t cur = r;
	for (int i = 0; cur && i < MAX_CHAIN; i++) {
		struct tag_scan sc = {.h = h};
		if (!v8_own_properties(h, cur, scan_tag, &sc))
			break;
		if (sc.to_string_tag)
			return intern_v8_string(cn, h, sc.to_string_tag);
		if (cur != r && sc.constructor) {
			uint32_t n = debug_name_of(cn, h, sc.constructor);
			if (useful_constructor_name(cn, n))
				return n;
		}
		cur = v8_map_prototype(h, v8_map_of(h, cur));
	}
	return intern_str(cn->strings, class_name(h, r));
}

/* CallSiteInfo::GetTypeName plus AppendMethodCall's override for function receivers. */
static uint32_t type_name(struct callsite_names *cn, const struct v8_heap *h, uint64_t r)
{
	const struct v8_layout *L = h->L;
	const char *prim = primitive_type(h, r);
	if (prim)
		return intern_str(cn->strings, prim);
	if (v8_is(h, r, L_T_JS_PROXY))
		return intern_str(cn->strings, "Proxy");
	int rule = L->v[L_STACK_FUNCTION_RECEIVER];
	if (rule && v8_is_jsfunction(h, r)) {
		const struct v8_function *rf = function_of_jsfunction(cn->funcs, h, r);
		uint64_t map = v8_map_of(h, r);
		uint8_t bf = 0, bf2;
		uint32_t bf3;
		bool applies = rule == 1 ? rf && function_flag(h->L, rf, L_SFI_CLASS_CTOR_BIT)
					 : map && v8_map_bits(h, map, &bf, &bf2, &bf3) &&
						   ((bf >> L->v[L_BF_IS_CONSTRUCTOR_BIT]) & 1);
		if (applies && rf && debug_name(rf))
			return debug_name(rf);
	}
	return constructor_name(cn, h, r);
}

struct method_lookup {
	struct callsite_names *cn;
	const struct v8_heap *h;
	uint64_t function;
	struct strview name; /* the property name to try first */
	bool found, matches;
	uint64_t inferred;  /* InferMethodName: 0 = none yet, 1 = ambiguous, else the key */
};

static bool holds_function(const struct v8_heap *h, const struct v8_property *p, uint64_t fn)
{
	if (!p->accessor)
		return p->value == fn;
	uint64_t g, s;
	return v8_is(h, p->value, L_T_ACCESSOR_PAIR) &&
	       v8_field(h, p->value, h->L->v[L_ACCESSOR_GETTER], &g) &&
	       v8_field(h, p->value, h->L->v[L_ACCESSOR_SETTER], &s) && (g == fn || s == fn);
}

static bool find_named(void *vctx, const struct v8_property *p)
{
	struct method_lookup *m = vctx;
	if (!v8_is_string(m->h, p->key) || !v8_string_equals_n(m->h, p->key, m->name.s, m->name.len))
		return true;
	m->found = true;
	m->matches = holds_function(m->h, p, m->function);
	return false;
}

static bool infer_method(void *vctx, const struct v8_property *p)
{
	struct method_lookup *m = vctx;
	if (p->dont_enum || !v8_is_string(m->h, p->key) || !holds_function(m->h, p, m->function))
		return true;
	if (m->inferred != p->key)
		m->inferred = m->inferred ? 1 : p->key;
	return true;
}

static bool is_plain_object(const struct v8_heap *h, uint64_t o)
{
	uint64_t map = v8_map_of(h, o);
	uint8_t bf, bf2;
	uint32_t bf3;
	/* JSObjects only; access-checked objects (bit_field bit 5) end the walk in V8 too */
	return map && !v8_is(h, o, L_T_JS_PROXY) && v8_map_bits(h, map, &bf, &bf2, &bf3) &&
	       !((bf >> 5) & 1);
}

/* CallSiteInfo::GetMethodName: the function's own name (or the last part of its inferred name)
 * when the receiver's chain holds the function under it, else the one enumerable property along
 * the chain that holds it. */
static uint32_t method_name(struct callsite_names *cn, const struct v8_heap *h, const struct callsite *cs)
{
	uint64_t r = cs->receiver;
	if (!cs->function || primitive_type(h, r) || is_toplevel(h, r))
		return 0;
	struct strview name = str(cn, cs->fn->shared_name_id);
	if (view_starts(name, "get ") || view_starts(name, "set ")) {
		name.s += 4, name.len -= 4;
	} else if (!name.len) {
		name = str(cn, cs->fn->inferred_id);
		const char *dot = memrchr(name.s, '.', name.len);
		if (dot) {
			name.len -= (size_t)(dot + 1 - name.s);
			name.s = dot + 1;
		}
	}
	struct method_lookup m = {.cn = cn, .h = h, .function = cs->function, .name = name};
	uint64_t cur = r;
	for (int i = 0; name.len && cur && i < MAX_CHAIN && is_plain_object(h, cur); i++) {
		if (!v8_own_properties(h, cur, find_named, &m) || m.found)
			break;
		cur = v8_map_prototype(h, v8_map_of(h, cur));
	}
	if (m.found && m.matches)
		return intern_n(cn->strings, name.s, name.len);
	cur = r;
	for (int i = 0; cur && i < MAX_CHAIN && is_plain_object(h, cur); i++) {
		if (!v8_own_properties(h, cur, infer_method, &m))
			break;
		cur = v8_map_prototype(h, v8_map_of(h, cur));
	}
	return m.inferred > 1 ? intern_v8_string(cn, h, m.inferred) : 0;
}

bool callsite_is_identifier(const char *s, size_t len)
{
	if (!len || (*s >= '0' && *s <= '9'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '$' || c == '_' || c >= 0x80;
		if (!ok)
			return false;
	}
	return true;
}

bool callsite_ends_with_method(const char *fn, size_t a, const char *method, size_t b, bool space_too)
{
	if (a == b && memcmp(fn, method, a) == 0)
		return true;
	if (a <= b || memcmp(fn + a - b, method, b) != 0)
		return false;
	char sep = fn[a - b - 1];
	return sep == '.' || (space_too && sep == ' ');
}

/* AppendMethodCall */
static void method_call(struct callsite_names *cn, const struct v8_heap *h, const struct callsite *cs,
			uint32_t fname, struct strbuf *out)
{
	const struct v8_layout *L = h->L;
	struct strview type = str(cn, type_name(cn, h, cs->receiver));
	struct strview method = str(cn, method_name(cn, h, cs));
	struct strview fn = str(cn, fname);
	if (!fn.len) {
		if (type.len)
			add_view(out, "", type), sb_addc(out, '.');
		if (method.len)
			add_view(out, "", method);
		else
			sb_add(out, "<anonymous>");
		return;
	}
	bool same_type = fn.len == type.len && memcmp(fn.s, type.s, fn.len) == 0;
	bool starts_with_type = fn.len >= type.len && memcmp(fn.s, type.s, type.len) == 0;
	bool prefix = L->v[L_STACK_TYPE_RULE] ? callsite_is_identifier(fn.s, fn.len) && !same_type
					      : !starts_with_type;
	if (type.len && prefix)
		add_view(out, "", type), sb_addc(out, '.');
	add_view(out, "", fn);
	if (method.len && !callsite_ends_with_method(fn.s, fn.len, method.s, method.len,
						     L->v[L_STACK_METHOD_SPACE] != 0)) {
		add_view(out, " [as ", method);
		sb_addc(out, ']');
	}
}

static uint32_t compose(struct callsite_names *cn, const struct v8_heap *h, const struct callsite *cs)
{
	uint32_t fname = function_name(cn, h, cs->fn);
	struct strbuf b;
	sb_init(&b);
	if (cs->async)
		sb_add(&b, "async ");
	bool toplevel = !cs->receiver_known || is_toplevel(h, cs->receiver);
	if (!toplevel && !cs->constructor)
		method_call(cn, h, cs, fname, &b);
	else if (fname)
		add_view(&b, cs->constructor ? "new " : "", str(cn, fname));
	else
		sb_add(&b, cs->constructor ? "new <anonymous>" : "(anonymous)");
	uint32_t id = intern_n(cn->strings, b.s, b.len);
	sb_free(&b);
	return id;
}

uint32_t callsite_name(struct callsite_names *cn, const struct v8_heap *h, const struct callsite *cs)
{
	if (!cs->receiver_known || !cs->function)
		return compose(cn, h, cs);
	/* cached per (receiver map, function's SharedFunctionInfo, flags): the method lookups read
	 * many objects. The key is compared with memcmp: its padding must be zero too (it was left
	 * to the stack, and the cache then missed on most lookups of an optimized build). An
	 * Oddball receiver (undefined for most calls: a root object, never moved) has no
	 * properties: the name depends on which Oddball it is; its map is a root map, its type
	 * known without a read. The function object is not in the key: closures of one function
	 * made anew (measured on tsc: 9 misses in 10 for calls on undefined; for a host object made
	 * anew with a new closure per compile, 2 in 3 late in a run, ~10 reads each) share one
	 * entry. The name could differ only where the property the method is found under holds
	 * another closure of the same function than the one running ("[as x]" would be left out). */
	struct callsite_key k;
	memset(&k, 0, sizeof(k));
	bool oddball = v8_is_heap_object(cs->receiver) && v8_is(h, cs->receiver, L_T_ODDBALL);
	k.map = oddball ? cs->receiver : v8_is_heap_object(cs->receiver) ? v8_map_of(h, cs->receiver) : 1;
	k.sfi = cs->fn->sfi;
	k.flags = (uint32_t)cs->constructor | (uint32_t)cs->async << 1 | (uint32_t)oddball << 2;
	uint64_t hash = u64_hash(k.map ^ u64_hash(k.sfi + k.flags)) | 1;
	uint64_t idx;
	if (u64map_get(&cn->cache, hash, &idx) && !memcmp(&cn->keys[idx - 1], &k, sizeof(k))) {
		cn->hits++;
		return cn->vals[idx - 1];
	}
	cn->misses++;
	uint32_t id = compose(cn, h, cs);
	if (cn->n >= NAME_CACHE_MAX) {
		cn->n = 0;
		u64map_clear(&cn->cache);
	}
	XGROW(cn->keys, cn->cap, cn->n + 1);
	cn->vals = xrealloc(cn->vals, cn->cap * sizeof(*cn->vals));
	cn->keys[cn->n] = k;
	cn->vals[cn->n] = id;
	u64map_put(&cn->cache, hash, ++cn->n);
	return id;
}

bool callsite_hidden(const struct v8_heap *h, const struct v8_function *fn)
{
	return !fn->has_script && !function_flag(h->L, fn, L_SFI_NATIVE_BIT);
}

/* Script::GetEvalPosition: a negative eval_from_position is the bytecode offset of the eval call
 * in eval_from_shared, not yet translated. */
static int64_t eval_position(struct callsite_names *cn, const struct v8_heap *h, uint64_t script,
			     uint64_t shared)
{
	uint64_t raw;
	if (!v8_field(h, script, h->L->v[L_SCRIPT_EVAL_FROM_POSITION], &raw) || !v8_is_smi(raw))
		return -1;
	int64_t p = v8_smi_value(raw);
	if (p >= 0)
		return p;
	uint64_t bca = sfi_bytecode_array(h, shared);
	return bca ? positions_bytecode_offset_position(cn->positions, h, bca, -p) : -1;
}

/* FormatEvalOrigin */
static void eval_origin(struct callsite_names *cn, const struct v8_heap *h, uint64_t script,
			int depth, struct strbuf *out)
{
	uint64_t shared = eval_from_shared(cn, h, script);
	sb_add(out, "eval at ");
	if (!shared) {
		sb_add(out, "<anonymous>");
		return;
	}
	const struct v8_function *ef = function_of_sfi(cn->funcs, h, shared);
	if (ef && debug_name(ef))
		add_view(out, "", str(cn, debug_name(ef)));
	else
		sb_add(out, "<anonymous>");
	if (!ef || !ef->has_script)
		return;
	sb_add(out, " (");
	if (eval_from_shared(cn, h, ef->script) && depth < MAX_EVAL_DEPTH) {
		eval_origin(cn, h, ef->script, depth + 1, out);
	} else {
		struct v8_script *s = script_get(cn->scripts, h, ef->script);
		uint64_t name = 0;
		if (s && v8_field(h, ef->script, h->L->v[L_SCRIPT_NAME], &name) && v8_is_string(h, name)) {
			add_view(out, "", str(cn, s->name_id));
			int32_t line, col;
			int64_t pos = eval_position(cn, h, script, shared);
			if (pos >= 0 && script_position(cn->scripts, h, s, pos, &line, &col))
				sb_printf(out, ":%d:%d", line, col);
		} else {
			sb_add(out, "unknown source");
		}
	}
	sb_addc(out, ')');
}

uint32_t callsite_file(struct callsite_names *cn, const struct v8_heap *h, const struct v8_function *fn)
{
	if (!fn->has_script)
		return 0;
	size_t name_len = str(cn, fn->file_id).len;
	if (name_len || !eval_from_shared(cn, h, fn->script))
		return name_len ? fn->file_id : intern_str(cn->strings, "<anonymous>");
	struct strbuf b;
	sb_init(&b);
	eval_origin(cn, h, fn->script, 0, &b);
	sb_add(&b, ", <anonymous>");
	uint32_t id = intern_n(cn->strings, b.s, b.len);
	sb_free(&b);
	return id;
}
