// SPDX-License-Identifier: GPL-2.0
/*
 * clone3() ABI probe: a fixed table of clone3() calls, the same on every
 * architecture, and for each one line
 *
 *	# abi: <input-id> <result> <key=value...>
 *
 * that says what the kernel did: the result ("ok" or the errno name)
 * and, for a child that was made, what it inherited, read in the child
 * and handed back through shared memory.  It asserts nothing: two kernels
 * are compared by diffing their lines (scripts/abi_diff.py,
 * Documentation/abi-diff.md).  The one result, "ok 1 abi_probe", fails
 * only when the probe itself could not run to its end.
 *
 * Before each call the caller sets up the same state R: handlers of
 * every kind (caught, SIG_IGN and SIG_DFL, each with flags, a mask and
 * a restorer where the arch has one) across signals 1..64, some blocked
 * signals, one of them pending, an alternate signal stack and a
 * parent-death signal (the handler table is read back after every call,
 * and set again only when it is not R).  A child's handler table is
 * printed against R ("same"; "cleared": what resetting every
 * handler but SIG_IGN gives; else the entries that differ), and so is the
 * caller's own state after the call.  Nothing that differs from run to
 * run (pids, addresses) is printed, nor anything that differs by
 * architecture by design (the page size is "page", the alternate stack
 * is "same" or not).
 *
 * Safety: the calls are made by a process of ours (the caller) whose
 * parent, this program, is a child subreaper and reaps whatever is left,
 * CLONE_PARENT children included; every child only reads its state,
 * writes it down and exits, namespaces die with it.  A child that shares
 * our memory runs on a stack of its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "clone3_raw.h"

#if O_EXCL != CLONE3_PIDFD_THREAD
#error "PIDFD_THREAD is O_EXCL: this arch's O_EXCL is not the one pinned"
#endif
#if O_TRUNC != CLONE3_PIDFD_AUTOKILL
#error "PIDFD_AUTOKILL is O_TRUNC: this arch's O_TRUNC is not the one pinned"
#endif

#define CHILD_STACK	(64 * 1024)
#define ALT_STACK	(64 * 1024)
#define MAX_INPUTS	512
#define LINE_MAX_LEN	4096
#define WAIT_NS		2000000000LL
/* How long a child may take to die once its autokill pidfd is closed. */
#define ONCLOSE_MS	500

/* Sizes that are not numbers in the table. */
#define SIZE_PAGE	-1
#define SIZE_PAGE_PLUS	-2

/* R: signals 2 10 17 34 40 63 64 blocked, SIGUSR1 pending. */
#define R_PENDING	SIGUSR1
#define R_PDEATH	63

enum stack_kind {
	STACK_NONE,		/* stack 0, stack_size 0 */
	STACK_MAPPED,		/* a mapping of ours and its size */
	STACK_NO_SIZE,		/* a mapping, stack_size 0 */
	STACK_NO_BASE,		/* stack 0, a size */
	STACK_KERNEL,		/* an address no program may use */
	STACK_HUGE,		/* a mapping, stack_size 2^63 */
};

static const char * const stack_name[] = {
	[STACK_NONE] = NULL,
	[STACK_MAPPED] = "stack=mapped",
	[STACK_NO_SIZE] = "stack=mapped stack_size=0",
	[STACK_NO_BASE] = "stack=0 stack_size=mapped",
	[STACK_KERNEL] = "stack=0xffffffffffff0000",
	[STACK_HUGE] = "stack=mapped stack_size=2^63",
};

struct input {
	__u64 flags;
	int exit_signal;
	int size;		/* bytes, or SIZE_PAGE, SIZE_PAGE_PLUS */
	bool tail;		/* a non-zero word past the fields we set */
	enum stack_kind stack;
	bool nocap;		/* the caller lacks CAP_SYS_ADMIN for the call */
};

/* One handler-table entry as rt_sigaction() gives it. */
struct entry {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;	/* 0 where the arch's struct has none */
	unsigned long long mask;
};

struct state {
	struct entry tab[KSIG_MAX];
	unsigned long long blocked;
	unsigned long long pending;
};

/* What the child writes down, in memory shared with the caller. */
struct record {
	int done;
	int hold;		/* set: the child waits for the caller to clear it */
	struct state st;
	stack_t alt;
	int pdeath;
	pid_t pid, tid, ppid, pgrp, sid;
	int nnp;		/* PR_GET_NO_NEW_PRIVS */
	int mntns;		/* enum mntns */
};

/* The child's mount namespace against the caller's. */
enum mntns {
	MNTNS_SAME,		/* the caller's */
	MNTNS_NEW,		/* another, where /proc is still mounted */
	MNTNS_EMPTY,		/* no /proc, and "/" holds nothing */
	MNTNS_OTHER,		/* no /proc, and "/" holds something */
};

static const char * const mntns_name[] = {
	[MNTNS_SAME] = "same",
	[MNTNS_NEW] = "new",
	[MNTNS_EMPTY] = "empty",
	[MNTNS_OTHER] = "other",
};

struct caller {
	pid_t pid, parent, pgrp, sid;
	struct record *rec;
};

static struct input inputs[MAX_INPUTS];
static int nr_inputs;
static struct state ref;		/* R as the kernel keeps it */
static struct ksigaction want[KSIG_MAX];	/* R as we set it */
static unsigned long long alt_stack[ALT_STACK / 8];
static unsigned long long argbuf_words[(2 * 65536 + 64) / 8];
static unsigned char *const argbuf = (unsigned char *)argbuf_words;
/* How much of argbuf the last call wrote: what the next one clears. */
static size_t argbuf_dirty = sizeof(argbuf_words);
static long page_size;
static int closed_fd;
static int pidfd_out;
static pid_t parent_tid_out, child_tid_out;
static bool tab_dirty;
static struct stat caller_mnt;	/* the caller's /proc/thread-self/ns/mnt */

