/* test_stop_signals.c — in launch mode, which signals v8walk passes on to the program: a
 * launcher's copy of the terminal's Ctrl-C is not (the program already got the terminal's),
 * anything else another process sends is (cli/stop_signals.c). */
#include <criterion/criterion.h>
#include <signal.h>

#include "../../cli/stop_signals.h"

static struct stop_signals after_terminal(int signo, uint64_t at)
{
	struct stop_signals s = {.fd = -1, .child = 500, .parent = 400, .tty_signo = signo,
				 .tty_at_ns = at};
	return s;
}

Test(stop_signals, a_launchers_copy_of_the_terminals_signal)
{
	struct stop_signals s = after_terminal(SIGINT, 1000000000ull);
	cr_assert(stop_signal_is_copy(&s, SIGINT, 400, 1000000000ull + 5000000));
	cr_assert_not(stop_signal_is_copy(&s, SIGINT, 400, 1000000000ull + STOP_COPY_WINDOW_NS),
		      "a second later it is the parent's own");
	cr_assert_not(stop_signal_is_copy(&s, SIGTERM, 400, 1000000000ull + 5000000),
		      "another signal");
	cr_assert_not(stop_signal_is_copy(&s, SIGINT, 401, 1000000000ull + 5000000),
		      "another process than the parent");
}

Test(stop_signals, nothing_is_a_copy_without_the_terminals_signal)
{
	struct stop_signals s = after_terminal(0, 0);
	cr_assert_not(stop_signal_is_copy(&s, SIGINT, 400, 5000000));
	s = after_terminal(SIGINT, 5);
	s.parent = 1; /* orphaned: init passes nothing on */
	cr_assert_not(stop_signal_is_copy(&s, SIGINT, 1, 10));
}
