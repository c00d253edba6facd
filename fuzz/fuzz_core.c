/* fuzz_core.c — libFuzzer harness: a core file (postmortem/core_file.c, core_notes.c,
 * core_buildid.c) from a buffer: ELF header, program headers, notes (NT_PRSTATUS, NT_PRPSINFO,
 * NT_SIGINFO, NT_FILE, NT_AUXV), reads of the dumped segments, and the build-ids of the mapped
 * files as their headers were left in the core. Nothing on disk is opened. */
#include <stdlib.h>
#include <string.h>

#include "../postmortem/core_buildid.h"
#include "../postmortem/core_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct core_file cf;
	struct strbuf err;
	sb_init(&err);
	if (!core_file_from_buffer(&cf, "fuzz.core", data, size, &err)) {
		sb_free(&err);
		return 0;
	}
	sb_free(&err);
	uint8_t buf[256], id[BUILD_ID_MAX];
	for (size_t i = 0; i < cf.nsegs; i++) {
		const struct core_segment *s = &cf.segs[i];
		core_read(&cf, s->vaddr, buf, sizeof(buf));
		core_read(&cf, s->end - 1, buf, sizeof(buf));
		if (s->filesz > 8)
			core_read(&cf, s->vaddr + s->filesz - 8, buf, sizeof(buf));
		core_segment_at(&cf, s->vaddr + s->memsz / 2);
	}
	for (size_t i = 0; i < cf.files.n; i++)
		core_build_id(&cf, cf.files.v[i].start, id);
	for (size_t i = 0; i < cf.nthreads; i++)
		core_read(&cf, cf.threads[i].regs[ARCH_PRSTATUS_SP], buf, sizeof(buf));
	uint64_t v;
	core_auxv(&cf, 3 /* AT_PHDR */, &v);
	core_crashed_thread(&cf);
	core_file_close(&cf);
	return 0;
}
