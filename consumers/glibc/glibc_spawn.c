// SPDX-License-Identifier: GPL-2.0
/*
 * glibc_spawn: glibc's own posix_spawn(), the program CLONE_CLEAR_SIGHAND
 * was made for, run on the running kernel.  Since glibc 2.38 posix_spawn()
 * asks clone3(CLONE_VM | CLONE_VFORK | CLONE_CLEAR_SIGHAND) and, when the
 * kernel refuses it with ENOSYS or EINVAL, falls back to clone() and resets
 * every handler in the child itself, one sigaction() per signal.
 *
 * Prints one KTAP document; exit 0 when every row passed or skipped, 1
 * otherwise.  Rows:
 *   spawn_path             which path glibc took, seen by a tracer of our
 *                          own (ptrace, PTRACE_GET_SYSCALL_INFO)
 *   child_signal_syscalls  sigaction calls the spawned child made before
 *                          its execve(), with handlers on every signal
 *   pre_exec_<sig>         a signal that reaches the child while a file
 *                          action holds it runs no handler of the parent
 *                          and takes its default action
 *   sig_ign_kept           SIG_IGN stays ignored in the exec'd program
 *   setsigdef, setsigmask  POSIX_SPAWN_SETSIGDEF and POSIX_SPAWN_SETSIGMASK
 *   enoent                 a missing program: ENOENT, and no zombie
 *
 * CLONE3_GLIBC_EXPECT=clone3: the kernel has the flag, glibc must use
 * clone3 with it; =fallback: the kernel lacks it, glibc's clone3 must fail
 * with EINVAL and glibc must fall back; unset (the gate's guests): any of
 * those paths passes spawn_path, and one more row, flag_clone3_path,
 * passes on the clone3 path only (the gate expects a kernel without the
 * flag to fail the rows named flag_* and only those).
 *
 * The exec'd program is this one in child mode: "--exit N" exits with N,
 * "--report FD" writes its ignored and blocked signals to FD.  Where a
 * static build of this file lies beside it as glibc_spawn_target (the
 * gate's guests), that one is exec'd instead: it starts without a
 * dynamic loader, some ten times faster under TCG; what runs before the
 * exec, glibc's posix_spawn(), is this program's glibc all the same.
 *
 * CLONE3_GLIBC_BENCH=N (make bench) prints no KTAP rows but a table: the
 * microseconds one posix_spawn() and waitpid() of the target take (the
 * median of three rounds of N spawns) with 0, 8 and 64 handlers installed
 * (64: every signal that takes one), the path glibc took and the
 * sigaction calls its child made before exec; then the same rows of the
 * static target, whose posix_spawn() is the glibc it was linked with
 * (Debian 12's 2.36 in the gate's guests).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define FLAG_CLEAR_SIGHAND	0x100000000ULL
#define SPAWN_FLAGS		(CLONE_VM | CLONE_VFORK)
#define EXIT_CODE		42
#define MAX_SIG			64
#define MAX_TASKS		8
#define MAX_CALLS		4
#define HELPER_TIMEOUT		5
#define REPORT_FD		3

#ifndef SYS_clone3
#define SYS_clone3		435
#endif
#ifndef PTRACE_GET_SYSCALL_INFO
#define PTRACE_GET_SYSCALL_INFO	0x420e
#endif
#define SYSCALL_INFO_ENTRY	1
#define SYSCALL_INFO_EXIT	2

/* struct ptrace_syscall_info of the uapi, as far as we read it. */
struct syscall_info {
	__u8 op;
	__u8 pad[3];
	__u32 arch;
	__u64 instruction_pointer;
	__u64 stack_pointer;
	union {
		struct {
			__u64 nr;
			__u64 args[6];
		} entry;
		struct {
			__s64 rval;
			__u8 is_error;
		} exit;
		struct {
			__u64 nr;
			__u64 args[6];
			__u32 ret_data;
		} seccomp;
	};
};

enum expect { EXPECT_NONE, EXPECT_CLONE3, EXPECT_FALLBACK };

static const char *self;		/* the program spawned in child mode */
static enum expect expect;
static int nr_tests, nr_failed;
/* The time each row took, printed at the end (guests run under TCG). */
static double last_ms;
static char timing[512];
static size_t timing_len;

/* What the handlers write: the parent's memory a CLONE_VM child shares. */
static pid_t owner;
static volatile sig_atomic_t own_hits;
static volatile sig_atomic_t foreign_hits;
static volatile sig_atomic_t foreign_sig;

/* The signals glibc lets a program catch: sigaction() takes a handler. */
static int catchable[MAX_SIG + 1];
static int max_sig;
/* CLONE3_GLIBC_BENCH: spawns per round, 0 for the KTAP rows. */
static int bench_spawns;
/* install_handlers() covers the first this many catchable signals. */
static int handler_limit = MAX_SIG;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void row_time(void)
{
	double now = now_ms();

	if (timing_len < sizeof(timing) - 16)
		timing_len += snprintf(timing + timing_len,
				       sizeof(timing) - timing_len, " %.1f",
				       now - last_ms);
	last_ms = now;
}

static void result(int ok, const char *name)
{
	row_time();
	nr_tests++;
	if (!ok)
		nr_failed++;
	printf("%sok %d %s\n", ok ? "" : "not ", nr_tests, name);
}

static void skip(const char *name, const char *reason)
{
	row_time();
	nr_tests++;
	printf("ok %d %s # SKIP %s\n", nr_tests, name, reason);
}

