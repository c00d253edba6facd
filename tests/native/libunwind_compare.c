/* libunwind_compare.c — v8walk's native frames against libunwind's, at the same stop. Each round
 * stops every thread of a node process in turn (PTRACE_SEIZE + PTRACE_INTERRUPT), and while the
 * thread is held, unwinds it twice from the same registers and the same memory: with
 * libunwind-ptrace (its own ELF and DWARF readers: _UPT_accessors, unw_step, unw_get_proc_name),
 * and with v8walk's own walker (build/libv8walk.a: the target opened as the sampler opens it,
 * stackwalk_capture over the live process, stackwalk_name_natives). Then the thread runs again.
 * One JSON line per stop on stdout:
 *   {"tid":…,"comm":"…","libunwind":[[pc,"demangled name","symbol",offset,"mapping",info],…],
 *    "end":"…","regs":[pc,sp,fp,lr,[fp],[fp+8]],"v8walk":[[pc,"kind","name"],…],"v8walkEnd":"…"}
 * ("regs": the registers both started from, lr 0 where the machine has none, and the frame record
 * at fp).
 * ("mapping": the file mapped at libunwind's pc, "" for anonymous memory — V8's code —, "?" for
 * none, from the maps the target was opened with; info: 1 where libunwind found unwind
 * information for the frame, 0 where it steps by its fallback).
 * libunwind's symbols are demangled by the same libiberty call v8walk makes (symtab/demangle.c):
 * the names compared are the symbols each found for the pc. tests/e2e/native_frames.test.js
 * compares the native frames (innermost to the first V8 frame, outermost V8 entry to the end).
 *   libunwind-compare PID [ROUNDS [INTERVAL_MS]]      (root, or ptrace rights over PID)
 * Exit 0 when every stop was made and written; 1 with one line on stderr otherwise. */
#include <dirent.h>
#include <errno.h>
#include <libunwind-ptrace.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../mem/memsrc_live.h"
#include "../../mem/regs.h"
#include "../../sampling/target.h"
#include "../../symtab/demangle.h"
#include "../../util/json.h"
#include "../../walker/maps_refresh.h"
#include "../../walker/stackwalk.h"

enum { MAX_THREADS = 256, MAX_FRAMES = 256 };

static const char *kind_name(int k)
{
	static const char *const names[] = {"native", "js", "js-inlined", "js-async", "builtin",
					    "v8-typed", "unknown", "root", "kernel", "truncated"};
	return k >= 0 && (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/* The thread's tids now (at most max). */
static int threads_of(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < max)
		if (e->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(e->d_name);
	closedir(d);
	return n;
}

static void thread_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	buf[0] = 0;
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* Seize tid and wait for its interrupt stop; false (the thread left alone) when it is gone. */
static bool stop_thread(pid_t tid)
{
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
		return false;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) {
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return false;
	}
	for (;;) {
		int status;
		if (waitpid(tid, &status, __WALL) != tid)
			return false;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return false;
		if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP)
			return true;
		/* a signal for the thread on its way: give it back, and wait for the interrupt */
		if (WIFSTOPPED(status))
			ptrace(PTRACE_CONT, tid, NULL, (void *)(long)WSTOPSIG(status));
	}
}

/* The file mapped at pc ("" for anonymous memory, "?" for none). */
static const char *mapping_at(struct addrspace *as, uint64_t pc)
{
	struct addr_info ai;
	if (!addrspace_lookup(as, pc, &ai))
		return "?";
	return ai.map && ai.map->path ? ai.map->path : "";
}

#if defined(__aarch64__)
/* libunwind (1.7 and later) strips a return address signed by pointer authentication with the
 * mask its accessors give (ptrauth_insn_mask); libunwind-ptrace's accessors give none, so the
 * frames above the first signed return address would be the signed values. This program gives
 * the stopped thread's own mask, read from the kernel (NT_ARM_PAC_MASK) here, not by v8walk's
 * code. The accessor has no argument of this program's: the mask of the stop is kept here. */
static unw_word_t stop_insn_mask;

static unw_word_t insn_mask_of_stop(unw_addr_space_t as, void *arg)
{
	(void)as;
	(void)arg;
	return stop_insn_mask;
}

/* The thread's instruction-address PAC mask; 0 without pointer authentication. */
static unw_word_t thread_insn_mask(pid_t tid)
{
	uint64_t m[2] = {0, 0}; /* struct user_pac_mask: data_mask, insn_mask */
	struct iovec iov = {m, sizeof(m)};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)0x406 /* NT_ARM_PAC_MASK */, &iov) != 0)
		return 0;
	return iov.iov_len == sizeof(m) ? m[1] : 0;
}
#endif

