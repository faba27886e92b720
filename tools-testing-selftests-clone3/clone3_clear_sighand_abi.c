// SPDX-License-Identifier: GPL-2.0
/*
 * The user-visible ABI of the clone3() flag CLONE_CLEAR_SIGHAND: which
 * flag combinations and struct sizes the kernel takes, and what the
 * child's signal handler table holds right after the clone.
 *
 * Naming rule (the QEMU gate relies on it): a test needs
 * CLONE_CLEAR_SIGHAND when a dot-separated component of its harness name
 * is "flag" or starts with "flag_": here the fixtures flag_abi and
 * flag_child.  No other test, fixture or variant name does.
 *
 * The signal tables are read and written with the raw rt_sigaction()
 * system call, as the C library hides some signals (32 and 33 on glibc).
 * Children that share the parent's memory (CLONE_VM) run on their own
 * stack and only make raw system calls before they exit.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "clone3_raw.h"

/*
 * Every clone3() flag of the release whose headers we are built against
 * (clone3_raw.h's table): any other bit must be refused.
 */
#define CLONE3_KNOWN_FLAGS \
	clone3_known_flags(CLONE3_TREE_MAJOR, CLONE3_TREE_MINOR)

#define CHILD_STACK_SIZE (256 * 1024)
#define CHILD_SURVIVED 42

/* What a child saw, written into memory the parent can read. */
struct child_report {
	int read_errors;
	struct ksigaction act[KSIG_MAX + 1];
	unsigned long blocked[KSIG_WORDS];
	unsigned long pending[KSIG_WORDS];
};

static void test_handler(int sig)
{
}

static bool catchable(int sig)
{
	return sig != SIGKILL && sig != SIGSTOP;
}

/*
 * The table the parent installs before a clone: one signal in three is
 * caught, one ignored and one left at SIG_DFL, all with flags and a mask,
 * so that each kind shows up below and above SIGRTMIN.  SIGCHLD (17)
 * stays at SIG_DFL: ignoring it would reap our children for us.
 */
enum sig_kind { KIND_CAUGHT, KIND_IGNORED, KIND_DEFAULT };

static enum sig_kind sig_kind(int sig)
{
	return (enum sig_kind)(sig % 3);
}

/* ---- starting children ---- */

static void *child_stack(void)
{
	static void *stack;

	if (!stack) {
		stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			stack = NULL;
	}
	return stack;
}

/*
 * Call clone3(ARGS, SIZE) and run FN(ARG) in the child, whose exit code
 * is FN's return value.  A child sharing our memory gets its own stack.
 * Returns the child's id or -errno.
 */
static long start_child(void *args, size_t size, clone3_fn fn, void *arg)
{
	struct clone3_args *ca = args;
	long ret;

	if (ca->flags & CLONE_VM) {
		if (!ca->stack) {
			ca->stack = (uintptr_t)child_stack();
			ca->stack_size = CHILD_STACK_SIZE;
		}
		if (!ca->stack)
			return -ENOMEM;
		return clone3_run_on_stack(ca, size, fn, arg);
	}
	ret = syscall(__NR_clone3, args, size);
	if (ret == 0)
		_exit(fn(arg));
	return sys_ret(ret);
}

/*
 * Wait until a CLONE_CHILD_CLEARTID thread has gone; the kernel clears
 * *tid even without CONFIG_FUTEX, then we only yield.
 */
static void wait_thread(__u32 *tid)
{
	__u32 seen;

	while ((seen = __atomic_load_n(tid, __ATOMIC_ACQUIRE)) != 0)
		if (syscall(SYS_futex, tid, FUTEX_WAIT, seen, NULL, NULL, 0) &&
		    errno != EAGAIN && errno != EINTR)
			sched_yield();
}

/*
 * start_child() and wait for the child; *status gets its wait status
 * (-1 when no process was started or it was a thread).
 */