static unsigned long long sigbit(int sig)
{
	return 1ULL << (sig - 1);
}

static void on_signal(int sig)
{
	/* getpid() is a system call: in a CLONE_VM child it names the child. */
	if (getpid() == owner) {
		own_hits++;
	} else {
		foreign_hits++;
		foreign_sig = sig;
	}
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGSYS;
}

/*
 * A handler on every signal that takes one; saved[] keeps what was there.
 * A fault's handler is reset once run, so that a real fault still ends us.
 */
static void install_handlers(struct sigaction *saved)
{
	struct sigaction sa;
	int sig, n;

	owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (sig = 1, n = 0; sig <= max_sig && n < handler_limit; sig++) {
		if (!catchable[sig])
			continue;
		n++;
		sa.sa_flags = SA_RESTART | (is_fault(sig) ? SA_RESETHAND : 0);
		sigaction(sig, &sa, &saved[sig]);
	}
}

static void restore_handlers(const struct sigaction *saved)
{
	int sig, n;

	for (sig = 1, n = 0; sig <= max_sig && n < handler_limit; sig++)
		if (catchable[sig]) {
			n++;
			sigaction(sig, &saved[sig], NULL);
		}
}

/* Which signals take a handler; prints those that do not. */
static int find_catchable(void)
{
	struct sigaction sa, old;
	char refused[128] = "";
	size_t len = 0;
	int sig, n = 0;

	max_sig = SIGRTMAX;
	if (max_sig > MAX_SIG)
		max_sig = MAX_SIG;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (sig = 1; sig <= max_sig; sig++) {
		if (sigaction(sig, NULL, &old) == 0 &&
		    sigaction(sig, &sa, NULL) == 0) {
			sigaction(sig, &old, NULL);
			catchable[sig] = 1;
			n++;
		} else if (len < sizeof(refused) - 8) {
			len += snprintf(refused + len, sizeof(refused) - len,
					" %d", sig);
		}
	}
	if (!bench_spawns)
		printf("# handlers go on %d signals of 1..%d; sigaction refuses:%s\n",
		       n, max_sig, refused);
	return n;
}

static unsigned long long catchable_set(void)
{
	unsigned long long set = 0;
	int sig;

	for (sig = 1; sig <= max_sig; sig++)
		if (catchable[sig])
			set |= sigbit(sig);
	return set;
}

static unsigned long long mask_bits(const sigset_t *set)
{
	unsigned long long bits = 0;
	int sig;

	for (sig = 1; sig <= max_sig; sig++)
		if (catchable[sig] && sigismember(set, sig) == 1)
			bits |= sigbit(sig);
	return bits;
}

static void describe_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "status %#x", status);
}

/* ---- child mode: what runs after posix_spawn()'s execve() ---- */

static int child_report(int fd)
{
	unsigned long long ign = 0, blk = 0, hnd = 0, err = 0;
	struct sigaction sa;
	sigset_t set;
	char line[160];
	int sig, len;

	for (sig = 1; sig <= MAX_SIG && sig <= SIGRTMAX; sig++) {
		if (sigaction(sig, NULL, &sa)) {
			err |= sigbit(sig);
			continue;
		}
		if (sa.sa_handler == SIG_IGN)
			ign |= sigbit(sig);
		else if (sa.sa_handler != SIG_DFL)
			hnd |= sigbit(sig);
	}
	if (sigprocmask(SIG_BLOCK, NULL, &set))
		return 2;
	for (sig = 1; sig <= MAX_SIG && sig <= SIGRTMAX; sig++)
		if (sigismember(&set, sig) == 1)
			blk |= sigbit(sig);
	len = snprintf(line, sizeof(line), "ign=%llx blk=%llx hnd=%llx err=%llx\n",
		       ign, blk, hnd, err);
	return write(fd, line, len) == len ? 0 : 3;
}

static int bench_rows(const char *argv0, const char *spawns);

