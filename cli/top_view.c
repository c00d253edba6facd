/* top_view.c — the terminal side of `v8walk top`: settings, keys, the screen, batch tables. */
#include "top_view.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/utf8.h"
#include "summary.h"

enum { BATCH_ROWS = 40, MIN_COLS = 40 };

static const char *const sort_names[] = {"%Own", "%Total", "OwnTime", "TotalTime"};

/* Append s to the screen with every control character (C0, DEL, C1) and every byte that is not
 * valid UTF-8 replaced by '?': names come from the target and must not reach the terminal as
 * escape sequences. At most `cols` characters are written; returns how many. */
static int put_text(struct strbuf *b, const char *s, int cols)
{
	int used = 0;
	for (const char *c = s; *c && used < cols; used++) {
		size_t k = utf8_seq_len(c);
		unsigned char b0 = (unsigned char)c[0], b1 = (unsigned char)c[1];
		bool control = b0 < 0x20 || b0 == 0x7f || (b0 == 0xc2 && b1 >= 0x80 && b1 <= 0x9f);
		if (k == 0 || control)
			sb_addc(b, '?');
		else
			sb_addn(b, c, k);
		c += k ? k : 1;
	}
	return used;
}

/* One line of the screen: text cut at the width, the rest of the line cleared. */
static void put_line(struct top_view *tv, const char *text, int cols)
{
	put_text(&tv->screen, text, cols);
	sb_add(&tv->screen, tv->tty ? "\033[K\r\n" : "\n");
}

void top_view_title_of(pid_t pid, char *out, size_t cap)
{
	char path[64], cmd[400];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, cmd, sizeof(cmd) - 1);
		n = r > 0 ? (size_t)r : 0;
		close(fd);
	}
	while (n && !cmd[n - 1])
		n--;
	for (size_t i = 0; i < n; i++)
		cmd[i] = cmd[i] ? cmd[i] : ' ';
	cmd[n] = 0;
	snprintf(out, cap, "pid %d: %s", (int)pid, n ? cmd : "?");
}

/* Threads `t` chooses among: main threads, then workers (profile order). */
static long thread_at(const struct profile *p, size_t pick)
{
	if (pick == 0)
		return -1;
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->nthreads; i++) {
			const char *role = intern_get(p->strings, p->threads[i].role);
			bool want = pass == 0 ? !strcmp(role, "main") : !strncmp(role, "worker", 6);
			if (want && ++k == pick)
				return (long)i;
		}
	return -2; /* past the end */
}

