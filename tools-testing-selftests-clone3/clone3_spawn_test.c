// SPDX-License-Identifier: GPL-2.0
/*
 * The spawner of clone3_spawn.c runs its child in the parent's memory, so
 * between clone3() and execve() no handler of the parent may be installed
 * in the child.  A hook run in the child right before execve() reads every
 * disposition back with the raw rt_sigaction() into memory the parent
 * reads; checking after execve() would prove nothing, as execve() resets
 * caught signals by itself.
 *
 * The spawn fixture runs every check twice, variant flag (the kernel
 * resets the handlers: needs CLONE_CLEAR_SIGHAND) and variant classic (the
 * child resets them itself).  Tests with a name component "flag" or
 * "flag_*" need the flag: they skip on a kernel without it, or fail when
 * the environment has CLONE3_REQUIRE_CLEAR_SIGHAND=1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clone3_spawn.h"

/* Set in the environment of the spawned copy of this program. */
#define EXIT_ENV "CLONE3_SPAWN_TEST_EXIT"
#define EXIT_CODE 42
#define SELF "/proc/self/exe"

/* The spawned copy of this program leaves at once with the code asked. */
static void __attribute__((constructor)) spawned_copy_exits(void)
{
	const char *code = getenv(EXIT_ENV);

	if (code)
		_exit(atoi(code));
}

/* What the child saw right before execve(). */
struct child_view {
	int done;
	int err[KSIG_MAX + 1];
	struct ksigaction act[KSIG_MAX + 1];
	unsigned long mask[KSIG_WORDS];
};

/* One spawn: what the child saw, the parent's mask, the exit status. */
struct spawn_run {
	struct child_view view;
	unsigned long mask[KSIG_WORDS];
	unsigned long sig_calls;
	int status;
};

/* The before-exec hook: runs in the child, writes to the parent's memory. */
static void record_view(void *data)
{
	struct child_view *v = data;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++)
		v->err[sig] = ksigaction(sig, NULL, &v->act[sig]);
	ksigprocmask(SIG_SETMASK, NULL, v->mask);
	v->done = 1;
}

static bool catchable(int sig)
{
	return sig != SIGKILL && sig != SIGSTOP;
}

/* A few classic and real-time signals stay ignored in the parent. */
static bool ignored(int sig)
{
	return sig == SIGHUP || sig == SIGPIPE || sig == SIGTTOU ||
	       sig == 40 || sig == KSIG_MAX;
}

static void handler(int sig)
{
}

/*
 * glibc refuses the signals it keeps for itself (32 and 33): give them
 * the kernel action glibc installed for SIGUSR1, restorer included.
 */
static int install_raw(int sig, void (*fn)(int))
{
	struct ksigaction ka;
	int ret;

	ret = ksigaction(SIGUSR1, NULL, &ka);
	if (!ret) {
		ka.handler = (unsigned long)fn;
		ret = ksigaction(sig, &ka, NULL);
	}
	return ret;
}

/* Catch every catchable signal, with sa_flags and sa_mask set. */
static int install_handlers(void)
{
	struct sigaction sa = { .sa_flags = SA_RESTART | SA_NODEFER };
	int sig;

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!catchable(sig))
			continue;
		sa.sa_handler = ignored(sig) ? SIG_IGN : handler;
		if (!sigaction(sig, &sa, NULL))
			continue;
		if (errno != EINVAL || install_raw(sig, sa.sa_handler))
			return -1;
	}
	return 0;
}

/* The parent: every catchable signal caught or ignored, a mask set. */
static void prepare_parent(struct __test_metadata *_metadata,
			   struct spawn_run *run)
{
	sigset_t set;

	memset(run, 0, sizeof(*run));
	ASSERT_EQ(0, install_handlers()) {
		TH_LOG("cannot install handlers: %s", strerror(errno));
	}
	/* A mask the child must get back before execve(). */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, 50);
	ASSERT_EQ(0, sigprocmask(SIG_SETMASK, &set, NULL));
	ASSERT_EQ(0, ksigprocmask(SIG_SETMASK, NULL, run->mask));
}

