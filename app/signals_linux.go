//go:build desktop && linux && cgo

package app

/*
#include <signal.h>

// fix_one adds SA_ONSTACK to an installed (non-default, non-ignored)
// handler. Go runs signal handlers on an alternate stack and aborts the
// process when a foreign handler lacks the flag.
static void fix_one(int s) {
	struct sigaction st;
	if (sigaction(s, NULL, &st) < 0) return;
	if (st.sa_handler == SIG_DFL || st.sa_handler == SIG_IGN) return;
	st.sa_flags |= SA_ONSTACK;
	sigaction(s, &st, NULL);
}

static void fix_all(void) {
	int v[] = {SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGFPE, SIGTERM, SIGBUS,
		SIGSEGV, SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2, SIGPIPE, SIGILL, SIGTRAP};
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) fix_one(v[i]);
}
*/
import "C"

// fixSignals re-adds SA_ONSTACK to every signal handler WebKit's
// JavaScriptCore installed after Wails' own fix ran (wails#2134, #3965):
// without it a nil dereference anywhere, even one net/http would recover,
// kills the app with "non-Go code set up signal handler without SA_ONSTACK".
func fixSignals() { C.fix_all() }
