/* output_name.c — period file names (%n, strftime) and write-then-rename output files. */
#include "output_name.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool output_name_has_fields(const char *tmpl)
{
	for (const char *c = tmpl; *c; c++) {
		if (*c != '%')
			continue;
		if (c[1] == '%') {
			c++;
			continue;
		}
		if (c[1])
			return true;
	}
	return false;
}

bool output_name_expand(const char *tmpl, const struct output_fields *f, char *out, size_t cap)
{
	/* %n first (strftime would make it a newline); %% stays for strftime to turn into '%' */
	char fmt[4096];
	size_t n = 0;
	for (const char *c = tmpl; *c; c++) {
		char num[24];
		const char *add = NULL;
		size_t len = 1;
		if (c[0] == '%' && c[1] == 'n') {
			snprintf(num, sizeof(num), "%lu", f->seq);
			add = num;
			len = strlen(num);
			c++;
		} else if (c[0] == '%' && c[1] == '%') {
			add = "%%";
			len = 2;
			c++;
		} else {
			add = c;
		}
		if (n + len >= sizeof(fmt))
			return false;
		memcpy(fmt + n, add, len);
		n += len;
	}
	fmt[n] = 0;
	struct tm tm;
	if (!localtime_r(&f->start, &tm) || cap == 0)
		return false;
	out[0] = 0;
	size_t w = strftime(out, cap, fmt, &tm);
	return w > 0 && w < cap;
}

bool atomic_file_open(struct atomic_file *af, const char *path)
{
	memset(af, 0, sizeof(*af));
	if (strlen(path) + 16 > sizeof(af->path)) {
		errno = ENAMETOOLONG;
		return false;
	}
	strcpy(af->path, path);
	struct stat st;
	bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (in_place) {
		af->f = fopen(path, "we");
		return af->f != NULL;
	}
	/* beside it, so that rename stays in one file system; dot-prefixed, so that a shipper
	 * matching the names' pattern does not pick it up */
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	snprintf(af->tmp, sizeof(af->tmp), "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
	int fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		af->tmp[0] = 0;
		return false;
	}
	/* the mode a plain fopen would have given (mkostemp makes 0600) */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	af->f = fdopen(fd, "w");
	if (!af->f) {
		int e = errno;
		close(fd);
		unlink(af->tmp);
		errno = e;
		return false;
	}
	return true;
}

int atomic_file_close(struct atomic_file *af, bool ok)
{
	int rc = ok ? 0 : -1;
	int e = ok ? 0 : EIO;
	if (fclose(af->f) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	af->f = NULL;
	if (af->tmp[0]) {
		if (rc == 0 && rename(af->tmp, af->path) != 0) {
			rc = -1;
			e = errno;
		}
		if (rc != 0)
			unlink(af->tmp);
	}
	errno = e;
	return rc;
}
