/* intern.h — string interning: each distinct string gets a small stable id (frames, file names). */
#ifndef V8WALK_INTERN_H
#define V8WALK_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
	char **strs;     /* id → bytes (owned; NUL-terminated after lens[id] bytes, may hold NUL) */
	size_t *lens;    /* id → length in bytes */
	size_t n, cap;
	uint32_t *slots; /* hash slots holding id + 1, 0 = empty */
	size_t nslots;
	size_t bytes, max_bytes; /* memory held (bytes + INTERN_ENTRY_OVERHEAD each); 0 = no bound */
	uint32_t overflow_id;    /* what a new string gets once max_bytes is reached */
	unsigned long refused;   /* new strings that got overflow_id */
};

/* Bookkeeping per interned string (pointer, length, hash slots), counted against the budget. */
enum { INTERN_ENTRY_OVERHEAD = 32 };
/* The budget of every table of names read from a target: ids are kept for the whole run (frames
 * refer to them), so past this a new name is shown as the overflow name instead. */
#define INTERN_TARGET_BUDGET ((size_t)256 << 20)
#define INTERN_OVERFLOW_NAME "[v8walk: name table full]"

void intern_init(struct intern *t);
void intern_free(struct intern *t);
/* Returns the id of s[0..len) (adding it if new). */
uint32_t intern_n(struct intern *t, const char *s, size_t len);
uint32_t intern_str(struct intern *t, const char *s);
/* Bound the table to max_bytes; new strings past it get the id of overflow_name (interned now). */
void intern_set_budget(struct intern *t, size_t max_bytes, const char *overflow_name);
/* The bytes of id: a name from a target may hold NUL, so use intern_len (or intern_view) for its
 * length; intern_get is for the strings v8walk made itself. */
static inline const char *intern_get(const struct intern *t, uint32_t id) { return t->strs[id]; }
static inline size_t intern_len(const struct intern *t, uint32_t id) { return t->lens[id]; }
struct strview {
	const char *s;
	size_t len;
};
static inline struct strview intern_view(const struct intern *t, uint32_t id)
{
	return (struct strview){t->strs[id], t->lens[id]};
}
uint64_t bytes_hash(const void *p, size_t n);

#endif
