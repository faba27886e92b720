// SPDX-License-Identifier: GPL-2.0
/*
 * posix_spawn()-style spawner: clone3(CLONE_VM | CLONE_VFORK) on a stack of
 * its own, then execve().  The child shares the parent's memory, so until
 * execve() it must run no handler of the parent: SPAWN_FLAG asks the kernel
 * to reset them (CLONE_CLEAR_SIGHAND), SPAWN_CLASSIC resets them in the
 * child with one rt_sigaction() per signal, as glibc 2.36 does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clone3_spawn.h"

#define SPAWN_STACK_SIZE (64 * 1024)

/* What the parent hands to the child; the child writes back err and count. */
struct spawn_ctx {
	enum spawn_strategy strategy;
	const char *path;
	char *const *argv;
	char *const *envp;
	const struct spawn_hooks *hooks;
	unsigned long old_mask[KSIG_WORDS];
	unsigned long sig_calls;
	int err;
};

const char *spawn_strategy_name(enum spawn_strategy strategy)
{
	return strategy == SPAWN_FLAG ? "flag" : "classic";
}

bool clone3_spawn_available(void)
{
	return CLONE3_HAVE_RUN && !clone3_missing_errno();
}

/* Ask for every signal's disposition, reset each caught one to SIG_DFL. */
static void spawn_reset_handlers(struct spawn_ctx *c)
{
	const struct ksigaction dfl = {
		.handler = (unsigned long)SIG_DFL,
	};
	struct ksigaction cur;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		c->sig_calls++;
		if (ksigaction(sig, NULL, &cur))
			continue;
		if (cur.handler == (unsigned long)SIG_DFL ||
		    cur.handler == (unsigned long)SIG_IGN)
			continue;
		c->sig_calls++;
		ksigaction(sig, &dfl, NULL);
	}
}

/* The child: raw system calls only, on the spawner's own stack. */
static int spawn_child(void *arg)
{
	struct spawn_ctx *c = arg;

	if (c->strategy == SPAWN_CLASSIC)
		spawn_reset_handlers(c);
	c->sig_calls++;
	ksigprocmask(SIG_SETMASK, c->old_mask, NULL);
	if (c->hooks && c->hooks->before_exec)
		c->hooks->before_exec(c->hooks->data);
	c->err = -sys_ret(syscall(__NR_execve, c->path, c->argv, c->envp));
	return 127;
}

pid_t clone3_spawn(enum spawn_strategy strategy, const char *path,
		   char *const argv[], char *const envp[],
		   const struct spawn_hooks *hooks)
{
	struct spawn_ctx c = {
		.strategy = strategy,
		.path = path,
		.argv = argv,
		.envp = envp,
		.hooks = hooks,
	};
	struct clone3_args args = {
		.flags = CLONE_VM | CLONE_VFORK,
		.exit_signal = SIGCHLD,
		.stack_size = SPAWN_STACK_SIZE,
	};
	unsigned long all[KSIG_WORDS];
	void *stack;
	long pid;

	if (!CLONE3_HAVE_RUN)
		return -EOPNOTSUPP;
	if (strategy == SPAWN_FLAG)
		args.flags |= CLONE_CLEAR_SIGHAND;
	stack = mmap(NULL, SPAWN_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE,
		     -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	args.stack = (uintptr_t)stack;

	/* No handler of ours may run in the child before it resets them. */
	memset(all, 0xff, sizeof(all));
	ksigprocmask(SIG_SETMASK, all, c.old_mask);
	pid = clone3_run_on_stack(&args, sizeof(args), spawn_child, &c);
	ksigprocmask(SIG_SETMASK, c.old_mask, NULL);
	munmap(stack, SPAWN_STACK_SIZE);

	if (pid <= 0)
		return pid < 0 ? pid : -EIO;
	if (hooks && hooks->sig_syscalls)
		*hooks->sig_syscalls += c.sig_calls;
	if (c.err) {
		waitpid(pid, NULL, 0);
		return -c.err;
	}
	return pid;
}