static void handler(int sig)
{
	(void)sig;
}

static unsigned long long bit(int sig)
{
	return 1ULL << (sig - 1);
}

static unsigned long long read_set(const unsigned long *set)
{
	return kset_bits(set);
}

static void write_set(unsigned long *set, unsigned long long bits)
{
	int sig;

	memset(set, 0, KSIG_SETSIZE);
	for (sig = 1; sig <= KSIG_MAX; sig++)
		if (bits & bit(sig))
			kset_add(set, sig);
}

static bool settable(int sig)
{
	return sig != SIGKILL && sig != SIGSTOP;
}

/* R's entry for SIG: the kind by a rule that spreads all three over 1..64. */
static void make_want(void)
{
	static const unsigned long flag_sets[] = {
		SA_RESTART, SA_SIGINFO | SA_RESTART, SA_NODEFER, 0,
		SA_ONSTACK | SA_SIGINFO, SA_RESETHAND,
	};
	unsigned long long mask;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		struct ksigaction *ka = &want[sig - 1];

		memset(ka, 0, sizeof(*ka));
		if (!settable(sig))
			continue;
		if (sig != SIGCHLD && sig % 4 == 3)
			ka->handler = (unsigned long)SIG_IGN;
		else if (sig % 8 == 5)
			ka->handler = (unsigned long)SIG_DFL;
		else
			ka->handler = (unsigned long)handler;
		ka->flags = flag_sets[sig % 6];
		/* Never called: no signal of R is ever delivered. */
		ksa_set_restorer(ka, (unsigned long)handler);
		mask = 1ULL << (sig % 64) | 1ULL << (sig * 7 % 64) |
		       1ULL << ((sig * 29 + 3) % 64);
		write_set(ka->mask, mask);
	}
}

static void to_entry(struct entry *e, const struct ksigaction *ka)
{
	e->handler = ka->handler;
	e->flags = ka->flags;
	e->restorer = ksa_restorer(ka);
	e->mask = read_set(ka->mask);
}

static unsigned long long blocked_want(void)
{
	return bit(SIGINT) | bit(SIGUSR1) | bit(SIGCHLD) | bit(34) | bit(40) |
	       bit(63) | bit(64);
}

/* Read this task's blocked and pending sets. */
static void read_sets(struct state *st)
{
	unsigned long set[KSIG_WORDS];

	memset(set, 0, sizeof(set));
	ksigprocmask(SIG_BLOCK, NULL, set);
	st->blocked = read_set(set);
	memset(set, 0, sizeof(set));
	syscall(__NR_rt_sigpending, set, KSIG_SETSIZE);
	st->pending = read_set(set);
}

/* Read this task's handler table, blocked and pending sets. */
static void read_state(struct state *st)
{
	struct ksigaction ka;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		memset(&ka, 0, sizeof(ka));
		if (ksigaction(sig, NULL, &ka))
			ka.handler = ~0UL;
		to_entry(&st->tab[sig - 1], &ka);
	}
	read_sets(st);
}

/*
 * Set up R.  The handler table, 62 calls, only when TAB: the caller's
 * table is read after every call and set again when it is not R.
 */
static int set_state(bool tab)
{
	unsigned long set[KSIG_WORDS];
	stack_t ss = { .ss_sp = alt_stack, .ss_size = ALT_STACK };
	int sig, ret = 0;

	for (sig = 1; tab && sig <= KSIG_MAX; sig++)
		if (settable(sig) && ksigaction(sig, &want[sig - 1], NULL))
			ret = -1;
	write_set(set, blocked_want());
	if (ksigprocmask(SIG_SETMASK, set, NULL))
		ret = -1;
	if (kill(getpid(), R_PENDING) || sigaltstack(&ss, NULL) ||
	    prctl(PR_SET_PDEATHSIG, R_PDEATH))
		ret = -1;
	return ret;
}

static long long now_ns(void);

/*
 * The child's mount namespace, read in the child: its
 * /proc/thread-self/ns/mnt against the caller's ("same" or "new"); where
 * that cannot be read (a namespace without /proc), whether its "/" holds
 * any entry ("other") or none ("empty": 7.1's CLONE_EMPTY_MNTNS).  Raw
 * getdents64 into a buffer on the stack: a child that shares our memory
 * must not allocate.
 */
static int mntns_of_self(void)
{
	char buf[512];
	struct stat st;
	unsigned short reclen;
	long n, off;
	int fd, entries = 0;

	if (!stat("/proc/thread-self/ns/mnt", &st))
		return st.st_dev == caller_mnt.st_dev &&
		       st.st_ino == caller_mnt.st_ino ? MNTNS_SAME : MNTNS_NEW;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return MNTNS_OTHER;
	while ((n = syscall(__NR_getdents64, fd, buf, sizeof(buf))) > 0) {
		/* d_ino, d_off (8 bytes each), d_reclen (2), d_type, d_name */
		for (off = 0; off < n; off += reclen) {
			const char *name = buf + off + 19;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (!reclen)
				break;
			if (strcmp(name, ".") && strcmp(name, ".."))
				entries++;
		}
	}
	close(fd);
	return entries ? MNTNS_OTHER : MNTNS_EMPTY;
}

