/* test_formats.c — the format table (names, -o extensions) and the protobuf encoding pprof is
 * written with (varints, length-delimited fields, packed repeated fields). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../profile/pbuf.h"
#include "../../profile/writers.h"
#include "../../util/json.h"
#include "../../util/utf8.h"

Test(formats, extensions_pick_the_writer)
{
	cr_assert_str_eq(profile_writer_for_path("a/b.txt")->name, "tree");
	cr_assert_str_eq(profile_writer_for_path("x.folded")->name, "folded");
	cr_assert_str_eq(profile_writer_for_path("x.collapsed")->name, "folded");
	cr_assert_str_eq(profile_writer_for_path("x.SVG")->name, "svg");
	cr_assert_str_eq(profile_writer_for_path("x.speedscope.json")->name, "speedscope");
	cr_assert_str_eq(profile_writer_for_path("x.cpuprofile")->name, "cpuprofile");
	cr_assert_str_eq(profile_writer_for_path("x.pb.gz")->name, "pprof");
	cr_assert_str_eq(profile_writer_for_path("x.pprof")->name, "pprof");
	cr_assert_null(profile_writer_for_path("x.json"));
	cr_assert_null(profile_writer_for_path(".svg"), "a bare extension is no file name");
	cr_assert_null(profile_writer_for_path("profile"));
	cr_assert_null(profile_writer_named("flame"));
	size_t n;
	const struct profile_writer *w = profile_writers(&n);
	cr_assert_eq(n, 6);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(profile_writer_named(w[i].name), &w[i]);
}

Test(formats, writer_names_for_messages)
{
	struct strbuf s;
	sb_init(&s);
	profile_writer_names(&s);
	cr_assert_str_eq(s.s, "tree, folded, svg, speedscope, cpuprofile, pprof");
	sb_free(&s);
}

Test(formats, protobuf_encoding)
{
	struct pbuf pb, sub;
	pb_init(&pb);
	pb_init(&sub);
	pb_uint(&pb, 1, 150); /* the protobuf documentation's example: 08 96 01 */
	cr_assert_eq(pb.n, 3);
	cr_assert_eq(memcmp(pb.b, "\x08\x96\x01", 3), 0);
	pb_reset(&pb);
	pb_bytes(&pb, 2, "testing", 7); /* 12 07 74 65 73 74 69 6e 67 */
	cr_assert_eq(pb.n, 9);
	cr_assert_eq(memcmp(pb.b, "\x12\x07testing", 9), 0);
	pb_reset(&pb);
	uint64_t v[3] = {3, 270, 86942}; /* packed: 22 06 03 8e 02 9e a7 05 */
	pb_packed(&pb, 4, v, 3);
	cr_assert_eq(pb.n, 8);
	cr_assert_eq(memcmp(pb.b, "\x22\x06\x03\x8e\x02\x9e\xa7\x05", 8), 0);
	pb_reset(&pb);
	pb_uint(&sub, 1, UINT64_MAX); /* ten bytes of varint */
	cr_assert_eq(sub.n, 11);
	pb_msg(&pb, 3, &sub);
	cr_assert_eq(pb.n, 13);
	cr_assert_eq(pb.b[0], 0x1a);
	cr_assert_eq(pb.b[1], 11);
	cr_assert_eq(pb.b[12], 0x01);
	pb_free(&pb);
	pb_free(&sub);
}

/* The aggregation keeps every sample in time order: its stack's leaf and the µs since the one
 * before; root labels come from the thread table, not from the samplers. */
Test(formats, samples_keep_their_time_and_thread)
{
	struct intern strings;
	intern_init(&strings);
	struct profile p;
	profile_init(&p, &strings, LINES_CURRENT);
	struct frame f;
	memset(&f, 0, sizeof(f));
	f.kind = FK_NATIVE;
	f.name = intern_str(&strings, "work");
	uint32_t node = intern_str(&strings, "node"), main_role = intern_str(&strings, "main"),
		 worker = intern_str(&strings, "worker");
	struct sample a = {.time_ns = 5000000, .pid = 10, .tid = 10, .process_name = node,
			   .thread_role = main_role, .frames = &f, .n = 1};
	struct sample b = a;
	b.time_ns = 5010000;
	b.tid = 11;
	b.thread_role = worker;
	struct sample c = a;
	c.time_ns = 5030000;
	profile_add(&p, &a);
	profile_add(&p, &b);
	profile_add(&p, &c);
	cr_assert_eq(p.nrecs, 3);
	cr_assert_eq(p.recs[0].dt_us, 0);
	cr_assert_eq(p.recs[1].dt_us, 10);
	cr_assert_eq(p.recs[2].dt_us, 20);
	cr_assert_eq(p.recs[0].node, p.recs[2].node, "one stack, one leaf");
	cr_assert_neq(p.recs[0].node, p.recs[1].node, "another thread, another leaf");
	cr_assert_eq(p.nthreads, 2);
	cr_assert_eq(profile_find_thread(&p, NULL), 0);
	cr_assert_eq(profile_find_thread(&p, "worker"), 1);
	cr_assert_eq(profile_find_thread(&p, "11"), 1);
	cr_assert_eq(profile_find_thread(&p, "12"), -1);
	struct strbuf s;
	sb_init(&s);
	uint32_t thread_node = p.nodes[p.recs[1].node].parent;
	profile_node_text(&p, thread_node, false, &s);
	cr_assert_str_eq(s.s, "worker (11)");
	sb_reset(&s);
	profile_node_text(&p, p.nodes[thread_node].parent, false, &s);
	cr_assert_str_eq(s.s, "node (10)");
	sb_free(&s);
	profile_free(&p);
	intern_free(&strings);
}

/* Names from a target are bytes: the JSON and XML writers keep UTF-8 and replace the rest. */
Test(formats, utf8_sequences)
{
	cr_assert_eq(utf8_seq_len("a"), 1);
	cr_assert_eq(utf8_seq_len("\xc3\xa9"), 2);          /* é */
	cr_assert_eq(utf8_seq_len("\xe2\x82\xac"), 3);      /* € */
	cr_assert_eq(utf8_seq_len("\xf0\x9f\x94\xac"), 4);  /* 🔬 */
	cr_assert_eq(utf8_seq_len("\xe9t"), 0, "Latin-1 byte");
	cr_assert_eq(utf8_seq_len("\xc0\x80"), 0, "overlong");
	cr_assert_eq(utf8_seq_len("\xed\xa0\x80"), 0, "surrogate");
	cr_assert_eq(utf8_seq_len("\xe2\x82"), 0, "cut short by the NUL");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_string(f, "caf\xc3\xa9 \xe9\"\n");
	fclose(f);
	cr_assert_str_eq(buf, "\"caf\xc3\xa9 \\ufffd\\\"\\n\"");
	free(buf);
}