static int child_mode(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--exit"))
		return atoi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--report"))
		return child_report(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--bench-rows"))
		return bench_rows(argv[0], argv[2]);
	fprintf(stderr, "usage: %s [--exit N | --report FD | --bench-rows N]\n",
		argv[0]);
	return 2;
}

/* ---- spawn_path, child_signal_syscalls: the tracer ---- */

struct task {
	pid_t pid;
	int spawned;		/* made by the spawner's clone3/clone/vfork */
	int execed;		/* entered execve: stop counting */
	long entry_nr;		/* the system call it is in, -1 none */
	unsigned long long entry_flags;
	int flags_err;		/* the clone3 flags could not be read */
};

/* One call of the spawner that makes a task. */
struct spawn_call {
	const char *name;	/* clone3, clone, vfork, fork */
	unsigned long long flags;
	int flags_err;		/* clone3's struct could not be read */
	long long ret;		/* the new pid, or -errno */
};

struct trace {
	struct task tasks[MAX_TASKS];
	int nr_tasks;
	pid_t spawner;
	/* the spawner's clone3/clone/vfork/fork calls, in order */
	struct spawn_call calls[MAX_CALLS];
	int nr_calls;
	/* the spawned child until its execve */
	pid_t child;
	int child_sigaction, child_sigmask;
	int child_exec_entered, child_exec_done;
	/* the spawner's own result */
	int spawn_rc, child_status, spawner_status;
	int error;
	char why[160];
};

static int is_sigaction_nr(long nr)
{
	if (nr == SYS_rt_sigaction)
		return 1;
#ifdef SYS_sigaction
	if (nr == SYS_sigaction)
		return 1;
#endif
#ifdef SYS_signal
	if (nr == SYS_signal)
		return 1;
#endif
	return 0;
}

static int is_sigmask_nr(long nr)
{
	if (nr == SYS_rt_sigprocmask)
		return 1;
#ifdef SYS_sigprocmask
	if (nr == SYS_sigprocmask)
		return 1;
#endif
#ifdef SYS_ssetmask
	if (nr == SYS_ssetmask || nr == SYS_sgetmask)
		return 1;
#endif
	return 0;
}

static int is_exec_nr(long nr)
{
	return nr == SYS_execve || nr == SYS_execveat;
}

/* clone(), vfork() or fork(): the name, or NULL. */
static const char *clone_nr_name(long nr)
{
	if (nr == SYS_clone)
		return "clone";
#ifdef SYS_vfork
	if (nr == SYS_vfork)
		return "vfork";
#endif
#ifdef SYS_fork
	if (nr == SYS_fork)
		return "fork";
#endif
	return NULL;
}

/* clone()'s flags: the first argument, the second on s390. */
static unsigned long long clone_arg_flags(const struct syscall_info *si)
{
#if defined(__s390__)
	return si->entry.args[1];
#else
	return si->entry.args[0];
#endif
}

/* Read a u64 of the tracee word by word (a 32-bit tracer has 4-byte words). */
static int peek_u64(pid_t pid, __u64 addr, unsigned long long *val)
{
	unsigned char buf[8];
	size_t off;

	for (off = 0; off < sizeof(buf); off += sizeof(long)) {
		long word;

		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, pid,
			      (void *)(unsigned long)(addr + off), NULL);
		if (word == -1 && errno)
			return -1;
		memcpy(buf + off, &word, sizeof(word));
	}
	memcpy(val, buf, sizeof(*val));
	return 0;
}

static struct task *find_task(struct trace *t, pid_t pid, int add)
{
	int i;

	for (i = 0; i < t->nr_tasks; i++)
		if (t->tasks[i].pid == pid)
			return &t->tasks[i];
	if (!add || t->nr_tasks == MAX_TASKS)
		return NULL;
	/* the spawner makes one task only: any other is the child */
	t->tasks[t->nr_tasks] = (struct task){
		.pid = pid, .entry_nr = -1, .spawned = pid != t->spawner,
	};
	return &t->tasks[t->nr_tasks++];
}

static void mark_spawned(struct trace *t, pid_t pid)
{
	find_task(t, pid, 1);
	if (!t->child)
		t->child = pid;
}

/* The spawner: handlers on every signal, one posix_spawn(), its result. */
static void spawner(int go, int res)
{
	struct sigaction saved[MAX_SIG + 1];
	char code[16];
	char *argv[] = { (char *)self, "--exit", code, NULL };
	int out[2] = { -1, -1 };
	pid_t pid;
	char c;

	snprintf(code, sizeof(code), "%d", EXIT_CODE);
	install_handlers(saved);
	if (read(go, &c, 1) != 1)
		_exit(3);
	out[0] = posix_spawn(&pid, self, NULL, NULL, argv, environ);
	if (!out[0] && waitpid(pid, &out[1], 0) != pid)
		out[1] = -1;
	if (write(res, out, sizeof(out)) != sizeof(out))
		_exit(4);
	_exit(0);
}

static void syscall_entry(struct trace *t, struct task *k, struct syscall_info *si)
{
	long nr = (long)si->entry.nr;
	const char *name;

	k->entry_nr = nr;
	if (k->spawned && !k->execed) {
		if (is_sigaction_nr(nr)) {
			t->child_sigaction++;
		} else if (is_sigmask_nr(nr)) {
			t->child_sigmask++;
		} else if (is_exec_nr(nr)) {
			k->execed = 1;
			t->child_exec_entered = 1;
		}
		return;
	}
	if (k->spawned)
		return;
	/* the spawner */
	if (nr == SYS_clone3) {
		k->flags_err = peek_u64(k->pid, si->entry.args[0],
					&k->entry_flags);
		return;
	}
	name = clone_nr_name(nr);
	if (name)
		k->entry_flags = clone_arg_flags(si);
}

static void syscall_exit(struct trace *t, struct task *k, struct syscall_info *si)
{
	long nr = k->entry_nr;
	long long ret = si->exit.rval;
	struct spawn_call *c;
	const char *name;

	k->entry_nr = -1;
	if (k->spawned)
		return;
	name = nr == SYS_clone3 ? "clone3" : clone_nr_name(nr);
	if (!name || t->nr_calls == MAX_CALLS)
		return;
	c = &t->calls[t->nr_calls++];
	c->name = name;
	c->flags = k->entry_flags;
	c->flags_err = nr == SYS_clone3 && k->flags_err;
	c->ret = ret;
	if (ret > 0)
		mark_spawned(t, (pid_t)ret);
}

static void trace_error(struct trace *t, const char *what)
{
	if (!t->error)
		snprintf(t->why, sizeof(t->why), "%s: %s", what,
			 strerror(errno));
	t->error = 1;
}

/*
 * Fork the spawner, trace it and every task it makes, and fill t.
 * Returns 0, or -1 when the tracer itself failed (t->why says how).
 */