static long run_child(void *args, size_t size, clone3_fn fn, void *arg,
		      int *status)
{
	struct clone3_args *ca = args;
	long pid;

	*status = -1;
	pid = start_child(args, size, fn, arg);
	if (pid <= 0)
		return pid;
	if (ca->flags & CLONE_THREAD)
		wait_thread((__u32 *)(uintptr_t)ca->child_tid);
	else if (waitpid(pid, status, 0) != pid)
		return -ECHILD;
	return pid;
}

static int child_exit_ok(void *arg)
{
	return 0;
}

/* Did the child exit by itself with code 0? */
static bool exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- what is available ---- */

static bool clone3_available(struct __test_metadata *_metadata)
{
	int missing = clone3_missing_errno();

	if (missing)
		SKIP(return false, "clone3() is not implemented: %s",
		     strerror(missing));
	return true;
}

static bool stack_child_available(struct __test_metadata *_metadata)
{
	if (!CLONE3_HAVE_RUN)
		SKIP(return false,
		     "no CLONE_VM child start for this architecture");
	return true;
}

/*
 * Does the kernel take CLONE_CLEAR_SIGHAND alone?  If it refuses it with
 * EINVAL the flag_* tests skip, or fail when the environment says the
 * kernel under test must have the flag.
 */
static bool flag_available(struct __test_metadata *_metadata)
{
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND,
		.exit_signal = SIGCHLD,
	};
	long ret;
	int status;

	if (!clone3_available(_metadata))
		return false;
	ret = run_child(&args, sizeof(args), child_exit_ok, NULL, &status);
	if (ret == -EINVAL && !clone3_flag_required())
		SKIP(return false, "kernel refuses CLONE_CLEAR_SIGHAND (EINVAL)");
	ASSERT_LT(0, ret) {
		TH_LOG("clone3(CLONE_CLEAR_SIGHAND) failed: %s%s",
		       strerror((int)-ret),
		       clone3_flag_required() ?
		       " (CLONE3_REQUIRE_CLEAR_SIGHAND=1: the flag is required)" :
		       "");
	}
	ASSERT_TRUE(exited_ok(status)) {
		TH_LOG("probe child wait status 0x%x", status);
	}
	return true;
}

/* ---- acceptance: flags ---- */

FIXTURE(flag_abi) {
	int unused;
};

FIXTURE_SETUP(flag_abi)
{
}

FIXTURE_TEARDOWN(flag_abi)
{
}

/* Start a child that exits at once and check how clone3() answered. */
/*
 * A refused call must not have made a child on the way: none may be left,
 * running or exited.  Any that is found is waited for.
 */
static void expect_no_child(struct __test_metadata *_metadata,
			    const struct clone3_args *args, size_t size)
{
	int status;
	pid_t pid;

	pid = waitpid(-1, &status, __WALL | WNOHANG);
	EXPECT_EQ(-1, pid) {
		TH_LOG("flags 0x%llx size %zu: refused, but a child exists (waitpid: %d, %s)",
		       (unsigned long long)args->flags, size, (int)pid,
		       pid ? "exited" : "running");
	}
	while (pid >= 0)
		pid = waitpid(-1, &status, __WALL);
}

static void expect_clone3(struct __test_metadata *_metadata,
			  struct clone3_args *args, size_t size,
			  long expected)
{
	long ret;
	int status;

	ret = run_child(args, size, child_exit_ok, NULL, &status);
	if (expected) {
		EXPECT_EQ(expected, ret) {
			TH_LOG("flags 0x%llx size %zu: clone3() returned %ld (%s)",
			       (unsigned long long)args->flags, size, ret,
			       ret < 0 ? strerror((int)-ret) : "a child");
		}
		if (ret < 0)
			expect_no_child(_metadata, args, size);
		return;
	}
	EXPECT_LT(0, ret) {
		TH_LOG("flags 0x%llx size %zu: clone3() failed: %s",
		       (unsigned long long)args->flags, size,
		       strerror((int)-ret));
	}
	if (ret > 0 && !(args->flags & CLONE_THREAD))
		EXPECT_TRUE(exited_ok(status)) {
			TH_LOG("child wait status 0x%x", status);
		}
}