/* The child: write down what it inherited, then exit. */
static int child_main(void *arg)
{
	struct caller *c = arg;
	struct record *r = c->rec;
	long long end;

	read_state(&r->st);
	sigaltstack(NULL, &r->alt);
	prctl(PR_GET_PDEATHSIG, &r->pdeath);
	r->pid = getpid();
	r->tid = syscall(__NR_gettid);
	r->ppid = getppid();
	r->pgrp = getpgid(0);
	r->sid = getsid(0);
	r->nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	r->mntns = mntns_of_self();
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	/*
	 * Stay alive while the caller reads what its pidfd refers to: a
	 * thread is reaped as it exits, and its pidfd would then name no
	 * task.  Bounded, as every wait of the probe is.
	 */
	end = now_ns() + WAIT_NS;
	while (__atomic_load_n(&r->hold, __ATOMIC_ACQUIRE) && now_ns() < end)
		sched_yield();
	return 0;
}

/* -- printing --------------------------------------------------------- */

struct line {
	char buf[LINE_MAX_LEN];
	size_t len;
};

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof(l->buf) - l->len ?
			  (size_t)n : sizeof(l->buf) - l->len - 1;
}

/* "EINVAL", or "errno<n>" for a number the C library cannot name. */
static const char *errno_name(int err)
{
	static char other[16];
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(other, sizeof(other), "errno%d", err);
	return other;
}

static void add_flags(struct line *l, __u64 flags)
{
	const char *sep = "";
	int b;

	if (!flags) {
		add(l, "flags=0");
		return;
	}
	add(l, "flags=");
	for (b = 0; b < 64; b++) {
		if (!(flags & 1ULL << b))
			continue;
		if (clone3_flag_name(b))
			add(l, "%s%s", sep, clone3_flag_name(b));
		else
			add(l, "%sbit%d", sep, b);
		sep = "|";
	}
}

static void add_id(struct line *l, const struct input *in)
{
	add_flags(l, in->flags);
	if (in->exit_signal != SIGCHLD)
		add(l, " exit_signal=%d", in->exit_signal);
	if (stack_name[in->stack])
		add(l, " %s", stack_name[in->stack]);
	if (in->size == SIZE_PAGE)
		add(l, " size=page");
	else if (in->size == SIZE_PAGE_PLUS)
		add(l, " size=page+8");
	else
		add(l, " size=%d", in->size);
	if (in->tail)
		add(l, " tail=nonzero");
	if (in->nocap)
		add(l, " nocap=CAP_SYS_ADMIN");
}

static void add_sigs(struct line *l, const unsigned long long sigs)
{
	const char *sep = "";
	int sig, end;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!(sigs & bit(sig)))
			continue;
		for (end = sig; end < KSIG_MAX && (sigs & bit(end + 1)); end++)
			;
		if (end == sig)
			add(l, "%s%d", sep, sig);
		else
			add(l, "%s%d-%d", sep, sig, end);
		sep = ",";
		sig = end;
	}
}

static char entry_class(unsigned long handler_addr)
{
	if (handler_addr == (unsigned long)SIG_DFL)
		return 'D';
	if (handler_addr == (unsigned long)SIG_IGN)
		return 'I';
	if (handler_addr == (unsigned long)handler)
		return 'H';
	return 'O';
}

static bool entry_eq(const struct entry *a, const struct entry *b)
{
	return a->handler == b->handler && a->flags == b->flags &&
	       a->restorer == b->restorer && a->mask == b->mask;
}

/* What resetting every handler but SIG_IGN, flags and masks too, gives. */
static void cleared(struct entry *out, const struct entry *in)
{
	out->handler = in->handler == (unsigned long)SIG_IGN ?
		       (unsigned long)SIG_IGN : (unsigned long)SIG_DFL;
	out->flags = 0;
	out->restorer = 0;
	out->mask = 0;
}

/*
 * A handler table against R: "same", "cleared", or groups
 * "<signals>:<class>/<sa_flags>/<sa_mask>[/restorer]" of the entries that
 * differ (/restorer: sa_restorer is not 0),
 * separated by ';' (class D SIG_DFL, I SIG_IGN, H our handler, O other).
 */
static void add_tab(struct line *l, const char *key, const struct entry *tab)
{
	unsigned long long todo = 0, group;
	struct entry c;
	const char *sep = "";
	bool is_cleared = true;
	int sig, s;

	for (sig = 1; sig <= KSIG_MAX; sig++) {
		cleared(&c, &ref.tab[sig - 1]);
		if (!entry_eq(&tab[sig - 1], &c))
			is_cleared = false;
		if (!entry_eq(&tab[sig - 1], &ref.tab[sig - 1]))
			todo |= bit(sig);
	}
	add(l, " %s=", key);
	if (!todo) {
		add(l, "same");
		return;
	}
	if (is_cleared) {
		add(l, "cleared");
		return;
	}
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		const struct entry *e = &tab[sig - 1];

		if (!(todo & bit(sig)))
			continue;
		group = 0;
		for (s = sig; s <= KSIG_MAX; s++)
			if ((todo & bit(s)) && entry_eq(&tab[s - 1], e))
				group |= bit(s);
		todo &= ~group;
		add(l, "%s", sep);
		add_sigs(l, group);
		add(l, ":%c/%#lx/%#llx%s", entry_class(e->handler), e->flags,
		    e->mask, e->restorer ? "/restorer" : "");
		sep = ";";
	}
}

