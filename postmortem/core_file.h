/* core_file.h — one ELF core file of an x86-64 Linux process, as the kernel or gdb's gcore wrote
 * it: its memory segments (PT_LOAD), threads (NT_PRSTATUS), process (NT_PRPSINFO), fatal signal
 * (NT_SIGINFO), mapped files (NT_FILE) and auxiliary vector (NT_AUXV). It reads only the core's
 * own bytes: memory the core lacks (code, read-only data) is the business of memsrc_core. Every
 * field is bounds-checked, so a truncated or corrupt file gives an error or a damage note, never
 * a crash. */
#ifndef V8WALK_CORE_FILE_H
#define V8WALK_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../symtab/maps.h"
#include "../util/strbuf.h"

#include "arch_defs.h"

enum { CORE_NREGS = ARCH_PRSTATUS_NREGS }; /* elf_gregset_t */

struct core_segment {
	uint64_t vaddr, memsz;
	uint64_t end;     /* vaddr + memsz */
	uint64_t filesz;  /* bytes the writer dumped (0: left out, e.g. unmodified code) */
	uint64_t avail;   /* of those, bytes present in the file (less than filesz when truncated) */
	uint64_t offset;  /* file offset of the dumped bytes */
	uint32_t prot;    /* MAP_R | MAP_W | MAP_X (symtab/maps.h) */
};

struct core_thread {
	pid_t tid;
	int cursig;               /* pr_cursig: the signal being delivered when the core was written */
	int signo;                /* si_signo of this thread's NT_SIGINFO (0 = none) */
	uint64_t regs[CORE_NREGS];
};

struct core_file {
	char *path;
	int fd;
	const uint8_t *data;      /* the whole file, mapped read-only */
	size_t size;
	struct core_segment *segs; /* sorted by vaddr */
	size_t nsegs;
	struct core_thread *threads; /* in note order: the kernel writes the dumping thread first */
	size_t nthreads;
	struct maps files;         /* NT_FILE: path, range and file offset of each file mapping
				    * (permissions unknown: 0); sorted */
	uint64_t *auxv;            /* (type, value) pairs */
	size_t nauxv;
	pid_t pid;                 /* NT_PRPSINFO pr_pid (0 when absent) */
	char fname[17];            /* pr_fname: the command name */
	char psargs[81];           /* pr_psargs: the start of the command line */
	uint64_t expected_size;    /* where the last dumped byte should be */
	bool truncated;            /* the file ends before some segment's data */
	bool have_ntfile;
	uint64_t pac_mask;         /* NT_ARM_PAC_MASK's insn_mask (0: no such note) */
	bool borrowed;             /* data is the caller's buffer (core_file_from_buffer) */
};

/* Open and index a core. On failure returns false with a one-line reason in *err (which names
 * the file). */
bool core_file_open(struct core_file *cf, const char *path, struct strbuf *err);
/* The same for a core held in the caller's buffer (fuzzing, tests); it must outlive cf. */
bool core_file_from_buffer(struct core_file *cf, const char *name, const uint8_t *data, size_t size,
			   struct strbuf *err);
void core_file_close(struct core_file *cf);

/* The segment containing addr, or NULL. */
const struct core_segment *core_segment_at(const struct core_file *cf, uint64_t addr);
/* Copy bytes the core itself holds at addr (contiguous, up to len); returns how many. */
size_t core_read(const struct core_file *cf, uint64_t addr, void *buf, size_t len);
/* A value of the auxiliary vector (AT_ENTRY, AT_PHDR, …). */
bool core_auxv(const struct core_file *cf, uint64_t type, uint64_t *value);
/* The thread that took the fatal signal (kernel cores: the first one; the kernel sets pr_cursig
 * in every thread), or NULL when the core was written without one (gcore). */
const struct core_thread *core_crashed_thread(const struct core_file *cf);

#endif