TEST_F(flag_abi, alone_accepted)
{
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND,
		.exit_signal = SIGCHLD,
	};

	if (!flag_available(_metadata))
		return;
	expect_clone3(_metadata, &args, sizeof(args), 0);
}

TEST_F(flag_abi, smallest_struct_accepted)
{
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND,
		.exit_signal = SIGCHLD,
	};

	if (!flag_available(_metadata))
		return;
	expect_clone3(_metadata, &args, CLONE_ARGS_SIZE_VER0, 0);
}

TEST_F(flag_abi, with_vm_vfork_accepted)
{
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND | CLONE_VM | CLONE_VFORK,
		.exit_signal = SIGCHLD,
	};

	if (!flag_available(_metadata) || !stack_child_available(_metadata))
		return;
	expect_clone3(_metadata, &args, sizeof(args), 0);
}

/* The same flags without CLONE_CLEAR_SIGHAND: see vm_sighand_accepted. */
TEST_F(flag_abi, with_sighand_rejected)
{
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND | CLONE_VM | CLONE_SIGHAND,
		.exit_signal = SIGCHLD,
	};

	if (!flag_available(_metadata) || !stack_child_available(_metadata))
		return;
	expect_clone3(_metadata, &args, sizeof(args), -EINVAL);
}

/* The same flags without it: see vm_sighand_thread_accepted. */
TEST_F(flag_abi, with_sighand_thread_rejected)
{
	__u32 tid = 1;
	struct clone3_args args = {
		.flags = CLONE_CLEAR_SIGHAND | CLONE_VM | CLONE_SIGHAND |
			 CLONE_THREAD | CLONE_CHILD_CLEARTID,
		.child_tid = (uintptr_t)&tid,
	};

	if (!flag_available(_metadata) || !stack_child_available(_metadata))
		return;
	expect_clone3(_metadata, &args, sizeof(args), -EINVAL);
}

/* ---- acceptance: struct sizes around the flag ---- */

/* A zeroed buffer of two pages holding the arguments at its start. */
static struct clone3_args *big_args(struct __test_metadata *_metadata,
				    size_t *page)
{
	void *buf;

	*page = (size_t)sysconf(_SC_PAGESIZE);
	buf = mmap(NULL, 2 * *page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)buf);
	return buf;
}

static void size_rules(struct __test_metadata *_metadata, __u64 flags)
{
	size_t page, size;
	struct clone3_args *args = big_args(_metadata, &page);
	char *bytes = (char *)args;

	args->flags = flags;
	args->exit_signal = SIGCHLD;
	for (size = 0; size < CLONE_ARGS_SIZE_VER0; size += 9)
		expect_clone3(_metadata, args, size, -EINVAL);
	expect_clone3(_metadata, args, CLONE_ARGS_SIZE_VER0 - 1, -EINVAL);
	expect_clone3(_metadata, args, CLONE_ARGS_SIZE_VER0, 0);
	expect_clone3(_metadata, args, sizeof(*args), 0);
	/* Larger than any kernel's struct, zero tail: accepted. */
	expect_clone3(_metadata, args, page, 0);
	/* Non-zero byte beyond the kernel's struct: E2BIG. */
	bytes[page - 1] = 1;
	expect_clone3(_metadata, args, page, -E2BIG);
	bytes[page - 1] = 0;
	/* More than a page: E2BIG even with a zero tail. */
	expect_clone3(_metadata, args, page + 1, -E2BIG);
	expect_clone3(_metadata, args, 2 * page, -E2BIG);
}

TEST_F(flag_abi, size_rules)
{
	if (!flag_available(_metadata))
		return;
	size_rules(_metadata, CLONE_CLEAR_SIGHAND);
}

