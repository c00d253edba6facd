/* fuzz_clickhouse.c — libFuzzer harness: everything --export and report read from outside
 * (export/): the first byte picks the decoder — a spool file, report's RowBinary stack counts, a
 * package.json, a process's environment block and command line, a folded frame's text (parsed
 * and written again), a ClickHouse address, a --where filter and a time, the tables' column list,
 * report's RowBinary stacks answer added to a profile (stacks asked for: hashes 0 to 15). */
#include <stdlib.h>
#include <string.h>

#include "../export/ch_check.h"
#include "../export/ch_report.h"
#include "../export/ch_sql.h"
#include "../export/ch_url.h"
#include "../export/frame_parse.h"
#include "../export/service_name.h"
#include "../export/spool.h"
#include "../profile/frame_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char *z = malloc(len + 1); /* the same bytes NUL-terminated, for the C-string parsers */
	memcpy(z, text, len);
	z[len] = 0;
	struct strbuf out, why;
	sb_init(&out);
	sb_init(&why);
	switch (data[0] % 9) {
	case 0: {
		size_t off[SPOOL_BODIES], lens[SPOOL_BODIES];
		if (spool_parse(text, len, off, lens))
			for (int i = 0; i < SPOOL_BODIES; i++)
				if (off[i] > len || lens[i] > len - off[i])
					abort();
		break;
	}
	case 1: {
		struct stack_count *sc;
		size_t n;
		ch_decode_counts(text, len, &sc, &n, &why);
		free(sc);
		break;
	}
	case 2:
		package_json_name(text, len, &out);
		break;
	case 3:
		environ_value(text, len, "V8WALK_SERVICE", &out);
		main_script_of(text, len, &out);
		break;
	case 4: {
		struct intern strings;
		intern_init(&strings);
		intern_str(&strings, "");
		struct frame f;
		frame_parse(&strings, text, len, &f);
		frame_text(&strings, &f, true, &out);
		intern_free(&strings);
		break;
	}
	case 5: {
		struct ch_url u;
		char msg[256];
		ch_url_parse(z, &u, msg, sizeof(msg));
		break;
	}
	case 6: {
		int64_t t;
		ch_where_condition(&out, z, &why);
		ch_parse_time(z, 1700000000, &t);
		break;
	}
	case 7:
		ch_columns_match(text, len, "db.t_samples", &ch_samples_table, &why);
		ch_columns_match(text, len, "db.t_stacks", &ch_stacks_table, &why);
		ch_columns_match(text, len, "db.t_stalls", &ch_stalls_table, &why);
		break;
	case 8: {
		struct intern strings;
		intern_init(&strings);
		intern_str(&strings, "");
		struct profile p;
		profile_init(&p, &strings, LINES_CURRENT);
		struct stack_count counts[16];
		for (int i = 0; i < 16; i++)
			counts[i] = (struct stack_count){.hash = (uint64_t)i, .count = (uint64_t)(i % 3 + 1)};
		size_t missing;
		ch_report_add_stacks(&p, counts, 16, text, len, "fuzz", &missing, &why);
		profile_free(&p);
		intern_free(&strings);
		break;
	}
	}
	sb_free(&out);
	sb_free(&why);
	free(z);
	return 0;
}