static int trace_spawn(struct trace *t)
{
	const long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
			  PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
			  PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
	int go[2], res[2], status, out[2];
	pid_t spawner_pid, pid;

	memset(t, 0, sizeof(*t));
	t->spawn_rc = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(res, O_CLOEXEC)) {
		trace_error(t, "pipe2");
		return -1;
	}
	fflush(stdout);
	spawner_pid = fork();
	if (spawner_pid < 0) {
		trace_error(t, "fork");
		return -1;
	}
	if (!spawner_pid) {
		close(go[1]);
		close(res[0]);
		spawner(go[0], res[1]);
	}
	close(go[0]);
	close(res[1]);
	t->spawner = spawner_pid;
	find_task(t, spawner_pid, 1);

	if (ptrace(PTRACE_SEIZE, spawner_pid, NULL, (void *)opts) ||
	    ptrace(PTRACE_INTERRUPT, spawner_pid, NULL, NULL)) {
		trace_error(t, "PTRACE_SEIZE");
		kill(spawner_pid, SIGKILL);
		waitpid(spawner_pid, NULL, 0);
		close(go[1]);
		close(res[0]);
		return -1;
	}
	/* The spawner waits for go while we trace it from its first stop. */
	for (;;) {
		struct syscall_info si;
		unsigned long msg;
		struct task *k;
		int sig, event;

		pid = waitpid(-1, &status, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				trace_error(t, "waitpid");
			break;
		}
		k = find_task(t, pid, 1);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (pid == spawner_pid) {
				t->spawner_status = status;
				break;
			}
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		sig = WSTOPSIG(status);
		event = (unsigned int)status >> 16;
		if (sig == (SIGTRAP | 0x80)) {
			memset(&si, 0, sizeof(si));
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid,
				   (void *)sizeof(si), &si) <= 0) {
				trace_error(t, "PTRACE_GET_SYSCALL_INFO");
			} else if (k && si.op == SYSCALL_INFO_ENTRY) {
				syscall_entry(t, k, &si);
			} else if (k && si.op == SYSCALL_INFO_EXIT) {
				syscall_exit(t, k, &si);
			}
			sig = 0;
		} else if (event == PTRACE_EVENT_FORK ||
			   event == PTRACE_EVENT_VFORK ||
			   event == PTRACE_EVENT_CLONE) {
			if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) &&
			    k && !k->spawned)
				mark_spawned(t, (pid_t)msg);
			sig = 0;
		} else if (event == PTRACE_EVENT_EXEC) {
			if (k && k->spawned) {
				t->child_exec_done = 1;
				/* nothing more to see: let it run untraced */
				ptrace(PTRACE_DETACH, pid, NULL, NULL);
				continue;
			}
			sig = 0;
		} else if (event == PTRACE_EVENT_STOP) {
			/* the first stop: the spawner may go on */
			if (pid == spawner_pid && go[1] >= 0) {
				if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL))
					trace_error(t, "PTRACE_SYSCALL");
				if (write(go[1], "g", 1) != 1)
					trace_error(t, "write");
				close(go[1]);
				go[1] = -1;
				continue;
			}
			sig = 0;
		}
		/* anything else is a signal for the tracee: deliver it */
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) &&
		    errno != ESRCH)
			trace_error(t, "PTRACE_SYSCALL");
	}
	if (go[1] >= 0)
		close(go[1]);
	if (read(res[0], out, sizeof(out)) == sizeof(out)) {
		t->spawn_rc = out[0];
		t->child_status = out[1];
	}
	close(res[0]);
	/* a tracee left behind (tracer error) goes with the tracer's kill */
	while (waitpid(-1, &status, __WALL | WNOHANG) > 0)
		;
	return t->error ? -1 : 0;
}

enum path { PATH_NONE, PATH_CLONE3, PATH_FALLBACK, PATH_OLD, PATH_OTHER };

static const char *path_name(enum path p)
{
	switch (p) {
	case PATH_CLONE3:
		return "clone3 with CLONE_CLEAR_SIGHAND";
	case PATH_FALLBACK:
		return "clone3 with CLONE_CLEAR_SIGHAND refused (EINVAL), fallback";
	case PATH_OLD:
		return "no CLONE_CLEAR_SIGHAND asked (old glibc)";
	case PATH_OTHER:
		return "unexpected";
	default:
		return "no task made";
	}
}

static int has_flag(const struct spawn_call *c)
{
	return !strcmp(c->name, "clone3") && !c->flags_err &&
	       (c->flags & FLAG_CLEAR_SIGHAND);
}

/*
 * clone3 path: one call, clone3 with the flag (and CLONE_VM | CLONE_VFORK),
 * and it made the child.  Fallback: that call failed with EINVAL, the next
 * (clone(), or clone3 without the flag) made it.  Old: no call asked the
 * flag and one made the child.
 */
static enum path classify(const struct trace *t)
{
	const struct spawn_call *c = t->calls;
	int i, flag = 0;

	if (!t->nr_calls)
		return PATH_NONE;
	for (i = 0; i < t->nr_calls; i++)
		flag |= has_flag(&c[i]);
	if (!flag)
		return c[t->nr_calls - 1].ret > 0 ? PATH_OLD : PATH_OTHER;
	if (!has_flag(&c[0]) || (c[0].flags & SPAWN_FLAGS) != SPAWN_FLAGS)
		return PATH_OTHER;
	if (t->nr_calls == 1 && c[0].ret > 0)
		return PATH_CLONE3;
	if (t->nr_calls == 2 && c[0].ret == -EINVAL && !has_flag(&c[1]) &&
	    c[1].ret > 0)
		return PATH_FALLBACK;
	return PATH_OTHER;
}