TEST(size_rules_without_the_flag)
{
	if (!clone3_available(_metadata))
		return;
	size_rules(_metadata, 0);
}

/* ---- acceptance: bits clone3() refuses ---- */

TEST(undefined_bits_rejected)
{
	struct clone3_args args = { .exit_signal = SIGCHLD };
	int bit;

	if (!clone3_available(_metadata))
		return;
	for (bit = 0; bit < 64; bit++) {
		if (CLONE3_KNOWN_FLAGS & (1ULL << bit))
			continue;
		args.flags = 1ULL << bit;
		expect_clone3(_metadata, &args, sizeof(args), -EINVAL);
	}
}

/* Legacy bits clone3() takes out: CLONE_DETACHED and the CSIGNAL byte. */
TEST(detached_and_csignal_rejected)
{
	struct clone3_args args = { .exit_signal = SIGCHLD };
	int bit;

	if (!clone3_available(_metadata))
		return;
	args.flags = CLONE_DETACHED;
	expect_clone3(_metadata, &args, sizeof(args), -EINVAL);
	for (bit = 0; bit < 8; bit++) {
		if (!(CSIGNAL & ~CLONE_NEWTIME & (1ULL << bit)))
			continue;
		args.flags = 1ULL << bit;
		expect_clone3(_metadata, &args, sizeof(args), -EINVAL);
	}
}

/* Controls: without the flag these combinations must be taken. */
TEST(vm_sighand_accepted)
{
	struct clone3_args args = {
		.flags = CLONE_VM | CLONE_SIGHAND,
		.exit_signal = SIGCHLD,
	};

	if (!clone3_available(_metadata) || !stack_child_available(_metadata))
		return;
	expect_clone3(_metadata, &args, sizeof(args), 0);
}

TEST(vm_sighand_thread_accepted)
{
	__u32 tid = 1;
	struct clone3_args args = {
		.flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD |
			 CLONE_CHILD_CLEARTID,
		.child_tid = (uintptr_t)&tid,
	};

	if (!clone3_available(_metadata) || !stack_child_available(_metadata))
		return;
	expect_clone3(_metadata, &args, sizeof(args), 0);
	EXPECT_EQ(0, tid);
}

/* ---- the child's signal table ---- */

/* Saved parent state, restored on teardown (also after a failed ASSERT). */
struct sig_state {
	struct child_report *rep;
	struct ksigaction saved[KSIG_MAX + 1];
	unsigned long saved_mask[KSIG_WORDS];
	struct ksigaction installed[KSIG_MAX + 1];
	bool table_saved;
};

static void state_setup(struct __test_metadata *_metadata,
			struct sig_state *st)
{
	int sig;

	st->rep = mmap(NULL, sizeof(*st->rep), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)st->rep);
	ASSERT_EQ(0, ksigprocmask(SIG_BLOCK, NULL, st->saved_mask));
	for (sig = 1; sig <= KSIG_MAX; sig++)
		ASSERT_EQ(0, ksigaction(sig, NULL, &st->saved[sig])) {
			TH_LOG("rt_sigaction(%d) read failed", sig);
		}
	st->table_saved = true;
}

static void state_teardown(struct __test_metadata *_metadata,
			   struct sig_state *st)
{
	int sig;

	if (st->table_saved) {
		for (sig = 1; sig <= KSIG_MAX; sig++)
			if (catchable(sig))
				ksigaction(sig, &st->saved[sig], NULL);
		ksigprocmask(SIG_SETMASK, st->saved_mask, NULL);
	}
	if (st->rep && st->rep != MAP_FAILED)
		munmap(st->rep, sizeof(*st->rep));
}

/*
 * What the C library puts into the kernel's table for a plain handler
 * (SA_RESTORER and its restorer on some architectures), so that our raw
 * entries stay deliverable.  Also checks our struct layout.
 */