/*
 * Spawn this program (or PATH) with the view hook and reap it into
 * run->status; *pid gets the spawner's result.  False when the test was
 * skipped: no spawner, or a kernel that refuses the flag and is not
 * required to have it.  A refused flag with the requirement, or a refused
 * classic spawn, fails the test here.
 */
static bool spawn_and_wait(struct __test_metadata *_metadata,
			   struct spawn_run *run, enum spawn_strategy s,
			   const char *path, pid_t *pid)
{
	char code[16];
	char env[sizeof(EXIT_ENV) + sizeof(code)];
	char *const argv[] = { "clone3_spawn_test", NULL };
	char *const envp[] = { env, NULL };
	struct spawn_hooks hooks = {
		.before_exec = record_view,
		.data = &run->view,
		.sig_syscalls = &run->sig_calls,
	};

	snprintf(code, sizeof(code), "%d", EXIT_CODE);
	snprintf(env, sizeof(env), "%s=%s", EXIT_ENV, code);
	if (!clone3_spawn_available())
		SKIP(return false, "no clone3() or no spawner for this arch");
	*pid = clone3_spawn(s, path, argv, envp, &hooks);
	if (*pid == -EINVAL && s == SPAWN_FLAG && !clone3_flag_required())
		SKIP(return false, "kernel refuses CLONE_CLEAR_SIGHAND");
	ASSERT_NE(-EINVAL, *pid) {
		TH_LOG("%s spawn refused with EINVAL%s", spawn_strategy_name(s),
		       s == SPAWN_FLAG ? ": no CLONE_CLEAR_SIGHAND" : "");
	}
	if (*pid > 0)
		ASSERT_EQ(*pid, waitpid(*pid, &run->status, 0));
	return true;
}

/* Spawn this program and check that it ran; false when skipped. */
static bool spawn_self(struct __test_metadata *_metadata,
		       struct spawn_run *run, enum spawn_strategy s)
{
	pid_t pid;

	if (!spawn_and_wait(_metadata, run, s, SELF, &pid))
		return false;
	ASSERT_LT(0, pid) {
		TH_LOG("%s spawn of %s failed: %s", spawn_strategy_name(s),
		       SELF, strerror(-pid));
	}
	ASSERT_EQ(1, run->view.done) {
		TH_LOG("the before-exec hook did not run in the child");
	}
	return true;
}

static void check_caught_reset(struct __test_metadata *_metadata,
			       struct spawn_run *run)
{
	struct ksigaction *ka;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!catchable(sig) || ignored(sig))
			continue;
		ka = &run->view.act[sig];
		EXPECT_EQ(0, run->view.err[sig]);
		EXPECT_TRUE(ka->handler == (unsigned long)SIG_DFL &&
			    !ka->flags && !kset_bits(ka->mask)) {
			TH_LOG("signal %d before exec: handler %#lx sa_flags %#lx sa_mask %#llx",
			       sig, ka->handler, ka->flags,
			       kset_bits(ka->mask));
		}
	}
}

static void check_ignored_kept(struct __test_metadata *_metadata,
			       struct spawn_run *run)
{
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!ignored(sig))
			continue;
		EXPECT_EQ((unsigned long)SIG_IGN, run->view.act[sig].handler) {
			TH_LOG("signal %d: SIG_IGN lost, handler %#lx", sig,
			       run->view.act[sig].handler);
		}
	}
}

static void check_ran(struct __test_metadata *_metadata,
		      struct spawn_run *run)
{
	ASSERT_TRUE(WIFEXITED(run->status)) {
		TH_LOG("spawned program did not exit: status %#x",
		       run->status);
	}
	EXPECT_EQ(EXIT_CODE, WEXITSTATUS(run->status)) {
		TH_LOG("exit status %d: the program did not run (127: exec failed)",
		       WEXITSTATUS(run->status));
	}
}

