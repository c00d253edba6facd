/* test_metadata.c — v8dbg_* lookup (type-suffix agnostic, alternatives, missing vs zero) and the
 * layout resolver (metadata first, version-keyed fallbacks after). */
#include <criterion/criterion.h>

#include "../../v8/layout.h"
#include "../../v8/metadata.h"

static struct v8_metadata md;

static void load(const char *const *n, const int32_t *v, size_t k)
{
	v8md_from_pairs(&md, n, v, k);
}

static void teardown(void)
{
	v8md_free(&md);
}

TestSuite(metadata, .fini = teardown);

Test(metadata, field_lookup_ignores_the_type_suffix)
{
	const char *n[] = {"v8dbg_class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_",
			   "v8dbg_class_JSFunction__context__Context",
			   "v8dbg_class_Map__instance_descriptors_offset",
			   "v8dbg_class_SharedFunctionInfo__script_or_debug_info_extra__Object"};
	const int32_t v[] = {16, 40, 40, 99};
	load(n, v, 4);
	int32_t x;
	const char *m;
	cr_assert(v8md_lookup(&md, "class_SharedFunctionInfo__name_or_scope_info", &x, &m));
	cr_assert_eq(x, 16);
	cr_assert_str_eq(m, "class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_");
	cr_assert(v8md_lookup(&md, "class_JSFunction__context", &x, NULL) && x == 40);
	/* the untyped spelling */
	cr_assert(v8md_lookup(&md, "class_Map__instance_descriptors_offset", &x, NULL) && x == 40);
	/* a longer field name is a different field */
	cr_assert_not(v8md_lookup(&md, "class_SharedFunctionInfo__script_or_debug_info", &x, NULL));
}

Test(metadata, type_lookup_by_instance_type_name)
{
	const char *n[] = {"type_JSFunction__JS_FUNCTION_TYPE", "type_SeqOneByteString__SEQ_ONE_BYTE_STRING_TYPE"};
	const int32_t v[] = {2066, 40};
	load(n, v, 2);
	int32_t x;
	cr_assert(v8md_lookup(&md, "type_JS_FUNCTION_TYPE", &x, NULL) && x == 2066);
	cr_assert(v8md_lookup(&md, "type_SEQ_ONE_BYTE_STRING_TYPE", &x, NULL) && x == 40);
	cr_assert_not(v8md_lookup(&md, "type_ONE_BYTE_STRING_TYPE", &x, NULL));
}

Test(metadata, missing_is_not_zero)
{
	const char *n[] = {"SmiTag", "off_fp_constant_pool"};
	const int32_t v[] = {0, 0};
	load(n, v, 2);
	int32_t x = 7;
	cr_assert(v8md_lookup(&md, "SmiTag", &x, NULL) && x == 0);
	cr_assert_not(v8md_lookup(&md, "SmiTagMask", &x, NULL));
}

Test(metadata, duplicates_from_both_symbol_tables_collapse)
{
	const char *n[] = {"v8dbg_TaggedSize", "TaggedSize", "v8dbg_SmiShiftSize"};
	const int32_t v[] = {8, 8, 31};
	load(n, v, 3);
	cr_assert_eq(md.n, 2);
}

/* Layout resolution over Node-16-like metadata: no bytecode frame slots, raw_code, no Script.source */
Test(metadata, layout_metadata_alternatives_and_fallbacks)
{
	const char *n[] = {"off_fp_function", "off_fp_context", "class_JSFunction__shared__SharedFunctionInfo",
			   "class_JSFunction__raw_code__CodeT", "class_Script__name__Object",
			   "class_SharedFunctionInfo__script_or_debug_info__HeapObject",
			   "type_JSFunction__JS_FUNCTION_TYPE", "frametype_OptimizedFrame"};
	const int32_t v[] = {-16, -8, 24, 48, 16, 32, 1059, 13};
	load(n, v, 8);
	struct v8_layout L;
	struct v8_version ver = {9, 4, 146, 26};
	v8_layout_resolve(&L, &md, &ver);
	cr_assert_eq(L.src[L_JSFUNC_CODE], SRC_METADATA);
	cr_assert_eq(L.v[L_JSFUNC_CODE], 48);
	cr_assert_eq(L.src[L_FP_BYTECODE_ARRAY], SRC_FALLBACK);
	cr_assert_eq(L.v[L_FP_BYTECODE_ARRAY], -32);
	cr_assert_eq(L.v[L_FP_BYTECODE_OFFSET], -40);
	cr_assert_eq(L.v[L_SCRIPT_SOURCE], 8);
	cr_assert_eq(L.v[L_SFI_SCRIPT], 32);
	cr_assert_eq(L.v[L_T_JSFUNC_LAST], 1059 + 16);
	cr_assert_eq(L.v[L_FT_TURBOFAN], 13, "OptimizedFrame is the TurboFan frame on V8 9/10");
	cr_assert_eq(L.v[L_SCOPEINFO_POS_IN_HEADER], 0);
	cr_assert_str_eq(v8_frametype_name(&L, 13), "OptimizedFrame");
	cr_assert_eq(L.src[L_T_SFI], SRC_MISSING);
	v8_layout_free(&L);
}

Test(metadata, fallbacks_follow_the_version)
{
	const char *n[] = {"class_JSFunction__shared__SharedFunctionInfo", "off_fp_function",
			   "frametype_TurbofanJSFrame", "frametype_TurbofanFrame"};
	const int32_t v[] = {32, -16, 17, 16};
	load(n, v, 4);
	struct v8_layout L;
	struct v8_version node24 = {13, 6, 233, 17}, node20 = {11, 3, 244, 8};
	v8_layout_resolve(&L, &md, &node24);
	cr_assert_eq(L.v[L_JSFUNC_CODE], 24, "shared - 8 on V8 >= 11.7.368");
	cr_assert_eq(L.v[L_LEAPTIERING], 1);
	cr_assert_eq(L.v[L_SCOPEINFO_POS_IN_HEADER], 1);
	cr_assert_eq(L.v[L_FT_TURBOFAN], 17, "the newest spelling wins");
	v8_layout_free(&L);
	v8_layout_resolve(&L, &md, &node20);
	cr_assert_eq(L.v[L_JSFUNC_CODE], 56, "shared + 24 before 11.7.368");
	cr_assert_eq(L.v[L_LEAPTIERING], 0);
	v8_layout_free(&L);
}

Test(metadata, required_items_are_reported)
{
	const char *n[] = {"SmiShiftSize"};
	const int32_t v[] = {31};
	load(n, v, 1);
	struct v8_layout L;
	struct v8_version ver = {12, 4, 254, 21};
	v8_layout_resolve(&L, &md, &ver);
	enum v8_item missing[32];
	size_t k = v8_layout_missing_required(&L, missing, 32);
	cr_assert_gt(k, 5);
	v8_layout_free(&L);
}

Test(metadata, version_parsing_and_node_lines)
{
	struct v8_version v;
	cr_assert(v8_version_parse("12.4.254.21", &v));
	cr_assert_eq(v.build, 254);
	cr_assert_eq(node_line_for_v8(&v), 22);
	cr_assert(v8_version_parse("13.6", &v));
	cr_assert_eq(node_line_for_v8(&v), 24);
	cr_assert_not(v8_version_parse("x", &v));
	cr_assert(V8V(12, 4, 254) < V8V(12, 5, 0));
}