static void add_set(struct line *l, const char *key, unsigned long long set,
		    unsigned long long same)
{
	add(l, " %s=", key);
	if (set == same)
		add(l, "same");
	else if (!set)
		add(l, "none");
	else
		add_sigs(l, set);
}

static const char *sig_name(int sig)
{
	static char name[16];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(name, sizeof(name), "SIG%s", abbrev);
	else
		snprintf(name, sizeof(name), "sig%d", sig);
	return name;
}

static const char *relation(pid_t v, pid_t same, const char *same_name,
			    pid_t other, const char *other_name)
{
	if (v == same)
		return same_name;
	if (other_name && v == other)
		return other_name;
	if (v == 0)
		return "0";
	return "other";
}

/* Whether the child wrote its record, and so every key of it is printed. */
static bool add_child(struct line *l, const struct caller *c,
		      const struct record *r)
{
	const char *alt;

	if (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		add(l, " child=norecord");
		return false;
	}
	add_tab(l, "tab", r->st.tab);
	add_set(l, "blocked", r->st.blocked, ref.blocked);
	add_set(l, "pending", r->st.pending, ref.pending);
	if (r->alt.ss_flags & SS_DISABLE)
		alt = "disabled";
	else if (r->alt.ss_sp == alt_stack && r->alt.ss_size == ALT_STACK)
		alt = "same";
	else
		alt = "other";
	add(l, " altstack=%s pdeath=%d", alt, r->pdeath);
	add(l, " pgrp=%s", relation(r->pgrp, c->pgrp, "same", 0, NULL));
	add(l, " sid=%s", relation(r->sid, c->sid, "same", 0, NULL));
	add(l, " ppid=%s", relation(r->ppid, c->pid, "caller", c->parent,
				    "callers_parent"));
	add(l, " tgid=%s", relation(r->pid, c->pid, "caller", r->tid, "own"));
	add(l, " nnp=%d mntns=%s", r->nnp, mntns_name[r->mntns]);
	return true;
}

/* -- the calls -------------------------------------------------------- */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void wait_done(const struct record *r)
{
	long long end = now_ns() + WAIT_NS;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && now_ns() < end)
		sched_yield();
}

/* A thread of ours is gone when tgkill() no longer finds it. */
static void wait_gone(pid_t tid)
{
	long long end = now_ns() + WAIT_NS;

	while (!syscall(__NR_tgkill, getpid(), tid, 0) && now_ns() < end)
		sched_yield();
}

/* Signals that came to the caller with the child's end: consume them. */
static unsigned long long take_new_signals(void)
{
	struct timespec zero = { 0, 0 };
	unsigned long long got = 0, pending;
	unsigned long kset[KSIG_WORDS];
	sigset_t set;
	int sig;

	memset(kset, 0, sizeof(kset));
	syscall(__NR_rt_sigpending, kset, KSIG_SETSIZE);
	pending = read_set(kset);
	sigemptyset(&set);
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		if (!(pending & ~ref.pending & bit(sig)))
			continue;
		got |= bit(sig);
		sigaddset(&set, sig);
	}
	while (got && sigtimedwait(&set, NULL, &zero) > 0)
		;
	return got;
}

/*
 * What the pidfd clone3() returned refers to, from the caller's
 * /proc/self/fdinfo/<fd>: "child" when its Pid: is the task the call
 * made (the returned TID; -1 once that task is reaped, which the child's
 * hold prevents), else "other"; ",thread" when the file is a thread's
 * pidfd (CLONE3_PIDFD_THREAD in its flags).  "none" when no pidfd was
 * returned, "unreadable" when fdinfo cannot be read.
 */
static const char *pidfd_of(pid_t child)
{
	static char out[32];
	char path[64], buf[1024], *p;
	unsigned long f_flags = 0;
	long pid = -1;
	ssize_t n;
	int fd;

	if (pidfd_out < 0)
		return "none";
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd_out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "unreadable";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "unreadable";
	buf[n] = '\0';
	/* Every line but the first ("pos:") follows a newline. */
	p = strstr(buf, "\nflags:");
	if (p)
		f_flags = strtoul(p + 7, NULL, 8);
	p = strstr(buf, "\nPid:");
	if (p)
		pid = strtol(p + 5, NULL, 10);
	snprintf(out, sizeof(out), "%s%s%s",
		 !p ? "nopid" : pid == child ? "child" : "other",
		 f_flags & CLONE3_PIDFD_THREAD ? ",thread" : "",
		 f_flags & CLONE3_PIDFD_AUTOKILL ? ",autokill" : "");
	return out;
}

/*
 * Whether closing the pidfd clone3() returned kills the child (7.1's
 * CLONE_PIDFD_AUTOKILL), which is still held alive: "killed" when a
 * pidfd_open() of it polls readable (the child ended) within
 * ONCLOSE_MS, else "lives"; "unwatched" when pidfd_open() fails.  The
 * returned pidfd is closed here.
 */
static const char *on_close(pid_t child)
{
	struct pollfd p = { .events = POLLIN };
	int n;

	p.fd = syscall(CLONE3_NR_PIDFD_OPEN, child, 0);
	if (p.fd < 0)
		return "unwatched";
	close(pidfd_out);
	pidfd_out = -1;
	n = poll(&p, 1, ONCLOSE_MS);
	close(p.fd);
	return n > 0 ? "killed" : "lives";
}

static size_t input_size(const struct input *in)
{
	if (in->size == SIZE_PAGE)
		return page_size;
	if (in->size == SIZE_PAGE_PLUS)
		return page_size + 8;
	return in->size;
}