static void print_trace(const struct trace *t)
{
	char buf[320], st[64];
	size_t len = 0;
	int i;

	len += snprintf(buf + len, sizeof(buf) - len, "# glibc %s:",
			gnu_get_libc_version());
	for (i = 0; i < t->nr_calls; i++) {
		const struct spawn_call *c = &t->calls[i];

		if (c->flags_err)
			len += snprintf(buf + len, sizeof(buf) - len,
					" %s flags=?", c->name);
		else
			len += snprintf(buf + len, sizeof(buf) - len,
					" %s flags=%#llx", c->name, c->flags);
		if (c->ret >= 0)
			len += snprintf(buf + len, sizeof(buf) - len, " -> ok;");
		else
			len += snprintf(buf + len, sizeof(buf) - len, " -> -%s;",
					strerrorname_np(-c->ret) ?: "?");
	}
	if (!t->nr_calls)
		len += snprintf(buf + len, sizeof(buf) - len, " no clone;");
	snprintf(buf + len, sizeof(buf) - len,
		 " child signal syscalls before exec: %d (sigaction %d, sigprocmask %d)",
		 t->child_sigaction + t->child_sigmask, t->child_sigaction,
		 t->child_sigmask);
	printf("%s\n", buf);
	describe_status(st, sizeof(st), t->child_status);
	printf("# posix_spawn -> %d (%s), child %s, exec %s\n", t->spawn_rc,
	       t->spawn_rc ? strerror(t->spawn_rc) : "ok", st,
	       t->child_exec_done ? "seen" : "not seen");
}

static void test_path(void)
{
	struct trace t;
	enum path p;
	int spawned_ok, ok;

	if (trace_spawn(&t)) {
		printf("# tracer: %s\n", t.why);
		if (expect == EXPECT_NONE) {
			skip("spawn_path", "cannot trace");
			skip("flag_clone3_path", "cannot trace");
			skip("child_signal_syscalls", "cannot trace");
		} else {
			result(0, "spawn_path");
			result(0, "child_signal_syscalls");
		}
		return;
	}
	print_trace(&t);
	p = classify(&t);
	printf("# path: %s\n", path_name(p));
	spawned_ok = !t.spawn_rc && WIFEXITED(t.child_status) &&
		     WEXITSTATUS(t.child_status) == EXIT_CODE &&
		     t.child_exec_done;
	if (!spawned_ok)
		printf("# the child did not spawn correctly (want exit %d after exec)\n",
		       EXIT_CODE);
	switch (expect) {
	case EXPECT_CLONE3:
		ok = p == PATH_CLONE3;
		break;
	case EXPECT_FALLBACK:
		ok = p == PATH_FALLBACK;
		break;
	default:
		ok = p == PATH_CLONE3 || p == PATH_FALLBACK || p == PATH_OLD;
		break;
	}
	if (!ok)
		printf("# want path: %s\n", expect == EXPECT_CLONE3 ?
		       path_name(PATH_CLONE3) : expect == EXPECT_FALLBACK ?
		       path_name(PATH_FALLBACK) : "any that spawns");
	result(ok && spawned_ok, "spawn_path");
	/*
	 * Unset (the gate's guests): the clone3 path is a row of its own, named
	 * as the gate names a test that needs the flag (a kernel without it
	 * must fail that row and pass every other).
	 */
	if (expect == EXPECT_NONE) {
		if (p != PATH_CLONE3)
			printf("# glibc did not take the clone3 path with CLONE_CLEAR_SIGHAND\n");
		result(p == PATH_CLONE3 && spawned_ok, "flag_clone3_path");
	}

	/* With the flag the kernel resets the handlers: no sigaction at all. */
	if (p == PATH_CLONE3)
		ok = t.child_exec_entered && t.child_sigaction == 0;
	else if (p == PATH_FALLBACK || p == PATH_OLD)
		ok = t.child_exec_entered && t.child_sigaction > 0;
	else
		ok = 0;
	if (!ok)
		printf("# want %s sigaction calls in the child before exec, seen %d\n",
		       p == PATH_CLONE3 ? "no" : "some", t.child_sigaction);
	result(ok, "child_signal_syscalls");
}

/* ---- the semantics, through glibc only ---- */

static char fifo_dir[PATH_MAX];

static int make_fifos(char *a, char *b, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fifo_dir, sizeof(fifo_dir), "%s/glibc_spawn.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fifo_dir)) {
		snprintf(fifo_dir, sizeof(fifo_dir), "/glibc_spawn.XXXXXX");
		if (!mkdtemp(fifo_dir))
			return -1;
	}
	snprintf(a, len, "%s/a", fifo_dir);
	snprintf(b, len, "%s/b", fifo_dir);
	if (mkfifo(a, 0600) || mkfifo(b, 0600))
		return -1;
	return 0;
}

