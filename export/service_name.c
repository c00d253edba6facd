/* service_name.c — a process's service from its environment, package.json or script name
 * (service_name.h). */
#include "service_name.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/safe_open.h"

enum { PROC_READ_MAX = 1 << 20, PACKAGE_JSON_MAX = 1 << 20, DIR_LEVELS_MAX = 64 };

static bool name_ok(const char *s, size_t len)
{
	if (len == 0 || len > SERVICE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

bool environ_value(const char *block, size_t len, const char *name, struct strbuf *out)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < len;) {
		const char *e = block + i;
		const char *end = memchr(e, 0, len - i);
		size_t elen = end ? (size_t)(end - e) : len - i;
		if (elen > nl && !memcmp(e, name, nl) && e[nl] == '=') {
			if (!name_ok(e + nl + 1, elen - nl - 1))
				return false;
			sb_reset(out);
			sb_addn(out, e + nl + 1, elen - nl - 1);
			return true;
		}
		i += elen + 1;
	}
	return false;
}

/* Is the counted argument a[0..alen) exactly `opt`? */
static bool arg_is(const char *a, size_t alen, const char *opt)
{
	return alen == strlen(opt) && !memcmp(a, opt, alen);
}

bool main_script_of(const char *argv, size_t len, struct strbuf *out)
{
	size_t i = strnlen(argv, len) + 1; /* past argv[0] */
	while (i < len) {
		const char *a = argv + i;
		size_t alen = strnlen(a, len - i);
		if (arg_is(a, alen, "-e") || arg_is(a, alen, "--eval") || arg_is(a, alen, "-p") ||
		    arg_is(a, alen, "--print"))
			return false;
		if (alen && a[0] != '-') {
			sb_reset(out);
			sb_addn(out, a, alen);
			return true;
		}
		/* options that take the next argument as their value */
		bool takes_value = arg_is(a, alen, "-r") || arg_is(a, alen, "--require") ||
				   arg_is(a, alen, "--import") || arg_is(a, alen, "--loader");
		i += alen + 1;
		if (takes_value && i < len)
			i += strnlen(argv + i, len - i) + 1;
	}
	return false;
}

/* Skip a JSON string starting at text[i] == '"'; returns the index after its closing quote (len
 * + 1 when it is not closed). *plain: it held no escapes. */
static size_t skip_string(const char *text, size_t len, size_t i, bool *plain)
{
	*plain = true;
	for (i++; i < len; i++) {
		if (text[i] == '\\') {
			*plain = false;
			i++;
		} else if (text[i] == '"') {
			return i + 1;
		}
	}
	return len + 1;
}

bool package_json_name(const char *text, size_t len, struct strbuf *out)
{
	int depth = 0;
	bool expect_key = false;
	for (size_t i = 0; i < len;) {
		char c = text[i];
		if (c == '{' || c == '[') {
			depth++;
			expect_key = c == '{' && depth == 1;
			i++;
		} else if (c == '}' || c == ']') {
			depth--;
			i++;
		} else if (c == ',') {
			expect_key = depth == 1;
			i++;
		} else if (c == '"') {
			bool plain;
			size_t end = skip_string(text, len, i, &plain);
			bool is_name_key = expect_key && end <= len && end - i == 6 &&
					   !memcmp(text + i, "\"name\"", 6);
			expect_key = false;
			i = end;
			if (!is_name_key)
				continue;
			while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
					   text[i] == '\r' || text[i] == ':'))
				i++;
			if (i >= len || text[i] != '"')
				return false;
			size_t vend = skip_string(text, len, i, &plain);
			if (!plain || vend > len || vend - i < 2 || !name_ok(text + i + 1, vend - i - 2))
				return false;
			sb_reset(out);
			sb_addn(out, text + i + 1, vend - i - 2);
			return true;
		} else {
			i++;
		}
	}
	return false;
}

/* Read at most max bytes of an open descriptor (closed here). */
static bool read_fd(int fd, size_t max, struct strbuf *out)
{
	if (fd < 0)
		return false;
	sb_reset(out);
	char *dst = sb_room(out, max);
	size_t got = 0;
	ssize_t r;
	while (got < max && (r = read(fd, dst + got, max - got)) > 0)
		got += (size_t)r;
	close(fd);
	out->len = got;
	out->s[got] = 0;
	return true;
}

static bool read_proc(pid_t pid, const char *what, struct strbuf *out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	return read_fd(open(path, O_RDONLY | O_CLOEXEC), PROC_READ_MAX, out);
}

/* The nearest package.json's name above `script` (an absolute path inside the process's root). */
static bool package_name_above(pid_t pid, const char *script, struct strbuf *out)
{
	char root[64], dir[4096];
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	if (strlen(script) >= sizeof(dir) - 16)
		return false;
	snprintf(dir, sizeof(dir), "%s", script);
	struct strbuf text, path;
	sb_init(&text);
	sb_init(&path);
	bool found = false;
	for (int level = 0; level < DIR_LEVELS_MAX && !found; level++) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = 0;
		sb_reset(&path);
		sb_printf(&path, "%s/package.json", dir);
		struct file_expect ex = {.root = root, .max_size = PACKAGE_JSON_MAX};
		struct stat st;
		const char *err;
		int fd = safe_open(path.s, &ex, &st, &err);
		if (fd >= 0 && read_fd(fd, PACKAGE_JSON_MAX, &text))
			found = package_json_name(text.s, text.len, out);
		if (fd >= 0)
			break; /* the nearest package.json decides, with a name or without */
	}
	sb_free(&text);
	sb_free(&path);
	return found;
}

/* service=auto: package.json's name, else the script's base name without its extension. */
static bool auto_name(pid_t pid, struct strbuf *out)
{
	struct strbuf argv, script;
	sb_init(&argv);
	sb_init(&script);
	bool ok = read_proc(pid, "cmdline", &argv) && main_script_of(argv.s, argv.len, &script);
	if (ok && script.s[0] != '/') {
		char link[64], cwd[4096];
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
		ssize_t n = readlink(link, cwd, sizeof(cwd) - 1);
		ok = n > 0;
		if (ok) {
			cwd[n] = 0;
			struct strbuf abs;
			sb_init(&abs);
			sb_printf(&abs, "%s/%s", cwd, script.s);
			sb_free(&script);
			script = abs;
		}
	}
	if (ok && !package_name_above(pid, script.s, out)) {
		const char *base = strrchr(script.s, '/');
		base = base ? base + 1 : script.s;
		size_t blen = strlen(base);
		static const char *exts[] = {".js", ".mjs", ".cjs", ".ts"};
		for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
			size_t el = strlen(exts[i]);
			if (blen > el && !strcmp(base + blen - el, exts[i])) {
				blen -= el;
				break;
			}
		}
		ok = name_ok(base, blen);
		if (ok) {
			sb_reset(out);
			sb_addn(out, base, blen);
		}
	}
	sb_free(&argv);
	sb_free(&script);
	return ok;
}

void service_name_of(pid_t pid, const char *spec, struct strbuf *out)
{
	struct strbuf env;
	sb_init(&env);
	bool from_env = read_proc(pid, "environ", &env) &&
			environ_value(env.s, env.len, "V8WALK_SERVICE", out);
	sb_free(&env);
	if (from_env)
		return;
	sb_reset(out);
	if (spec && !strcmp(spec, "auto")) {
		if (!auto_name(pid, out))
			sb_add(out, "node");
	} else if (spec) {
		sb_add(out, spec);
	}
}
