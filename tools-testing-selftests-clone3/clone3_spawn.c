// SPDX-License-Identifier: GPL-2.0
/*
 * posix_spawn()-style spawner: clone3(CLONE_VM | CLONE_VFORK) on a stack of
 * its own, then execve().  The child shares the parent's memory, so until
 * execve() it must run no handler of the parent: SPAWN_FLAG asks the kernel
 * to reset them (CLONE_CLEAR_SIGHAND), SPAWN_CLASSIC resets them in the
 * child with one rt_sigaction() per signal, as glibc 2.36 does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <linux/types.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clone3_spawn.h"

#ifndef __NR_clone3
#define __NR_clone3 435
#endif

#define SPAWN_STACK_SIZE (64 * 1024)
#define SPAWN_SIGSET_SIZE (SPAWN_NSIG / 8)

/* The first published struct clone_args, all the spawner needs. */
struct spawn_clone_args {
	__aligned_u64 flags;
	__aligned_u64 pidfd;
	__aligned_u64 child_tid;
	__aligned_u64 parent_tid;
	__aligned_u64 exit_signal;
	__aligned_u64 stack;
	__aligned_u64 stack_size;
	__aligned_u64 tls;
};

/* What the parent hands to the child; the child writes back err and count. */
struct spawn_ctx {
	enum spawn_strategy strategy;
	const char *path;
	char *const *argv;
	char *const *envp;
	const struct spawn_hooks *hooks;
	unsigned long old_mask;
	unsigned long sig_calls;
	int err;
};

static long spawn_ret(long ret)
{
	return ret < 0 ? -errno : ret;
}

int spawn_sigaction(int sig, const struct spawn_ksigaction *act,
		    struct spawn_ksigaction *old)
{
	return spawn_ret(syscall(__NR_rt_sigaction, sig, act, old,
				 SPAWN_SIGSET_SIZE));
}

int spawn_sigprocmask(int how, const unsigned long *set, unsigned long *old)
{
	return spawn_ret(syscall(__NR_rt_sigprocmask, how, set, old,
				 SPAWN_SIGSET_SIZE));
}

const char *spawn_strategy_name(enum spawn_strategy strategy)
{
	return strategy == SPAWN_FLAG ? "flag" : "classic";
}

/*
 * clone3() that runs FN(ARG) on the new stack in the child and exits with
 * its return value; the parent gets the pid or a negative errno.  The
 * child cannot return through C code: its stack holds no caller frames.
 */
#if defined(__x86_64__)
#define SPAWN_SUPPORTED 1
static long spawn_clone3(struct spawn_clone_args *args, int (*fn)(void *),
			 void *arg)
{
	register long ret __asm__("rax") = __NR_clone3;
	register void *a0 __asm__("rdi") = args;
	register long a1 __asm__("rsi") = sizeof(*args);
	register void *a2 __asm__("rdx") = fn;
	register void *a3 __asm__("r8") = arg;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r8, %%rdi\n\t"
			 "call *%%rdx\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[nr_exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:\n\t"
			 : "+r" (ret)
			 : "r" (a0), "r" (a1), "r" (a2), "r" (a3),
			   [nr_exit] "i" (__NR_exit)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
#define SPAWN_SUPPORTED 1
static long spawn_clone3(struct spawn_clone_args *args, int (*fn)(void *),
			 void *arg)
{
	register long ret __asm__("x0") = (long)args;
	register long a1 __asm__("x1") = sizeof(*args);
	register void *a2 __asm__("x2") = fn;
	register void *a3 __asm__("x3") = arg;
	register long nr __asm__("x8") = __NR_clone3;

	__asm__ volatile("svc #0\n\t"
			 "cbnz x0, 1f\n\t"
			 "mov x29, xzr\n\t"
			 "mov x0, x3\n\t"
			 "blr x2\n\t"
			 "mov x8, %[nr_exit]\n\t"
			 "svc #0\n\t"
			 "brk #0\n"
			 "1:\n\t"
			 : "+r" (ret)
			 : "r" (a1), "r" (a2), "r" (a3), "r" (nr),
			   [nr_exit] "i" (__NR_exit)
			 : "memory");
	return ret;
}
#elif defined(__riscv) && __riscv_xlen == 64
#define SPAWN_SUPPORTED 1
static long spawn_clone3(struct spawn_clone_args *args, int (*fn)(void *),
			 void *arg)
{
	register long ret __asm__("a0") = (long)args;
	register long a1 __asm__("a1") = sizeof(*args);
	register void *a2 __asm__("a2") = fn;
	register void *a3 __asm__("a3") = arg;
	register long nr __asm__("a7") = __NR_clone3;

	__asm__ volatile("ecall\n\t"
			 "bnez a0, 1f\n\t"
			 "mv s0, zero\n\t"
			 "mv a0, a3\n\t"
			 "jalr a2\n\t"
			 "li a7, %[nr_exit]\n\t"
			 "ecall\n\t"
			 "ebreak\n"
			 "1:\n\t"
			 : "+r" (ret)
			 : "r" (a1), "r" (a2), "r" (a3), "r" (nr),
			   [nr_exit] "i" (__NR_exit)
			 : "memory");
	return ret;
}
#else
#define SPAWN_SUPPORTED 0
static long spawn_clone3(struct spawn_clone_args *args, int (*fn)(void *),
			 void *arg)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * clone3() with a struct smaller than its first version fails with EINVAL
 * where the system call exists, and with another error where it does not.
 */
bool clone3_spawn_available(void)
{
	return SPAWN_SUPPORTED && syscall(__NR_clone3, NULL, 0) < 0 &&
	       errno == EINVAL;
}

/* Ask for every signal's disposition, reset each caught one to SIG_DFL. */
static void spawn_reset_handlers(struct spawn_ctx *c)
{
	const struct spawn_ksigaction dfl = {
		.handler = (unsigned long)SIG_DFL,
	};
	struct spawn_ksigaction cur;
	int sig;

	for (sig = 1; sig <= SPAWN_NSIG; sig++) {
		c->sig_calls++;
		if (spawn_sigaction(sig, NULL, &cur))
			continue;
		if (cur.handler == (unsigned long)SIG_DFL ||
		    cur.handler == (unsigned long)SIG_IGN)
			continue;
		c->sig_calls++;
		spawn_sigaction(sig, &dfl, NULL);
	}
}

/* The child: raw system calls only, on the spawner's own stack. */
static int spawn_child(void *arg)
{
	struct spawn_ctx *c = arg;

	if (c->strategy == SPAWN_CLASSIC)
		spawn_reset_handlers(c);
	c->sig_calls++;
	spawn_sigprocmask(SIG_SETMASK, &c->old_mask, NULL);
	if (c->hooks && c->hooks->before_exec)
		c->hooks->before_exec(c->hooks->data);
	c->err = -spawn_ret(syscall(__NR_execve, c->path, c->argv, c->envp));
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
	struct spawn_clone_args args = {
		.flags = CLONE_VM | CLONE_VFORK,
		.exit_signal = SIGCHLD,
		.stack_size = SPAWN_STACK_SIZE,
	};
	const unsigned long all = ~0UL;
	void *stack;
	long pid;

	if (!SPAWN_SUPPORTED)
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
	spawn_sigprocmask(SIG_SETMASK, &all, &c.old_mask);
	pid = spawn_clone3(&args, spawn_child, &c);
	spawn_sigprocmask(SIG_SETMASK, &c.old_mask, NULL);
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