static void remove_fifos(const char *a, const char *b)
{
	unlink(a);
	unlink(b);
	rmdir(fifo_dir);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * The helper: leads the process group the child joins, meets the child at
 * FIFO a (the child is in the group and past its clone), sends the signal
 * to the group, then opens FIFO b, where the child waits, so that the
 * signal is there before the child can reach execve().  Exits when the
 * parent closes done (posix_spawn() returned).
 */
static void helper(int sig, const char *a, const char *b, int ready, int done)
{
	struct sigaction sa;
	sigset_t set;
	int fa, fb, code = 0;
	char c;

	setpgid(0, 0);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(HELPER_TIMEOUT);
	if (write(ready, "r", 1) != 1)
		_exit(10);
	close(ready);
	fa = open(a, O_RDONLY);
	if (fa < 0) {
		/* the child never came: let it through, report */
		fa = open(a, O_RDONLY | O_NONBLOCK);
		code = 11;
	} else if (kill(-getpid(), sig)) {
		code = 12;
	}
	fb = open(b, O_RDWR);
	if (fb < 0)
		code = 13;
	while (read(done, &c, 1) > 0)
		;
	close(fa);
	close(fb);
	_exit(code);
}

/*
 * Spawn this program with "--exit 42" while sig is sent to the child
 * between its clone and its execve (handlers on every signal); check it
 * ends as sig's default action says and no handler ran in it.
 */
static void test_pre_exec(int sig, const char *name, int terminates)
{
	struct sigaction saved[MAX_SIG + 1];
	char a[PATH_MAX + 4], b[PATH_MAX + 4], code[16], st[64], hst[64];
	char *argv[] = { (char *)self, "--exit", code, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int ready[2], done[2], rc, status = 0, hstatus = 0, ok;
	pid_t hpid, pid = 0;
	char c;

	snprintf(code, sizeof(code), "%d", EXIT_CODE);
	if (make_fifos(a, b, sizeof(a))) {
		printf("# %s: FIFOs in %s: %s\n", name, fifo_dir, strerror(errno));
		result(0, name);
		return;
	}
	if (pipe2(ready, O_CLOEXEC) || pipe2(done, O_CLOEXEC)) {
		printf("# %s: pipe2: %s\n", name, strerror(errno));
		result(0, name);
		remove_fifos(a, b);
		return;
	}
	fflush(stdout);
	hpid = fork();
	if (hpid < 0) {
		printf("# %s: fork: %s\n", name, strerror(errno));
		result(0, name);
		remove_fifos(a, b);
		return;
	}
	if (!hpid) {
		close(ready[0]);
		close(done[1]);
		helper(sig, a, b, ready[1], done[0]);
	}
	close(ready[1]);
	close(done[0]);
	setpgid(hpid, hpid);
	if (read(ready[0], &c, 1) != 1)
		printf("# %s: the helper did not start\n", name);
	close(ready[0]);

	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, hpid);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 10, a, O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, 10);
	posix_spawn_file_actions_addopen(&fa, 10, b, O_RDONLY, 0);
	posix_spawn_file_actions_addclose(&fa, 10);

	install_handlers(saved);
	own_hits = 0;
	foreign_hits = 0;
	foreign_sig = 0;
	rc = posix_spawn(&pid, self, &fa, &attr, argv, environ);
	close(done[1]);
	if (!rc && waitpid(pid, &status, 0) != pid)
		status = -1;
	waitpid(hpid, &hstatus, 0);
	restore_handlers(saved);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	remove_fifos(a, b);

	describe_status(st, sizeof(st), status);
	describe_status(hst, sizeof(hst), hstatus);
	ok = !rc && !foreign_hits && !foreign_sig &&
	     WIFEXITED(hstatus) && !WEXITSTATUS(hstatus);
	if (terminates)
		ok = ok && WIFSIGNALED(status) && WTERMSIG(status) == sig;
	else
		ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CODE;
	if (!ok)
		printf("# %s: posix_spawn -> %d (%s), child %s (want %s), helper %s\n",
		       name, rc, rc ? strerror(rc) : "ok", st,
		       terminates ? "killed by the signal" : "exit 42", hst);
	if (foreign_hits || foreign_sig)
		printf("# %s: a handler of ours ran in the child: %d times, last signal %d\n",
		       name, (int)foreign_hits, (int)foreign_sig);
	result(ok, name);
}

static int move_fd(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	if (nfd < 0)
		return fd;
	close(fd);
	return nfd;
}

/*
 * Spawn this program with "--report 3" (a pipe on fd 3) under attr and
 * read what it says: its ignored and blocked signals.
 */
static int spawn_report(const char *name, const posix_spawnattr_t *attr,
			unsigned long long *ign, unsigned long long *blk)
{
	char fdarg[16], line[200], st[64];
	char *argv[] = { (char *)self, "--report", fdarg, NULL };
	posix_spawn_file_actions_t fa;
	unsigned long long hnd, err;
	int p[2], rc, status = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	snprintf(fdarg, sizeof(fdarg), "%d", REPORT_FD);
	if (pipe2(p, O_CLOEXEC)) {
		printf("# %s: pipe2: %s\n", name, strerror(errno));
		return -1;
	}
	/* away from REPORT_FD, which dup2 onto itself would leave close-on-exec */
	p[0] = move_fd(p[0]);
	p[1] = move_fd(p[1]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], REPORT_FD);
	rc = posix_spawn(&pid, self, &fa, attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc) {
		close(p[0]);
		printf("# %s: posix_spawn -> %d (%s), want 0\n", name, rc,
		       strerror(rc));
		return -1;
	}
	while (len < sizeof(line) - 1 &&
	       (n = read(p[0], line + len, sizeof(line) - 1 - len)) > 0)
		len += n;
	line[len] = 0;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	describe_status(st, sizeof(st), status);
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    sscanf(line, "ign=%llx blk=%llx hnd=%llx err=%llx", ign, blk,
		   &hnd, &err) != 4) {
		printf("# %s: the exec'd program %s and said '%.*s'\n", name,
		       st, (int)strcspn(line, "\n"), line);
		return -1;
	}
	if (hnd) {
		printf("# %s: handlers after exec: %#llx\n", name, hnd);
		return -1;
	}
	return 0;
}

