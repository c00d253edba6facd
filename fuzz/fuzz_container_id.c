/* fuzz_container_id.c — libFuzzer harness: /proc/PID/cgroup text (sampling/container_id.c); an id
 * found is 64 lower-case hex digits, and the whole text is never read past its end. */
#include <stdlib.h>
#include <string.h>

#include "../sampling/container_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so that ASan sees any read past the end */
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	char id[CONTAINER_ID_LEN + 1];
	if (container_id_parse(text, size, id)) {
		if (strlen(id) != CONTAINER_ID_LEN || strspn(id, "0123456789abcdef") != CONTAINER_ID_LEN)
			abort();
	}
	free(text);
	return 0;
}
