/* exit_codes.h — v8walk's exit statuses, one name each; `v8walk --help` lists them. */
#ifndef V8WALK_EXIT_CODES_H
#define V8WALK_EXIT_CODES_H

enum exit_code {
	EXIT_OK = 0,            /* done; --core: every stack read from intact input */
	EXIT_ERROR = 1,         /* nothing could be done or shown; one line on stderr says why */
	EXIT_USAGE = 2,         /* the command line is wrong (options, combinations, values) */
	EXIT_DAMAGED_INPUT = 3, /* --core: stacks printed, with warnings or damage (also on stderr) */
	EXIT_EXPORT_INCOMPLETE = 4, /* --export: sampled, but periods were dropped or still wait in
				     * the spool (the summary says how many) */
	EXIT_PERMISSION = 5,    /* the kernel refused to let v8walk trace the process or load its
				 * eBPF program: a privilege, a capability or a policy is missing
				 * (the line says which: sudo, setcap, the container's flags) */
	/* launch mode passes the program's own exit status on, as a shell gives it: */
	EXIT_CANNOT_RUN = 126,  /* the program exists but cannot be run */
	EXIT_NOT_FOUND = 127,   /* no such program */
	EXIT_SIGNAL_BASE = 128, /* the program died of signal N: EXIT_SIGNAL_BASE + N */
};

#endif