static void libc_template(struct __test_metadata *_metadata,
			  struct ksigaction *tmpl)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = test_handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, &old));
	ASSERT_EQ(0, ksigaction(SIGUSR1, NULL, tmpl));
	ASSERT_EQ(0, sigaction(SIGUSR1, &old, NULL));
	ASSERT_EQ((uintptr_t)test_handler, (uintptr_t)tmpl->handler) {
		TH_LOG("struct ksigaction does not match this kernel");
	}
	ASSERT_EQ(1ULL << (SIGUSR2 - 1), kset_bits(tmpl->mask)) {
		TH_LOG("struct ksigaction mask does not match this kernel");
	}
	memset(tmpl->mask, 0, sizeof(tmpl->mask));
}

/*
 * A restorer for every entry where the arch's struct has one: the C
 * library's if it gave one (its SA_RESTORER is in the template's flags),
 * else an address of ours that is never called, as every signal stays
 * blocked while the table is in place; then its flags lack SA_RESTORER
 * and the kernel would not use it.  A child must read 0 with the flag.
 */
static unsigned long table_restorer(const struct ksigaction *tmpl)
{
	return ksa_restorer(tmpl) ?: (unsigned long)test_handler;
}

static void table_entry(int sig, const struct ksigaction *tmpl,
			struct ksigaction *act)
{
	*act = *tmpl;
	ksa_set_restorer(act, table_restorer(tmpl));
	switch (sig_kind(sig)) {
	case KIND_CAUGHT:
		act->handler = (unsigned long)test_handler;
		break;
	case KIND_IGNORED:
		act->handler = (unsigned long)SIG_IGN;
		break;
	default:
		act->handler = (unsigned long)SIG_DFL;
		break;
	}
	act->flags |= SA_RESTART | SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	memset(act->mask, 0, sizeof(act->mask));
	kset_add(act->mask, SIGINT);
	kset_add(act->mask, 33);
	kset_add(act->mask, KSIG_MAX);
	kset_add(act->mask, sig % KSIG_MAX + 1);
}

/*
 * Block every signal (nothing is delivered while the test table is in
 * place), install the table for every catchable signal and read back
 * what the kernel stored into st->installed.
 */
static void install_table(struct __test_metadata *_metadata,
			  struct sig_state *st)
{
	struct ksigaction tmpl, act;
	unsigned long all[KSIG_WORDS];
	int sig;

	libc_template(_metadata, &tmpl);
	memset(all, 0xff, sizeof(all));
	ASSERT_EQ(0, ksigprocmask(SIG_SETMASK, all, NULL));
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!catchable(sig))
			continue;
		table_entry(sig, &tmpl, &act);
		ASSERT_EQ(0, ksigaction(sig, &act, NULL)) {
			TH_LOG("rt_sigaction(%d) set failed", sig);
		}
	}
	for (sig = 1; sig <= KSIG_MAX; sig++)
		ASSERT_EQ(0, ksigaction(sig, NULL, &st->installed[sig]));
}

/* Child: read the whole table and the blocked mask, raw syscalls only. */
static int child_read_table(void *arg)
{
	struct child_report *rep = arg;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++)
		if (ksigaction(sig, NULL, &rep->act[sig]))
			rep->read_errors++;
	if (ksigprocmask(SIG_BLOCK, NULL, rep->blocked))
		rep->read_errors++;
	return 0;
}

/* Clone with FLAGS, let the child read its table and check it did. */
static void clone_reader(struct __test_metadata *_metadata,
			 struct sig_state *st, __u64 flags)
{
	struct clone3_args args = {
		.flags = flags,
		.exit_signal = SIGCHLD,
	};
	long ret;
	int status;

	memset(st->rep, 0, sizeof(*st->rep));
	ret = run_child(&args, sizeof(args), child_read_table, st->rep,
			&status);
	ASSERT_LT(0, ret) {
		TH_LOG("clone3(flags 0x%llx) failed: %s",
		       (unsigned long long)flags, strerror((int)-ret));
	}
	ASSERT_TRUE(exited_ok(status)) {
		TH_LOG("reader child wait status 0x%x", status);
	}
	ASSERT_EQ(0, st->rep->read_errors);
}

