/* modes.h — what v8walk does, one function per mode; each returns the process exit code
 * (exit_codes.h). */
#ifndef V8WALK_MODES_H
#define V8WALK_MODES_H

#include <stdio.h>

#include "exit_codes.h"
#include "options.h"
#include "../profile/profile.h"
#include "../symtab/addrspace.h"
#include "../v8/runtime.h"
#include "../sampling/target.h"

/* ptrace sampling of one process, or of a program it starts (launch mode) */
int mode_record(const struct options *o);
/* eBPF sampling: several processes, --all-node, launch mode. `ptrace_refusal` is set when --mode
 * auto falls back to it (it is said on stderr, or joined to the error if eBPF fails too);
 * `refusal_is_access`: ptrace was refused by the kernel's access control, so that a failure of
 * eBPF too exits with EXIT_PERMISSION. */
int mode_bpf(const struct options *o, const char *ptrace_refusal, bool refusal_is_access);
int mode_dump(const struct options *o);
/* --core FILE: every thread's stack from a core file (text or JSON), or --version-info for it.
 * Exits EXIT_OK, EXIT_ERROR (nothing could be shown) or EXIT_DAMAGED_INPUT (stacks shown, with
 * warnings about the input). */
int mode_core(const struct options *o);
int mode_version_info(const struct options *o);
/* `v8walk schema ...`: print the ClickHouse tables' DDL (argv[0] is "schema"). */
int mode_schema(int argc, char **argv);
/* `v8walk report ...`: a profile read back from ClickHouse (argv[0] is "report"). */
int mode_report(int argc, char **argv);

/* Shared: a one-line error on stderr, EXIT_ERROR. */
int fail_msg(const char *msg);
/* The same, EXIT_PERMISSION when `refused` (the kernel's access control refused v8walk). */
int fail_access(const char *msg, bool refused);
/* The file for -o (stdout when none); NULL after printing why it cannot be opened. */
FILE *open_output(const struct options *o);
/* Flush/close it; returns EXIT_OK or EXIT_ERROR (after printing why). */
int close_output(const struct options *o, FILE *out, int write_rc);
/* Write the profile in the chosen format to -o or stdout (files: temporary name, then rename);
 * returns EXIT_OK or EXIT_ERROR. */
int write_profile(const struct options *o, const struct profile *p);
/* The same with the -o names expanded (output_name.h): --period files. */
struct output_fields;
int write_profile_fields(const struct options *o, const struct profile *p,
			 const struct output_fields *f);
/* What the run says about itself in the profile: the target, the runtime, the rate, the time. */
void profile_meta_fill(const struct options *o, const struct v8_runtime *rt, uint64_t start_ns,
		       uint64_t end_ns, struct profile_meta *m);
/* The executable mappings of a sampled process, with their build-ids, into the profile. */
void profile_add_modules(struct profile *p, pid_t pid, struct addrspace *as);
/* How JS frames aggregate (--function, --nolineno). */
enum line_mode line_mode_of(const struct options *o);
/* How a live target is opened and walked (--force-v8-version, --full-names). */
struct target_opts target_opts_of(const struct options *o);

#endif