static void fill_args(const struct input *in, size_t size, char *stack)
{
	struct clone3_args *args = (struct clone3_args *)argbuf;
	size_t junk;

	/*
	 * Clearing only what the last call wrote, not the whole 128 KiB,
	 * saves a page fault per page after every fork (copy on write).
	 */
	memset(argbuf, 0, argbuf_dirty);
	argbuf_dirty = CLONE_ARGS_SIZE_VER2;
	args->flags = in->flags;
	args->exit_signal = in->exit_signal;
	args->pidfd = (uintptr_t)&pidfd_out;
	args->parent_tid = (uintptr_t)&parent_tid_out;
	args->child_tid = (uintptr_t)&child_tid_out;
	if (in->flags & CLONE_SETTLS)
		args->tls = clone3_tls();
	if (in->flags & CLONE_INTO_CGROUP)
		args->cgroup = closed_fd;
	switch (in->stack) {
	case STACK_NONE:
		break;
	case STACK_MAPPED:
		args->stack = (uintptr_t)stack;
		args->stack_size = CHILD_STACK;
		break;
	case STACK_NO_SIZE:
		args->stack = (uintptr_t)stack;
		break;
	case STACK_NO_BASE:
		args->stack_size = CHILD_STACK;
		break;
	case STACK_KERNEL:
		args->stack = 0xffffffffffff0000ULL;
		args->stack_size = 4096;
		break;
	case STACK_HUGE:
		args->stack = (uintptr_t)stack;
		args->stack_size = 1ULL << 63;
		break;
	}
	if (!in->tail)
		return;
	/*
	 * Past a struct the kernel knows all of, the word just after SIZE
	 * (which it must not read); past one it does not, the last word of
	 * SIZE (which must be zero).
	 */
	if (size < CLONE_ARGS_SIZE_VER0)
		junk = CLONE_ARGS_SIZE_VER2;
	else if (size <= CLONE_ARGS_SIZE_VER2)
		junk = size;
	else
		junk = size - 8;
	memset(argbuf + junk, 0xa5, 8);
	if (junk + 8 > argbuf_dirty)
		argbuf_dirty = junk + 8;
}

static bool print_line(struct line *l)
{
	add(l, "\n");
	return fputs(l->buf, stdout) >= 0 && fflush(stdout) == 0;
}

/*
 * What most children read, printed once as the probe=usual line: a
 * child's line leaves out each key=value it has in common with that line
 * and ends in "others=usual" (scripts/abi_diff.py puts them back).  The
 * console costs microseconds a byte under emulation; this takes a third
 * off the probe's output.
 */
static struct line usual;

static void make_usual(void)
{
	usual.len = 0;
	add(&usual, "# abi: probe=usual ok tab=same blocked=same pending=none");
	add(&usual, " altstack=same pdeath=0 pgrp=same sid=same ppid=caller");
	add(&usual, " tgid=own nnp=0 mntns=same exit=0");
	add_set(&usual, "exit_sig", bit(SIGCHLD), ~0ULL);
	add(&usual, " caller=same");
}

/* Whether " key=value" (LEN bytes at TOK) is a word of the usual line. */
static bool is_usual(const char *tok, size_t len)
{
	const char *p = usual.buf;

	while ((p = memmem(p, usual.len - (p - usual.buf), tok, len))) {
		if (p[len] == ' ' || p[len] == '\0')
			return true;
		p++;
	}
	return false;
}

/* Leave out the usual words of L after its first FROM bytes. */
static void drop_usual(struct line *l, size_t from)
{
	char out[LINE_MAX_LEN];
	size_t i = from, j, n = from;

	memcpy(out, l->buf, from);
	while (i < l->len) {
		for (j = i + 1; j < l->len && l->buf[j] != ' '; j++)
			;
		if (!is_usual(l->buf + i, j - i)) {
			memcpy(out + n, l->buf + i, j - i);
			n += j - i;
		}
		i = j;
	}
	memcpy(l->buf, out, n);
	l->buf[n] = '\0';
	l->len = n;
	add(l, " others=usual");
}

/*
 * The caller's capabilities, as capget() and capset() take them (version
 * 3, two words a set); pinned, as the flags are.  An input with nocap
 * is made without CAP_SYS_ADMIN in the caller's effective set, which
 * is given back right after the call.  Where the caller never had it
 * (an ordinary user on the host), nothing changes.
 */
#define CAPS_VERSION_3		0x20080522
#define CAPS_SYS_ADMIN		21

struct caps_header {
	__u32 version;
	int pid;
};

struct caps_data {
	__u32 effective, permitted, inheritable;
};

static struct caps_data caps_saved[2];

static void drop_sys_admin(void)
{
	struct caps_header h = { CAPS_VERSION_3, 0 };
	struct caps_data d[2];

	if (syscall(SYS_capget, &h, caps_saved))
		return;
	memcpy(d, caps_saved, sizeof(d));
	d[CAPS_SYS_ADMIN / 32].effective &= ~(1U << (CAPS_SYS_ADMIN % 32));
	syscall(SYS_capset, &h, d);
}

static void restore_caps(void)
{
	struct caps_header h = { CAPS_VERSION_3, 0 };

	syscall(SYS_capset, &h, caps_saved);
}