static int current_mask(unsigned long long *bits)
{
	sigset_t set;

	if (sigprocmask(SIG_BLOCK, NULL, &set))
		return -1;
	*bits = mask_bits(&set);
	return 0;
}

static void check_sets(const char *name, unsigned long long ign,
		       unsigned long long want_ign, unsigned long long blk,
		       unsigned long long want_blk)
{
	unsigned long long all = catchable_set();
	int ok;

	ign &= all;
	blk &= all;
	ok = ign == want_ign && blk == want_blk;
	if (!ok)
		printf("# %s: ignored %#llx (want %#llx), blocked %#llx (want %#llx)\n",
		       name, ign, want_ign, blk, want_blk);
	result(ok, name);
}

/* Dispositions for a spawn: handlers everywhere, SIG_IGN on ign_sigs. */
static void set_ignored(struct sigaction *saved, const int *ign_sigs,
			unsigned long long *ign)
{
	int i;

	install_handlers(saved);
	*ign = 0;
	for (i = 0; ign_sigs[i]; i++) {
		signal(ign_sigs[i], SIG_IGN);
		*ign |= sigbit(ign_sigs[i]);
	}
}

static void test_sig_ign(void)
{
	const int ign_sigs[] = { SIGUSR2, SIGPIPE, SIGRTMIN + 2, 0 };
	struct sigaction saved[MAX_SIG + 1];
	unsigned long long want_ign, want_blk, ign, blk;

	set_ignored(saved, ign_sigs, &want_ign);
	if (current_mask(&want_blk) ||
	    spawn_report("sig_ign_kept", NULL, &ign, &blk)) {
		restore_handlers(saved);
		result(0, "sig_ign_kept");
		return;
	}
	restore_handlers(saved);
	check_sets("sig_ign_kept", ign, want_ign, blk, want_blk);
}

static void test_setsigdef(void)
{
	const int ign_sigs[] = { SIGUSR2, SIGPIPE, 0 };
	struct sigaction saved[MAX_SIG + 1];
	unsigned long long want_ign, want_blk, ign, blk;
	posix_spawnattr_t attr;
	sigset_t def;

	posix_spawnattr_init(&attr);
	sigemptyset(&def);
	sigaddset(&def, SIGUSR2);
	sigaddset(&def, SIGTERM);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	set_ignored(saved, ign_sigs, &want_ign);
	want_ign &= ~sigbit(SIGUSR2);
	if (current_mask(&want_blk) ||
	    spawn_report("setsigdef", &attr, &ign, &blk)) {
		restore_handlers(saved);
		posix_spawnattr_destroy(&attr);
		result(0, "setsigdef");
		return;
	}
	restore_handlers(saved);
	posix_spawnattr_destroy(&attr);
	check_sets("setsigdef", ign, want_ign, blk, want_blk);
}

static void test_setsigmask(void)
{
	const int mask_sigs[] = { SIGHUP, SIGINT, SIGRTMIN + 1, SIGRTMAX, 0 };
	const int ign_sigs[] = { 0 };
	struct sigaction saved[MAX_SIG + 1];
	unsigned long long want_ign, want_blk = 0, ign, blk;
	posix_spawnattr_t attr;
	sigset_t mask, ours, old;
	int i, bad;

	posix_spawnattr_init(&attr);
	sigemptyset(&mask);
	for (i = 0; mask_sigs[i]; i++) {
		sigaddset(&mask, mask_sigs[i]);
		want_blk |= sigbit(mask_sigs[i]);
	}
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	/* Our own mask differs: the child's must be the attribute's alone. */
	sigemptyset(&ours);
	sigaddset(&ours, SIGUSR1);
	sigaddset(&ours, SIGQUIT);
	sigprocmask(SIG_BLOCK, &ours, &old);
	set_ignored(saved, ign_sigs, &want_ign);
	bad = spawn_report("setsigmask", &attr, &ign, &blk);
	restore_handlers(saved);
	sigprocmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&attr);
	if (bad) {
		result(0, "setsigmask");
		return;
	}
	check_sets("setsigmask", ign, want_ign, blk, want_blk);
}

static void test_enoent(void)
{
	char *argv[] = { "glibc_spawn-missing", NULL };
	const char *path = "/nonexistent/glibc_spawn-missing";
	int rc, status, ok, zombie;
	pid_t pid = 0, w;

	rc = posix_spawn(&pid, path, NULL, NULL, argv, environ);
	/* Every child of ours has been waited for: none may be left. */
	w = waitpid(-1, &status, WNOHANG);
	zombie = !(w < 0 && errno == ECHILD);
	ok = rc == ENOENT && !zombie;
	if (!ok)
		printf("# posix_spawn(%s) -> %d (%s), want ENOENT; waitpid(-1, WNOHANG) -> %d%s\n",
		       path, rc, strerrorname_np(rc) ?: "?", (int)w,
		       zombie ? ", a child is left" : "");
	result(ok, "enoent");
}

