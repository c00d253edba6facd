/* json.c — JSON string escaping. */
#include "json.h"

#include "utf8.h"

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		size_t n = utf8_seq_len(s);
		if (n != 1) {
			/* a multi-byte character as it is; a byte that starts none: U+FFFD */
			if (n)
				fwrite(s, 1, n, out);
			else
				fputs("\\ufffd", out);
			s += n ? n : 1;
			continue;
		}
		unsigned char c = (unsigned char)*s++;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