static void log_entry(struct __test_metadata *_metadata, const char *who,
		      int sig, const struct ksigaction *act)
{
	TH_LOG("signal %d %s: handler %#lx flags 0x%lx restorer %#lx mask 0x%llx",
	       sig, who, act->handler, act->flags, ksa_restorer(act),
	       kset_bits(act->mask));
}

/* The parent's entry and the child's, for a check that failed. */
static void log_child_entry(struct __test_metadata *_metadata,
			    const struct sig_state *st, int sig)
{
	log_entry(_metadata, "parent", sig, &st->installed[sig]);
	log_entry(_metadata, "child", sig, &st->rep->act[sig]);
}

/* Is the child's entry the same as the parent's? */
static bool same_entry(const struct ksigaction *a, const struct ksigaction *b)
{
	return a->handler == b->handler && a->flags == b->flags &&
	       ksa_restorer(a) == ksa_restorer(b) &&
	       kset_bits(a->mask) == kset_bits(b->mask);
}

/* Can a table test with CLONE_FLAGS (and the flag, if WITH_FLAG) run? */
static bool table_test_ready(struct __test_metadata *_metadata,
			     __u64 clone_flags, bool with_flag)
{
	if (with_flag && !flag_available(_metadata))
		return false;
	if (!with_flag && !clone3_available(_metadata))
		return false;
	if ((clone_flags & CLONE_VM) && !stack_child_available(_metadata))
		return false;
#ifndef KSA_KNOWN_LAYOUT
	SKIP(return false, "kernel sigaction layout unknown on this arch");
#endif
	return true;
}

static bool flag_child_ready(struct __test_metadata *_metadata,
			     __u64 clone_flags)
{
	return table_test_ready(_metadata, clone_flags, true);
}

/*
 * Install the test table, clone with CLONE_FLAGS (and the flag, if
 * WITH_FLAG) a child that reads its own into st->rep.  False: skipped.
 */
static bool read_child_table(struct __test_metadata *_metadata,
			     struct sig_state *st, __u64 clone_flags,
			     bool with_flag)
{
	if (!table_test_ready(_metadata, clone_flags, with_flag))
		return false;
	install_table(_metadata, st);
	clone_reader(_metadata, st,
		     clone_flags | (with_flag ? CLONE_CLEAR_SIGHAND : 0));
	return true;
}

/*
 * The table tests run twice: variant fork (the child has its own copy of
 * memory) and vm_vfork (CLONE_VM | CLONE_VFORK, as posix_spawn() does).
 * The parent's signal state is saved and restored around each.
 */
FIXTURE(flag_child) {
	struct sig_state st;
};

FIXTURE_VARIANT(flag_child) {
	__u64 clone_flags;
};

FIXTURE_VARIANT_ADD(flag_child, fork) {
	.clone_flags = 0,
};

FIXTURE_VARIANT_ADD(flag_child, vm_vfork) {
	.clone_flags = CLONE_VM | CLONE_VFORK,
};

FIXTURE_SETUP(flag_child)
{
	state_setup(_metadata, &self->st);
}

FIXTURE_TEARDOWN(flag_child)
{
	state_teardown(_metadata, &self->st);
}

TEST_F(flag_child, resets_every_handler)
{
	struct child_report *rep = self->st.rep;
	int sig;

	if (!read_child_table(_metadata, &self->st, variant->clone_flags, true))
		return;
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (sig_kind(sig) == KIND_IGNORED && catchable(sig))
			continue;
		EXPECT_EQ((uintptr_t)SIG_DFL, (uintptr_t)rep->act[sig].handler) {
			log_child_entry(_metadata, &self->st, sig);
		}
	}
}

