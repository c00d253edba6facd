/* core_builder.h — writes small synthetic ELF core files for the core-reader unit tests: notes
 * (NT_PRSTATUS, NT_SIGINFO, NT_PRPSINFO, NT_FILE, NT_AUXV) and PT_LOAD segments with chosen
 * contents, laid out as the kernel does (headers, notes, then page-aligned segment data). */
#ifndef V8WALK_TEST_CORE_BUILDER_H
#define V8WALK_TEST_CORE_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { CB_MAX_LOADS = 16 };

struct cb_file {
	uint64_t start, end, pgoff_pages;
	const char *path;
};

struct core_builder {
	uint8_t *notes;
	size_t nnotes, capnotes;
	struct {
		uint64_t vaddr, memsz;
		uint32_t flags; /* PF_R | PF_W | PF_X */
		const void *data;
		size_t filesz;
		uint64_t forced_offset; /* 0: laid out by cb_write; else p_offset as given (hostile) */
	} loads[CB_MAX_LOADS];
	size_t nloads;
	uint16_t etype; /* ET_CORE unless a test wants another */
};

void cb_init(struct core_builder *b);
void cb_free(struct core_builder *b);
void cb_thread(struct core_builder *b, pid_t tid, int cursig, uint64_t rip, uint64_t rsp);
void cb_siginfo(struct core_builder *b, int signo);
void cb_psinfo(struct core_builder *b, pid_t pid, const char *fname);
void cb_files(struct core_builder *b, const struct cb_file *files, size_t n);
void cb_auxv(struct core_builder *b, const uint64_t *pairs, size_t npairs);
void cb_load(struct core_builder *b, uint64_t vaddr, uint64_t memsz, uint32_t flags,
	     const void *data, size_t filesz);
/* Write the core to path; returns its size. */
size_t cb_write(struct core_builder *b, const char *path);

#endif