static void terminal_size(const struct top_view *tv, int *rows, int *cols)
{
	struct winsize ws;
	*rows = 24;
	*cols = tv->tty ? 80 : 160;
	if (tv->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
	if (*cols < MIN_COLS)
		*cols = MIN_COLS;
}

static void header(struct top_view *tv, int cols, const char *thread_label)
{
	struct top_status st = {0};
	tv->status(tv->status_ctx, &st);
	struct strbuf l;
	sb_init(&l);
	sb_printf(&l, "v8walk top - %s", tv->title);
	put_line(tv, l.s, cols);
	sb_reset(&l);
	double tries = (double)(st.samples + st.missed);
	sb_printf(&l, "%s | sampler %s at %g Hz | threads %lu | samples %lu | rate %.1f/s | errors "
		      "%.1f%% | missed %.1f%% | lag %.1f ms | v8walk CPU %.1f%%",
		  tv->runtime[0] ? tv->runtime : tv->q.by_process ? "Node: per process" : "Node ?",
		  st.sampler, tv->o->rate_hz, st.threads,
		  st.samples, tv->rate, tries > 0 ? 100.0 * (double)st.errors / tries : 0.0,
		  tries > 0 ? 100.0 * (double)st.missed / tries : 0.0, st.max_lag_ms, tv->cpu_pct);
	put_line(tv, l.s, cols);
	sb_reset(&l);
	sb_printf(&l, "window %s (w) | thread %s (t) | lines: %s (l) | native own: %s (n) | sort %s "
		      "(1-4)%s",
		  tv->window_all ? "since start" : "last interval", thread_label,
		  tv->q.def_lines ? "definition" : "current", tv->q.native_own ? "on" : "off",
		  sort_names[tv->q.sort], tv->paused ? " | PAUSED (space)" : "");
	put_line(tv, l.s, cols);
	sb_free(&l);
}

/* The table of the last computation, at most max_rows rows. */
static void table(struct top_view *tv, int cols, int max_rows)
{
	const struct top_table *t = &tv->table;
	double rate = tv->o->rate_hz > 0 ? tv->o->rate_hz : 99;
	struct strbuf l;
	sb_init(&l);
	sb_printf(&l, "%7s %7s %9s %9s  %s%s", "%Own", "%Total", "OwnTime", "TotalTime",
		  tv->q.by_process ? "Process  " : "", "Function (file:line)");
	put_line(tv, l.s, cols);
	for (size_t i = 0; i < t->n && (int)i < max_rows; i++) {
		const struct top_row *r = &t->rows[i];
		if (!r->own_all && !r->total_all)
			break;
		sb_reset(&l);
		double den = t->samples ? (double)t->samples : 1;
		sb_printf(&l, "%7.2f %7.2f %8.2fs %8.2fs  ", 100.0 * (double)r->own / den,
			  100.0 * (double)r->total / den, (double)r->own_all / rate,
			  (double)r->total_all / rate);
		if (tv->q.by_process)
			sb_printf(&l, "%-8d ", (int)r->pid);
		sb_add(&l, top_row_text(t, r));
		put_line(tv, l.s, cols);
	}
	sb_free(&l);
}

/* Recompute the rows and draw them (the window as the last refresh left it). */
static void draw(struct top_view *tv)
{
	const struct profile *p = tv->prof;
	long thread = thread_at(p, tv->thread_pick);
	if (thread == -2) {
		tv->thread_pick = 0;
		thread = -1;
	}
	tv->q.thread = thread;
	size_t to = tv->q.window_to;
	size_t from = tv->q.window_from;
	if (tv->window_all)
		tv->q.window_from = 0;
	top_table_compute(&tv->table, p, &tv->q);
	tv->q.window_from = from;
	tv->q.window_to = to;
	struct strbuf label;
	sb_init(&label);
	if (thread < 0)
		sb_add(&label, "all");
	else
		profile_node_text(p, p->threads[thread].node, false, &label);
	int rows, cols;
	terminal_size(tv, &rows, &cols);
	sb_reset(&tv->screen);
	if (tv->tty)
		sb_add(&tv->screen, "\033[H");
	else {
		time_t now = time(NULL);
		struct tm tm;
		char when[32] = "";
		if (localtime_r(&now, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
		sb_printf(&tv->screen, "--- %s, %s: %lu samples\n", when,
			  tv->window_all ? "since start" : "last interval",
			  (unsigned long)tv->table.samples);
	}
	header(tv, cols, label.s);
	put_line(tv, "", cols);
	table(tv, cols, tv->tty ? rows - 6 : BATCH_ROWS);
	if (tv->tty)
		sb_add(&tv->screen, "\033[J");
	else
		sb_addc(&tv->screen, '\n');
	sb_free(&label);
	fwrite(tv->screen.s, 1, tv->screen.len, stdout);
	fflush(stdout);
}

/* A new window: the records since the previous refresh; the rate and CPU of the interval. */
static void refresh(struct top_view *tv, uint64_t now)
{
	struct top_status st = {0};
	tv->status(tv->status_ctx, &st);
	double secs = (double)(now - tv->shown_ns) / 1e9;
	double cpu = own_cpu_seconds();
	tv->rate = secs > 0 ? (double)(st.samples - tv->samples_then) / secs : 0;
	tv->cpu_pct = secs > 0 ? 100.0 * (cpu - tv->cpu_then) / secs : 0;
	tv->samples_then = st.samples;
	tv->cpu_then = cpu;
	tv->window_ns = now - tv->shown_ns;
	tv->shown_ns = now;
	tv->q.window_from = tv->q.window_to;
	tv->q.window_to = tv->prof->nrecs;
	draw(tv);
}

void top_view_open(struct top_view *tv, const struct options *o, const struct profile *prof,
		   const struct stop_signals *sig, top_status_fn status, void *status_ctx,
		   const char *title, const char *runtime, uint64_t start_ns)
{
	memset(tv, 0, sizeof(*tv));
	tv->o = o;
	tv->prof = prof;
	tv->sig = sig;
	tv->status = status;
	tv->status_ctx = status_ctx;
	snprintf(tv->title, sizeof(tv->title), "%s", title);
	snprintf(tv->runtime, sizeof(tv->runtime), "%s", runtime ? runtime : "");
	tv->interval_ns = (uint64_t)((o->interval_s > 0 ? o->interval_s : 1.0) * 1e9);
	tv->start_ns = tv->shown_ns = start_ns;
	tv->next_ns = start_ns + tv->interval_ns;
	tv->cpu_then = own_cpu_seconds();
	tv->winch_seen = sig ? sig->winch : 0;
	tv->q = (struct top_query){.thread = -1, .by_process = o->all_node || o->npids > 1,
				   .def_lines = o->function_lines};
	top_table_init(&tv->table);
	sb_init(&tv->screen);
	tv->tty = isatty(STDOUT_FILENO);
	tv->keys = tv->tty && isatty(STDIN_FILENO);
	if (tv->keys && tcgetattr(STDIN_FILENO, &tv->saved) == 0) {
		struct termios t = tv->saved;
		/* keys one at a time, not echoed; Ctrl-C stays a signal (it ends the run cleanly) */
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		tv->raw = tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) == 0;
	}
	if (tv->tty) {
		/* the alternate screen, the cursor hidden */
		fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);
		fflush(stdout);
	}
}

/* One key; returns true for quit. */
static bool key(struct top_view *tv, char c)
{
	switch (c) {
	case '1': case '2': case '3': case '4': tv->q.sort = (enum top_sort)(c - '1'); break;
	case 't': tv->thread_pick++; break;
	case 'l': tv->q.def_lines = !tv->q.def_lines; break;
	case 'n': tv->q.native_own = !tv->q.native_own; break;
	case 'w': tv->window_all = !tv->window_all; break;
	case ' ': tv->paused = !tv->paused; break;
	case 'q': case 'Q': case 3: return true;
	default: return false;
	}
	return false;
}

bool top_view_due(struct top_view *tv, uint64_t now)
{
	bool redraw = false;
	if (tv->keys) {
		char buf[32];
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
		for (ssize_t i = 0; i < n; i++) {
			if (key(tv, buf[i]))
				return true;
			redraw = true;
		}
	}
	if (tv->sig && tv->sig->winch != tv->winch_seen) {
		tv->winch_seen = tv->sig->winch;
		if (tv->tty)
			fputs("\033[2J", stdout);
		redraw = true;
	}
	if (now >= tv->next_ns) {
		tv->next_ns += tv->interval_ns;
		if (tv->next_ns <= now)
			tv->next_ns = now + tv->interval_ns;
		if (!tv->paused) {
			refresh(tv, now);
			return false;
		}
	}
	if (redraw && tv->tty)
		draw(tv);
	return false;
}

void top_view_close(struct top_view *tv)
{
	if (!tv->o)
		return;
	if (tv->tty) {
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
	} else {
		/* the whole run, as the last table */
		tv->window_all = true;
		tv->paused = false;
		tv->q.window_to = tv->prof->nrecs;
		draw(tv);
	}
	if (tv->raw)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &tv->saved);
	tv->raw = false;
	top_table_free(&tv->table);
	sb_free(&tv->screen);
	tv->o = NULL;
}
