/* export_options.c — parsing --export, --label, --export-credentials, --spool, --spool-max-mb and
 * --create-schema (export_options.h). */
#include "export_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text_escape.h"

enum { LABEL_KEY_MAX = EXPORT_LABEL_KEY_MAX, LABEL_VALUE_MAX = 256 };

/* A label key: [A-Za-z_][A-Za-z0-9_.-]* — it is used in report's --where too. */
static bool label_key_ok(const char *s, size_t len)
{
	if (!len || len > LABEL_KEY_MAX || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
					     s[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

static bool label_option(const char *arg, struct export_options *x, struct strbuf *why)
{
	const char *eq = strchr(arg, '=');
	size_t vlen = eq ? strlen(eq + 1) : 0;
	if (!eq || !label_key_ok(arg, (size_t)(eq - arg))) {
		sb_printf_text(why, "--label needs KEY=VALUE with KEY of letters, digits, '_', '.', '-', "
			       "not '%s'", arg);
		return false;
	}
	for (const char *p = eq + 1; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			vlen = LABEL_VALUE_MAX + 1;
	if (!vlen || vlen > LABEL_VALUE_MAX) {
		sb_printf_text(why, "--label %.*s: the value must be 1 to %d printable bytes",
			       (int)(eq - arg), arg, LABEL_VALUE_MAX);
		return false;
	}
	x->any_label = true;
	if ((size_t)(eq - arg) == 7 && !strncmp(arg, "service", 7)) {
		x->service = eq + 1;
		return true;
	}
	static const char *columns[] = {"host", "pid", "tid", "process", "thread", "bucket"};
	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		if (strlen(columns[i]) == (size_t)(eq - arg) && !strncmp(arg, columns[i], (size_t)(eq - arg))) {
			sb_printf(why, "--label %s: v8walk fills that column itself", columns[i]);
			return false;
		}
	if ((size_t)(eq - arg) == 9 && !strncmp(arg, "container", 9)) {
		sb_add(why, "--label container: v8walk fills that label itself, from each process's "
			    "cgroup");
		return false;
	}
	if (x->nlabels == EXPORT_LABELS_MAX) {
		sb_printf(why, "at most %d --label options besides service", EXPORT_LABELS_MAX);
		return false;
	}
	/* the key is kept NUL-terminated in a copy of its own (label_key_ok bounded its length): the
	 * argument itself stays as given */
	char *key = x->label_keys[x->nlabels];
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = 0;
	x->labels[x->nlabels++] = (struct export_label){.key = key, .value = eq + 1};
	return true;
}

bool export_option(int id, const char *arg, struct export_options *x, struct strbuf *why)
{
	char reason[256];
	switch (id) {
	case XO_EXPORT:
		if (!ch_url_parse(arg, &x->url, reason, sizeof(reason))) {
			sb_printf_text(why, "--export %s: %s", arg, reason);
			return false;
		}
		x->url_text = arg;
		return true;
	case XO_LABEL:
		return label_option(arg, x, why);
	case XO_CREDENTIALS:
		x->credentials = arg;
		return true;
	case XO_SPOOL:
		if (arg[0] == 0) {
			sb_add(why, "--spool needs a directory");
			return false;
		}
		x->spool_dir = arg;
		return true;
	case XO_SPOOL_MAX_MB: {
		char *end;
		errno = 0;
		double v = strtod(arg, &end);
		if (errno || end == arg || *end || !(v >= 0.001 && v <= 1e6)) {
			sb_printf_text(why, "--spool-max-mb needs a size in MiB from 0.001 to 1000000, not '%s'",
				       arg);
			return false;
		}
		x->spool_max_mb = v;
		return true;
	}
	case XO_CREATE_SCHEMA:
		x->create_schema = true;
		return true;
	}
	return false;
}

const char *export_options_conflict(const struct export_options *x)
{
	if (x->url_text)
		return NULL;
	if (x->any_label || x->credentials || x->spool_dir || x->spool_max_mb > 0 || x->create_schema)
		return "--label, --export-credentials, --spool, --spool-max-mb and --create-schema go "
		       "with --export";
	return NULL;
}