static int run_one(const struct input *in, struct record *rec,
		   struct caller *c)
{
	size_t size = input_size(in);
	struct line l = { .len = 0 };
	struct state after;
	bool waitable = !(in->flags & (CLONE_THREAD | CLONE_PARENT));
	bool recorded = false;
	size_t keys_from = 0;
	bool shares_vm = in->flags & CLONE_VM;
	/* A child whose pidfd is read is kept alive until it is (not vfork's). */
	bool held = (in->flags & (CLONE_PIDFD | CLONE_VFORK)) == CLONE_PIDFD;
	const char *pidfd = NULL, *onclose = NULL;
	char *stack;
	int status = 0;
	long ret;

	stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	fill_args(in, size, stack);
	memset(rec, 0, sizeof(*rec));
	rec->hold = held;
	pidfd_out = -1;
	if (set_state(tab_dirty))
		return -1;

	if (in->nocap)
		drop_sys_admin();
	ret = clone3_run(argbuf, size, child_main, c, stack + CHILD_STACK);
	if (in->nocap)
		restore_caps();

	add(&l, "# abi: ");
	add_id(&l, in);
	if (ret < 0) {
		add(&l, " %s", errno_name((int)-ret));
	} else {
		add(&l, " ok");
		keys_from = l.len;
		if (in->flags & CLONE_PIDFD) {
			if (held)
				wait_done(rec);
			pidfd = pidfd_of(ret);
			if (held && (in->flags & CLONE_PIDFD_AUTOKILL))
				onclose = on_close(ret);
		}
		__atomic_store_n(&rec->hold, 0, __ATOMIC_RELEASE);
		if (waitable) {
			/* ECHILD: reaped by the kernel (CLONE_AUTOREAP) */
			if (waitpid(ret, &status, __WALL) != ret)
				status = errno == ECHILD ? -2 : -1;
		} else {
			wait_done(rec);
			if (in->flags & CLONE_THREAD)
				wait_gone(ret);
		}
		recorded = add_child(&l, c, rec);
		if (!waitable)
			add(&l, " exit=%s", in->flags & CLONE_THREAD ?
			    "thread" : "unwaited");
		else if (status == -1)
			add(&l, " exit=lost");
		else if (status == -2)
			add(&l, " exit=reaped");
		else if (WIFEXITED(status))
			add(&l, " exit=%d", WEXITSTATUS(status));
		else
			add(&l, " exit=%s", sig_name(WTERMSIG(status)));
		add_set(&l, "exit_sig", take_new_signals(), ~0ULL);
		if (pidfd)
			add(&l, " pidfd=%s", pidfd);
		if (onclose)
			add(&l, " onclose=%s", onclose);
		if (pidfd_out >= 0)
			close(pidfd_out);
	}
	/*
	 * After a refused call (more than half the table) the caller's
	 * handler table is not read: a change to it would show in the next
	 * child's table and caller= anyway, and it saves 64 calls each.
	 */
	/*
	 * Compared with memcmp(): the padding of struct entry (after the
	 * restorer, where unsigned long long is 8-byte aligned and long is
	 * 4 bytes: arm32) must be zero, as in ref, not what the stack held.
	 */
	memset(&after, 0, sizeof(after));
	if (ret < 0) {
		memcpy(after.tab, ref.tab, sizeof(ref.tab));
		read_sets(&after);
	} else {
		read_state(&after);
	}
	tab_dirty = memcmp(after.tab, ref.tab, sizeof(ref.tab));
	if (!memcmp(&after, &ref, sizeof(after))) {
		add(&l, " caller=same");
	} else {
		add(&l, " caller=changed");
		if (memcmp(after.tab, ref.tab, sizeof(ref.tab)))
			add_tab(&l, "caller.tab", after.tab);
		if (after.blocked != ref.blocked)
			add_set(&l, "caller.blocked", after.blocked, 0);
		if (after.pending != ref.pending)
			add_set(&l, "caller.pending", after.pending, 0);
	}
	if (recorded)
		drop_usual(&l, keys_from);
	/* A stack that a child still running may use is never reused. */
	if (!shares_vm || waitable)
		munmap(stack, CHILD_STACK);
	return print_line(&l) ? 0 : -1;
}

/* -- the table -------------------------------------------------------- */

static void add_input(__u64 flags, int exit_signal, int size, bool tail,
		      enum stack_kind stack)
{
	struct input *in;

	if (nr_inputs >= MAX_INPUTS)
		return;
	in = &inputs[nr_inputs++];
	in->flags = flags;
	in->exit_signal = exit_signal;
	in->size = size;
	in->tail = tail;
	in->stack = stack;
	in->nocap = false;
}

/* FLAGS with EXIT_SIGNAL, made without CAP_SYS_ADMIN. */
static void add_nocap(__u64 flags, int exit_signal)
{
	int n = nr_inputs;

	add_input(flags, exit_signal, CLONE_ARGS_SIZE_VER2, false, STACK_NONE);
	if (nr_inputs > n)
		inputs[n].nocap = true;
}

/* FLAGS, and FLAGS with CLONE_CLEAR_SIGHAND. */
static void add_pair(__u64 flags, int exit_signal, int size, bool tail,
		     enum stack_kind stack)
{
	add_input(flags, exit_signal, size, tail, stack);
	add_input(flags | CLONE_CLEAR_SIGHAND, exit_signal, size, tail, stack);
}

#define VM_THREAD	(CLONE_VM | CLONE_SIGHAND | CLONE_THREAD)
#define AUTOKILLED	(CLONE_PIDFD_AUTOKILL | CLONE_AUTOREAP | CLONE_PIDFD)