TEST_F(flag_child, keeps_ignored_signals_ignored)
{
	struct child_report *rep = self->st.rep;
	int sig;

	if (!read_child_table(_metadata, &self->st, variant->clone_flags, true))
		return;
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (sig_kind(sig) != KIND_IGNORED || !catchable(sig))
			continue;
		EXPECT_EQ((uintptr_t)SIG_IGN, (uintptr_t)rep->act[sig].handler) {
			log_child_entry(_metadata, &self->st, sig);
		}
	}
}

TEST_F(flag_child, clears_flags_and_masks)
{
	struct child_report *rep = self->st.rep;
	int sig;

	if (!read_child_table(_metadata, &self->st, variant->clone_flags, true))
		return;
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		EXPECT_EQ(0, rep->act[sig].flags) {
			log_child_entry(_metadata, &self->st, sig);
		}
		EXPECT_EQ(0, kset_bits(rep->act[sig].mask)) {
			log_child_entry(_metadata, &self->st, sig);
		}
	}
}

/*
 * sa_restorer, where the arch's struct has one, is part of the entry the
 * flag resets: a child must not inherit a trampoline address of the
 * parent's (nor one that a CLONE_VM child would share by accident).
 */
TEST_F(flag_child, clears_restorers)
{
	struct child_report *rep = self->st.rep;
	int sig;

#ifndef KSA_HAS_RESTORER
	SKIP(return, "this arch's struct sigaction has no sa_restorer");
#endif
	if (!read_child_table(_metadata, &self->st, variant->clone_flags, true))
		return;
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!catchable(sig))
			continue;
		/* Without a restorer in the parent this test cannot fail. */
		ASSERT_NE(0, ksa_restorer(&self->st.installed[sig])) {
			log_entry(_metadata, "parent", sig,
				  &self->st.installed[sig]);
		}
	}
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		EXPECT_EQ(0, ksa_restorer(&rep->act[sig])) {
			log_child_entry(_metadata, &self->st, sig);
		}
	}
}

TEST_F(flag_child, parent_table_unchanged)
{
	struct ksigaction after;
	int sig;

	if (!read_child_table(_metadata, &self->st, variant->clone_flags, true))
		return;
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		ASSERT_EQ(0, ksigaction(sig, NULL, &after));
		EXPECT_TRUE(same_entry(&self->st.installed[sig], &after)) {
			log_entry(_metadata, "before clone", sig,
				  &self->st.installed[sig]);
			log_entry(_metadata, "after clone", sig, &after);
		}
	}
}

/* Child: raise SIGUSR1, which the parent catches and keeps blocked. */
static int child_raise_blocked(void *arg)
{
	struct child_report *rep = arg;
	pid_t self = syscall(SYS_getpid);

	if (ksigprocmask(SIG_BLOCK, NULL, rep->blocked))
		rep->read_errors++;
	syscall(SYS_kill, self, SIGUSR1);
	if (syscall(SYS_rt_sigpending, rep->pending, sizeof(rep->pending)))
		rep->read_errors++;
	return 0;
}

TEST_F(flag_child, child_keeps_blocked_mask)
{
	struct clone3_args args = {
		.flags = variant->clone_flags | CLONE_CLEAR_SIGHAND,
		.exit_signal = SIGCHLD,
	};
	struct child_report *rep = self->st.rep;
	unsigned long block[KSIG_WORDS] = { 0 }, parent[KSIG_WORDS];
	struct sigaction sa = { .sa_handler = test_handler };
	long ret;
	int status;

	if (!flag_child_ready(_metadata, variant->clone_flags))
		return;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	kset_add(block, SIGUSR1);
	kset_add(block, SIGINT);
	kset_add(block, 33);
	kset_add(block, 40);
	kset_add(block, KSIG_MAX);
	ASSERT_EQ(0, ksigprocmask(SIG_SETMASK, block, NULL));
	ASSERT_EQ(0, ksigprocmask(SIG_BLOCK, NULL, parent));
	ret = run_child(&args, sizeof(args), child_raise_blocked, rep, &status);
	ASSERT_LT(0, ret);
	EXPECT_EQ(kset_bits(parent), kset_bits(rep->blocked)) {
		TH_LOG("blocked mask: parent 0x%llx, child 0x%llx",
		       kset_bits(parent), kset_bits(rep->blocked));
	}
	EXPECT_TRUE(exited_ok(status)) {
		TH_LOG("child raised blocked SIGUSR1, wait status 0x%x",
		       status);
	}
	EXPECT_TRUE(kset_has(rep->pending, SIGUSR1)) {
		TH_LOG("child's pending mask 0x%llx lacks SIGUSR1",
		       kset_bits(rep->pending));
	}
	EXPECT_EQ(0, rep->read_errors);
}