/* The parent's own handlers and mask are untouched by the spawn. */
static void check_parent_kept(struct __test_metadata *_metadata,
			      struct spawn_run *run)
{
	struct ksigaction ka;
	unsigned long mask[KSIG_WORDS] = { 0 };
	unsigned long want;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!catchable(sig))
			continue;
		want = ignored(sig) ? (unsigned long)SIG_IGN :
				      (unsigned long)handler;
		ASSERT_EQ(0, ksigaction(sig, NULL, &ka));
		EXPECT_EQ(want, ka.handler) {
			TH_LOG("parent's signal %d: handler %#lx", sig,
			       ka.handler);
		}
	}
	ASSERT_EQ(0, ksigprocmask(SIG_SETMASK, NULL, mask));
	EXPECT_EQ(kset_bits(run->mask), kset_bits(mask));
}

static void check_exec_failure(struct __test_metadata *_metadata,
			       struct spawn_run *run, enum spawn_strategy s)
{
	pid_t pid;

	if (!spawn_and_wait(_metadata, run, s, "/nonexistent/program", &pid))
		return;
	EXPECT_EQ(-ENOENT, pid) {
		TH_LOG("spawn of a missing program returned %d", pid);
	}
	EXPECT_EQ(-1, waitpid(-1, NULL, WNOHANG)) {
		TH_LOG("the failed child was left to reap");
	}
}

/* The parent's mask, as the child had it right before execve(). */
static void check_mask_passed(struct __test_metadata *_metadata,
			      struct spawn_run *run)
{
	EXPECT_EQ(kset_bits(run->mask), kset_bits(run->view.mask));
}

/*
 * Variant flag passes CLONE_CLEAR_SIGHAND, so its tests need the flag;
 * variant classic never passes it and must pass on every kernel.
 */
FIXTURE(spawn) {
	struct spawn_run run;
};

FIXTURE_VARIANT(spawn) {
	enum spawn_strategy strategy;
};

FIXTURE_VARIANT_ADD(spawn, flag) {
	.strategy = SPAWN_FLAG,
};

FIXTURE_VARIANT_ADD(spawn, classic) {
	.strategy = SPAWN_CLASSIC,
};

FIXTURE_SETUP(spawn)
{
	prepare_parent(_metadata, &self->run);
}

FIXTURE_TEARDOWN(spawn)
{
}

TEST_F(spawn, resets_caught_handlers_before_exec)
{
	if (spawn_self(_metadata, &self->run, variant->strategy))
		check_caught_reset(_metadata, &self->run);
}

TEST_F(spawn, keeps_ignored_signals_ignored)
{
	if (spawn_self(_metadata, &self->run, variant->strategy))
		check_ignored_kept(_metadata, &self->run);
}

TEST_F(spawn, child_gets_parent_mask_before_exec)
{
	if (spawn_self(_metadata, &self->run, variant->strategy))
		check_mask_passed(_metadata, &self->run);
}

TEST_F(spawn, spawned_program_runs)
{
	if (spawn_self(_metadata, &self->run, variant->strategy))
		check_ran(_metadata, &self->run);
}

TEST_F(spawn, parent_keeps_handlers_and_mask)
{
	if (spawn_self(_metadata, &self->run, variant->strategy))
		check_parent_kept(_metadata, &self->run);
}

TEST_F(spawn, reports_exec_failure)
{
	check_exec_failure(_metadata, &self->run, variant->strategy);
}

/*
 * The flag saves the child one rt_sigaction() per signal at least.  It
 * compares the two strategies, so it is no variant: global.flag_*.
 */
TEST(flag_spares_child_signal_syscalls)
{
	struct spawn_run run;
	unsigned long classic, flag;

	prepare_parent(_metadata, &run);
	if (!spawn_self(_metadata, &run, SPAWN_CLASSIC))
		return;
	classic = run.sig_calls;
	run.sig_calls = 0;
	if (!spawn_self(_metadata, &run, SPAWN_FLAG))
		return;
	flag = run.sig_calls;
	TH_LOG("signal syscalls in the child: classic %lu, flag %lu",
	       classic, flag);
	EXPECT_EQ(1, flag);
	EXPECT_LE(flag + 100, classic);
}

TEST_HARNESS_MAIN