/*
 * 7.1's four flags (bits 34-37; alone, each is in the table already):
 * each with the legacy flags that matter to it and with exit_signal
 * SIGCHLD and 0 (CLONE_AUTOREAP takes only 0), each with each other, and
 * with CLONE_INTO_CGROUP; the one call CLONE_PIDFD_AUTOKILL accepts with
 * and without CLONE_NNP, and the same calls without the flag, which
 * scripts/abi_diff.py tells a new flag's inputs against.  Only the flags
 * alone and that call (with its twins) are paired with
 * CLONE_CLEAR_SIGHAND: the probe must stay well under a second per run.  Not with CLONE_VFORK:
 * CLONE_PIDFD_AUTOKILL (the child has ended when the caller can close
 * the pidfd).
 */
static void make_table_7_1(void)
{
	static const __u64 flags_7_1[] = {
		CLONE_AUTOREAP, CLONE_NNP, CLONE_PIDFD_AUTOKILL,
		CLONE_EMPTY_MNTNS,
	};
	static const struct {
		__u64 flags;
		int exit_signal;
	} legacy[] = {
		{ 0, 0 },	/* paired with CLONE_CLEAR_SIGHAND above */
		{ VM_THREAD, 0 },
		{ CLONE_PARENT, 0 },
		{ CLONE_PIDFD, SIGCHLD },
		{ CLONE_PIDFD, 0 },
		{ CLONE_VM | CLONE_VFORK, SIGCHLD },
		{ CLONE_VM | CLONE_VFORK, 0 },
		{ CLONE_NEWNS, SIGCHLD },
		{ CLONE_FS, SIGCHLD },
	};
	const int v2 = CLONE_ARGS_SIZE_VER2;
	unsigned int i, j;

	add_pair(CLONE_PIDFD, 0, v2, false, STACK_NONE);
	add_input(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_CLEAR_SIGHAND, 0, v2,
		  false, STACK_NONE);
	add_input(CLONE_INTO_CGROUP, 0, v2, false, STACK_NONE);
	for (i = 0; i < ARRAY_SIZE(flags_7_1); i++) {
		add_pair(flags_7_1[i], 0, v2, false, STACK_NONE);
		for (j = 1; j < ARRAY_SIZE(legacy); j++)
			add_input(flags_7_1[i] | legacy[j].flags,
				  legacy[j].exit_signal, v2, false, STACK_NONE);
		add_input(flags_7_1[i] | CLONE_INTO_CGROUP, SIGCHLD, v2,
			  false, STACK_NONE);
		add_input(flags_7_1[i] | CLONE_INTO_CGROUP, 0, v2, false,
			  STACK_NONE);
		for (j = i + 1; j < ARRAY_SIZE(flags_7_1); j++) {
			add_input(flags_7_1[i] | flags_7_1[j], SIGCHLD, v2,
				  false, STACK_NONE);
			add_input(flags_7_1[i] | flags_7_1[j], 0, v2, false,
				  STACK_NONE);
		}
	}
	add_pair(AUTOKILLED, 0, v2, false, STACK_NONE);
	add_input(AUTOKILLED, SIGCHLD, v2, false, STACK_NONE);
	add_input(AUTOKILLED | CLONE_NNP, 0, v2, false, STACK_NONE);
	add_input(CLONE_AUTOREAP | CLONE_PIDFD | CLONE_NNP, 0, v2, false,
		  STACK_NONE);
	add_input(AUTOKILLED | VM_THREAD, 0, v2, false, STACK_NONE);
	/* Its twin without CLONE_PIDFD (pidfd-thread's allow block). */
	add_input((AUTOKILLED & ~CLONE_PIDFD) | VM_THREAD, 0, v2, false,
		  STACK_NONE);
	add_input(AUTOKILLED | CLONE_PARENT, 0, v2, false, STACK_NONE);
	/*
	 * Without CAP_SYS_ADMIN: CLONE_PIDFD_AUTOKILL needs it but with
	 * CLONE_NNP, CLONE_EMPTY_MNTNS (as CLONE_NEWNS) always; and the
	 * twins those are told against.
	 */
	add_nocap(0, SIGCHLD);
	add_nocap(CLONE_NNP, SIGCHLD);
	add_nocap(CLONE_NEWNS, SIGCHLD);
	add_nocap(CLONE_EMPTY_MNTNS, SIGCHLD);
	add_nocap(CLONE_PIDFD, 0);
	add_nocap(CLONE_AUTOREAP | CLONE_PIDFD, 0);
	add_nocap(CLONE_AUTOREAP | CLONE_PIDFD | CLONE_NNP, 0);
	add_nocap(AUTOKILLED, 0);
	add_nocap(AUTOKILLED | CLONE_NNP, 0);
}