static const char *find_self(const char *argv0)
{
	static char buf[PATH_MAX], target[PATH_MAX + 32];
	const char *found = argv0;
	char *slash;
	ssize_t n;

	/* Run through an explicit loader, /proc/self/exe is the loader. */
	if (!strchr(argv0, '/') || access(argv0, X_OK)) {
		n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = 0;
			found = buf;
		}
	}
	/* The static build beside it, when there is one. */
	snprintf(target, sizeof(target), "%s", found);
	slash = strrchr(target, '/');
	if (slash) {
		snprintf(slash + 1, sizeof(target) - (slash + 1 - target),
			 "glibc_spawn_target");
		if (!access(target, X_OK))
			return target;
	}
	return found;
}

/* ---- the bench: posix_spawn() per call ---- */

#define BENCH_ROUNDS		3
#define BENCH_MAX_SPAWNS	10000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Microseconds per posix_spawn() + waitpid(), the median of the rounds. */
static double time_spawns(void)
{
	char *argv[] = { (char *)self, "--exit", "0", NULL };
	double per[BENCH_ROUNDS], t0;
	int r, i, status;
	pid_t pid;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		t0 = now_ms();
		for (i = 0; i < bench_spawns; i++) {
			if (posix_spawn(&pid, self, NULL, NULL, argv, environ) ||
			    waitpid(pid, &status, 0) != pid ||
			    !WIFEXITED(status) || WEXITSTATUS(status))
				return -1;
		}
		per[r] = (now_ms() - t0) * 1000.0 / bench_spawns;
	}
	qsort(per, BENCH_ROUNDS, sizeof(per[0]), cmp_double);
	return per[BENCH_ROUNDS / 2];
}

static int parse_spawns(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || end == s || n < 1 || n > BENCH_MAX_SPAWNS)
		return -1;
	return n;
}

/*
 * One table row per number of handlers, this program's glibc:
 * | glibc | handlers | us per spawn | path | sigaction calls in the child |
 */
static int bench_rows(const char *argv0, const char *spawns)
{
	static const int handlers[] = { 0, 8, 64 };
	struct sigaction saved[MAX_SIG + 1];
	struct trace t;
	unsigned int i;
	int n, failed = 0;
	double us;

	bench_spawns = parse_spawns(spawns);
	if (bench_spawns < 0) {
		printf("# CLONE3_GLIBC_BENCH=%s: want 1..%d spawns\n", spawns,
		       BENCH_MAX_SPAWNS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	self = find_self(argv0);
	n = find_catchable();
	for (i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		handler_limit = handlers[i] < n ? handlers[i] : n;
		install_handlers(saved);
		us = time_spawns();
		restore_handlers(saved);
		/* the tracer's spawner installs handler_limit handlers too */
		if (trace_spawn(&t) || us < 0) {
			printf("| %s | %d | %s | | |\n", gnu_get_libc_version(),
			       handler_limit, us < 0 ? "spawn failed" : t.why);
			failed = 1;
			continue;
		}
		printf("| %s | %d | %.0f | %s | %d |\n", gnu_get_libc_version(),
		       handler_limit, us, path_name(classify(&t)),
		       t.child_sigaction);
	}
	return failed;
}

/* The table: this program's rows, then the static target's. */
static int bench(const char *argv0, const char *spawns)
{
	char *argv[] = { NULL, "--bench-rows", (char *)spawns, NULL };
	int rc, status;
	pid_t pid;

	printf("| glibc | handlers | us per spawn | path | child's sigaction calls |\n");
	printf("|---|---|---|---|---|\n");
	rc = bench_rows(argv0, spawns);
	if (rc == 2 || strcmp(self + strlen(self) - strlen("_target"),
			      "_target"))
		return rc;
	argv[0] = (char *)self;
	fflush(stdout);
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) != pid)
		return 1;
	return rc || !WIFEXITED(status) || WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	const char *e = getenv("CLONE3_GLIBC_EXPECT");
	double start = now_ms();

	if (argc > 1)
		return child_mode(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("CLONE3_GLIBC_BENCH"))
		return bench(argv[0], getenv("CLONE3_GLIBC_BENCH"));
	printf("TAP version 13\n");
	if (e && !strcmp(e, "clone3")) {
		expect = EXPECT_CLONE3;
	} else if (e && !strcmp(e, "fallback")) {
		expect = EXPECT_FALLBACK;
	} else if (e && *e) {
		printf("1..0 # SKIP CLONE3_GLIBC_EXPECT=%s: want clone3 or fallback\n",
		       e);
		return 1;
	}
	self = find_self(argv[0]);
	printf("1..%d\n", expect == EXPECT_NONE ? 11 : 10);
	printf("# glibc %s (%s), expect %s, exec'd program %s\n",
	       gnu_get_libc_version(), gnu_get_libc_release(),
	       expect == EXPECT_CLONE3 ? "clone3" :
	       expect == EXPECT_FALLBACK ? "fallback" : "none", self);
	find_catchable();
	last_ms = now_ms();

	test_path();
	test_pre_exec(SIGCHLD, "pre_exec_sigchld", 0);
	test_pre_exec(SIGWINCH, "pre_exec_sigwinch", 0);
	test_pre_exec(SIGURG, "pre_exec_sigurg", 0);
	test_pre_exec(SIGUSR1, "pre_exec_sigusr1", 1);
	test_sig_ign();
	test_setsigdef();
	test_setsigmask();
	test_enoent();

	printf("# ms per row:%s\n", timing);
	printf("# %d rows, %d failed, %.1f ms\n", nr_tests, nr_failed,
	       now_ms() - start);
	return nr_failed ? 1 : 0;
}
