/* proc_status.c — reading /proc/<who>/status. */
#include "proc_status.h"

#include <stdio.h>
#include <string.h>

bool proc_status_field(const char *who, const char *key, char *val, size_t cap)
{
	char fn[64], line[512];
	snprintf(fn, sizeof(fn), "/proc/%s/status", who);
	FILE *f = fopen(fn, "re");
	if (!f)
		return false;
	size_t kl = strlen(key);
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			const char *p = line + kl + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(val, cap, "%s", p);
			val[strcspn(val, "\n")] = 0;
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}