/* Child: send SIG to itself; reaching the end means it survived. */
static int child_raise(void *arg)
{
	int sig = (int)(uintptr_t)arg;

	syscall(SYS_kill, syscall(SYS_getpid), sig);
	return CHILD_SURVIVED;
}

static int clone_raiser(struct __test_metadata *_metadata,
			__u64 clone_flags, int sig)
{
	struct clone3_args args = {
		.flags = clone_flags | CLONE_CLEAR_SIGHAND,
		.exit_signal = SIGCHLD,
	};
	long ret;
	int status;

	ret = run_child(&args, sizeof(args), child_raise,
			(void *)(uintptr_t)sig, &status);
	EXPECT_LT(0, ret) {
		TH_LOG("clone3() failed: %s", strerror((int)-ret));
	}
	return status;
}

TEST_F(flag_child, caught_signal_kills_child)
{
	struct sigaction sa = { .sa_handler = test_handler };
	int status;

	if (!flag_child_ready(_metadata, variant->clone_flags))
		return;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	status = clone_raiser(_metadata, variant->clone_flags, SIGUSR1);
	EXPECT_TRUE(status != -1 && WIFSIGNALED(status) &&
		    WTERMSIG(status) == SIGUSR1) {
		TH_LOG("SIGUSR1 (caught in the parent) sent to the child: wait status 0x%x, %s",
		       status, WIFEXITED(status) && WEXITSTATUS(status) ==
		       CHILD_SURVIVED ? "child ran a handler and survived" :
		       "child did not die by SIGUSR1");
	}
}

TEST_F(flag_child, ignored_signal_not_delivered)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	int status;

	if (!flag_child_ready(_metadata, variant->clone_flags))
		return;
	ASSERT_EQ(0, sigaction(SIGUSR2, &sa, NULL));
	status = clone_raiser(_metadata, variant->clone_flags, SIGUSR2);
	EXPECT_TRUE(status != -1 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == CHILD_SURVIVED) {
		TH_LOG("SIGUSR2 (ignored in the parent) sent to the child: wait status 0x%x%s",
		       status, WIFSIGNALED(status) ?
		       ", the child was killed by it" : "");
	}
}

/* ---- control: without the flag the table is inherited as it is ---- */

/* The same two variants, never with the flag. */
FIXTURE(inherit) {
	struct sig_state st;
};

FIXTURE_VARIANT(inherit) {
	__u64 clone_flags;
};

FIXTURE_VARIANT_ADD(inherit, fork) {
	.clone_flags = 0,
};

FIXTURE_VARIANT_ADD(inherit, vm_vfork) {
	.clone_flags = CLONE_VM | CLONE_VFORK,
};

FIXTURE_SETUP(inherit)
{
	state_setup(_metadata, &self->st);
}

FIXTURE_TEARDOWN(inherit)
{
	state_teardown(_metadata, &self->st);
}

TEST_F(inherit, handlers_inherited_without_flag)
{
	struct child_report *rep = self->st.rep;
	int sig;

	if (!read_child_table(_metadata, &self->st, variant->clone_flags,
			      false))
		return;
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		EXPECT_TRUE(same_entry(&self->st.installed[sig],
				       &rep->act[sig])) {
			log_child_entry(_metadata, &self->st, sig);
		}
	}
}

TEST_HARNESS_MAIN