/* libunwind's frames of the stopped thread, as JSON; returns how it ended. */
static const char *libunwind_frames(pid_t tid, struct addrspace *space, FILE *out)
{
	unw_accessors_t acc = _UPT_accessors;
#if defined(__aarch64__)
	stop_insn_mask = thread_insn_mask(tid);
	acc.ptrauth_insn_mask = insn_mask_of_stop;
#endif
	unw_addr_space_t as = unw_create_addr_space(&acc, 0);
	void *ui = as ? _UPT_create(tid) : NULL;
	const char *end = "no address space";
	unw_cursor_t c;
	fputs("\"libunwind\":[", out);
	if (ui && unw_init_remote(&c, as, ui) == 0) {
		end = "max depth";
		for (int i = 0; i < MAX_FRAMES; i++) {
			unw_word_t ip = 0, off = 0;
			char sym[1024];
			unw_get_reg(&c, UNW_REG_IP, &ip);
			if (unw_get_proc_name(&c, sym, sizeof(sym), &off) != 0)
				sym[0] = 0;
			char *name = sym[0] ? demangle(sym, false) : NULL;
			fprintf(out, "%s[%llu,", i ? "," : "", (unsigned long long)ip);
			json_string(out, name ? name : "");
			fputc(',', out);
			json_string(out, sym);
			fprintf(out, ",%llu,", (unsigned long long)off);
			json_string(out, mapping_at(space, ip));
			unw_proc_info_t pi;
			fprintf(out, ",%d]", unw_get_proc_info(&c, &pi) == 0);
			free(name);
			int r = unw_step(&c);
			if (r == 0) {
				end = "end";
				break;
			}
			if (r < 0) {
				end = unw_strerror(r);
				break;
			}
		}
	} else if (ui) {
		end = "unw_init_remote failed";
	}
	fputs("]", out);
	if (ui)
		_UPT_destroy(ui);
	if (as)
		unw_destroy_addr_space(as);
	return end;
}

struct walker {
	struct live_target t;
	struct intern strings;
	struct stackwalk sw;
	struct memsrc_live mem;
	struct maps_refresh fresh;
	struct frame frames[STACKWALK_MAX_FRAMES];
};

/* v8walk's frames of the stopped thread (registers from PTRACE_GETREGSET), as JSON. */
static bool v8walk_frames(struct walker *w, pid_t tid, FILE *out)
{
	struct regset regs;
	if (regset_read_ptrace(tid, &regs) != 0)
		return false;
	regs.pac_mask = regset_pac_mask_ptrace(tid);
	struct stack_bounds b;
	if (!stack_bounds_at(&w->fresh, &w->t.as, regs.r[REG_SP], &b))
		return false;
	struct walk_stats ws;
	int n = stackwalk_capture_fresh(&w->sw, &w->fresh, &regs, &w->mem.base, &b, w->frames,
					STACKWALK_MAX_FRAMES, &ws);
	stackwalk_name_natives(&w->sw, w->frames, n);
	/* the registers it started from and the frame record at fp: what a disagreement is read from */
	uint64_t rec[2] = {0, 0};
	if (reg_ok(&regs, REG_FP))
		mem_read(&w->mem.base, regs.r[REG_FP], rec, sizeof(rec));
	fprintf(out, "\"regs\":[%llu,%llu,%llu,%llu,%llu,%llu],", (unsigned long long)regs.r[REG_PC],
		(unsigned long long)regs.r[REG_SP], (unsigned long long)(reg_ok(&regs, REG_FP) ? regs.r[REG_FP] : 0),
		(unsigned long long)(REG_LR >= 0 && reg_ok(&regs, REG_LR) ? regs.r[REG_LR] : 0),
		(unsigned long long)rec[0], (unsigned long long)rec[1]);
	fputs("\"v8walk\":[", out);
	for (int i = 0; i < n; i++) {
		const struct frame *f = &w->frames[i];
		fprintf(out, "%s[%llu,\"%s\",", i ? "," : "", (unsigned long long)f->pc, kind_name(f->kind));
		json_string(out, f->name ? intern_get(&w->strings, f->name) : "");
		fputc(']', out);
	}
	static const char *const ends[] = {"complete", "frame-pointer chain ended", "max depth", "broken"};
	fprintf(out, "],\"v8walkEnd\":\"%s\"", (unsigned)ws.end < sizeof(ends) / sizeof(*ends) ? ends[ws.end] : "?");
	return true;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: libunwind-compare PID [ROUNDS [INTERVAL_MS]]\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	int rounds = argc > 2 ? atoi(argv[2]) : 1;
	long interval = argc > 3 ? atol(argv[3]) : 50;
	static struct walker w;
	struct strbuf msg;
	sb_init(&msg);
	struct target_opts to = {0};
	if (!live_target_open(&w.t, pid, &to, &msg)) {
		fprintf(stderr, "libunwind-compare: %s\n", msg.s);
		return 1;
	}
	intern_init(&w.strings);
	stackwalk_init(&w.sw, &w.t.as, w.t.have_rt ? &w.t.rt : NULL, &w.strings, false);
	memsrc_live_init(&w.mem, pid);
	maps_refresh_init(&w.fresh, 0);
	int stops = 0;
	for (int r = 0; r < rounds; r++) {
		pid_t tids[MAX_THREADS];
		int nt = threads_of(pid, tids, MAX_THREADS);
		if (nt < 0) {
			fprintf(stderr, "libunwind-compare: process %d is gone after %d stops\n", (int)pid, stops);
			return 1;
		}
		for (int i = 0; i < nt; i++) {
			if (!stop_thread(tids[i]))
				continue; /* a thread that just ended */
			char comm[64];
			thread_comm(pid, tids[i], comm, sizeof(comm));
			printf("{\"tid\":%d,\"comm\":", (int)tids[i]);
			json_string(stdout, comm);
			fputc(',', stdout);
			const char *end = libunwind_frames(tids[i], &w.t.as, stdout);
			fputs(",\"end\":", stdout);
			json_string(stdout, end);
			fputc(',', stdout);
			if (!v8walk_frames(&w, tids[i], stdout))
				fputs("\"v8walk\":null", stdout);
			fputs("}\n", stdout);
			fflush(stdout);
			ptrace(PTRACE_DETACH, tids[i], NULL, NULL);
			stops++;
		}
		sleep_ms(interval);
	}
	stackwalk_free(&w.sw);
	memsrc_live_close(&w.mem);
	live_target_close(&w.t);
	intern_free(&w.strings);
	sb_free(&msg);
	return stops > 0 ? 0 : 1;
}