static void make_table(void)
{
	static const __u64 combos[] = {
		CLONE_VM | CLONE_VFORK,
		CLONE_VM | CLONE_SIGHAND,
		CLONE_VM | CLONE_VFORK | CLONE_SIGHAND,
		CLONE_SIGHAND | CLONE_VFORK,
		CLONE_FS | CLONE_FILES | CLONE_VM | CLONE_VFORK,
		CLONE_PIDFD | CLONE_VM | CLONE_VFORK,
		CLONE_PIDFD | CLONE_PARENT_SETTID,
		CLONE_PIDFD | CLONE_DETACHED,
		CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_VM |
			CLONE_VFORK,
		CLONE_NEWUSER | CLONE_NEWPID,
		CLONE_NEWUSER | CLONE_FS,
		CLONE_NEWNS | CLONE_FS,
		CLONE_NEWPID | CLONE_VM | CLONE_VFORK,
		CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET |
			CLONE_NEWCGROUP,
		CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID,
	};
	/* Inputs with exit_signal 0: threads and CLONE_PARENT. */
	static const __u64 quiet[] = {
		VM_THREAD,
		CLONE_SIGHAND | CLONE_THREAD,
		CLONE_THREAD,
		VM_THREAD | CLONE_SETTLS,
		VM_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
			CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
		VM_THREAD | CLONE_PIDFD,
		VM_THREAD | CLONE_NEWPID,
		VM_THREAD | CLONE_NEWUSER,
		CLONE_PARENT,
		CLONE_PARENT | CLONE_VM | CLONE_VFORK,
		CLONE_PARENT | VM_THREAD,
		CLONE_PARENT | CLONE_PIDFD,
	};
	static const int sizes[] = {
		0, 63, 64, 72, 80, 88, 96, 104, SIZE_PAGE, SIZE_PAGE_PLUS,
	};
	const int v2 = CLONE_ARGS_SIZE_VER2;
	unsigned int i;
	int b;

	/* Every bit alone, and with the flag (bit 32's pair is flags=0). */
	for (b = 0; b < 64; b++)
		if (b != 32)
			add_pair(1ULL << b, SIGCHLD, v2, false, STACK_NONE);
	add_pair(0, SIGCHLD, v2, false, STACK_NONE);
	for (i = 0; i < ARRAY_SIZE(combos); i++)
		add_pair(combos[i], SIGCHLD, v2, false, STACK_NONE);
	for (i = 0; i < ARRAY_SIZE(quiet); i++)
		add_pair(quiet[i], 0, v2, false, STACK_NONE);
	/* exit_signal: none, a blocked real-time one, the last, too big. */
	add_pair(0, 0, v2, false, STACK_NONE);
	add_pair(0, 40, v2, false, STACK_NONE);
	add_pair(0, 64, v2, false, STACK_NONE);
	add_pair(0, 65, v2, false, STACK_NONE);
	add_pair(CLONE_VM | CLONE_VFORK, 0, v2, false, STACK_NONE);
	/* struct sizes around each version, with and without a tail */
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (sizes[i] != v2)	/* flags=0 size=88 is above */
			add_pair(0, SIGCHLD, sizes[i], false, STACK_NONE);
		add_pair(0, SIGCHLD, sizes[i], true, STACK_NONE);
	}
	add_pair(CLONE_VM | CLONE_VFORK, SIGCHLD, CLONE_ARGS_SIZE_VER0, false,
		 STACK_NONE);
	/* stack and stack_size */
	for (b = STACK_MAPPED; b <= STACK_HUGE; b++) {
		add_pair(0, SIGCHLD, v2, false, b);
		add_pair(CLONE_VM | CLONE_VFORK, SIGCHLD, v2, false, b);
	}
	make_table_7_1();
}

/* The caller: set up R, run every input, print a line for each. */
static int run_all(void)
{
	struct caller c;
	struct line l = { .len = 0 };
	struct record *rec;
	int i, fd;

	rec = mmap(NULL, sizeof(*rec), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rec == MAP_FAILED)
		return 1;
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		close(fd);
	closed_fd = fd >= 0 ? fd : 100;
	page_size = sysconf(_SC_PAGESIZE);
	if (page_size <= 0 || page_size + 16 > (long)sizeof(argbuf_words))
		return 1;

	make_want();
	if (set_state(true))
		return 1;
	read_state(&ref);
	if (stat("/proc/thread-self/ns/mnt", &caller_mnt))
		memset(&caller_mnt, 0, sizeof(caller_mnt));
	{
		struct entry intended[KSIG_MAX];
		unsigned long long stop = bit(SIGKILL) | bit(SIGSTOP);

		/* The kernel drops SIGKILL and SIGSTOP from every mask. */
		for (i = 0; i < KSIG_MAX; i++) {
			to_entry(&intended[i], &want[i]);
			intended[i].mask &= ~stop;
		}
		add(&l, "# abi: probe=setup ok");
		add_tab(&l, "tab", intended);
		add_set(&l, "blocked", ref.blocked, blocked_want());
		add_set(&l, "pending", ref.pending, bit(R_PENDING));
		if (!print_line(&l))
			return 1;
	}
	make_usual();
	l = usual;
	if (!print_line(&l))
		return 1;

	c.pid = getpid();
	c.parent = getppid();
	c.pgrp = getpgid(0);
	c.sid = getsid(0);
	c.rec = rec;
	make_table();
	for (i = 0; i < nr_inputs; i++)
		if (run_one(&inputs[i], rec, &c))
			return 1;
	l.len = 0;
	add(&l, "# abi: probe=end ok inputs=%d", nr_inputs);
	return print_line(&l) ? 0 : 1;
}

int main(void)
{
	int status;
	pid_t pid;
	bool ok;

	ksft_print_header();
	ksft_set_plan(1);
	if (!CLONE3_HAVE_RUN)
		ksft_exit_skip("no raw clone3 call for this architecture\n");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		ksft_exit_fail_msg("PR_SET_CHILD_SUBREAPER: %s\n",
				   strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0)
		_exit(run_all());
	ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	     WEXITSTATUS(status) == 0;
	if (!ok)
		ksft_print_msg("the probe stopped (status %#x)\n", status);
	/* CLONE_PARENT children, and anything else left, are ours. */
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	ksft_test_result(ok, "abi_probe\n");
	if (ok)
		ksft_exit_pass();
	ksft_exit_fail();
	return 1;
}
