/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the CLONE_CLEAR_SIGHAND programs share: the clone3() argument
 * struct, the kernel's struct sigaction as the raw rt_sigaction() sees
 * it, the switch that turns a missing flag from a skip into a failure,
 * and the one piece of assembly per architecture: clone3() with a child
 * that runs a C function on a stack of its own.
 *
 * Include it after defining _GNU_SOURCE.
 */
#ifndef CLONE3_RAW_H
#define CLONE3_RAW_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/version.h>
#include <sys/syscall.h>

/*
 * The system call's number, the same on every arch since 5.3: ABI, so
 * pinned as the flags below are, whatever the tree's headers say.
 */
#undef __NR_clone3
#define __NR_clone3 435

/*
 * The clone3-only flags, pinned: their values are ABI, and a test of the
 * ABI must not take them from the tree it tests (a kernel that moved a
 * flag would move its tests with it).  Whatever the tree's
 * <linux/sched.h> says, these are the values the suite, the probe and
 * the fuzzer use.
 */
#undef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND	0x100000000ULL
#undef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP	0x200000000ULL
#undef CLONE_AUTOREAP
#define CLONE_AUTOREAP		0x400000000ULL
#undef CLONE_NNP
#define CLONE_NNP		0x800000000ULL
#undef CLONE_PIDFD_AUTOKILL
#define CLONE_PIDFD_AUTOKILL	0x1000000000ULL
#undef CLONE_EMPTY_MNTNS
#define CLONE_EMPTY_MNTNS	0x2000000000ULL
/* ... and the values older C library headers lack. */
#undef CLONE_NEWTIME
#define CLONE_NEWTIME		0x00000080
#undef CLONE_DETACHED
#define CLONE_DETACHED		0x00400000
#undef CSIGNAL
#define CSIGNAL			0x000000ff
/*
 * The file flag that marks a pidfd of a thread (6.9's PIDFD_THREAD,
 * which the kernel defines as O_EXCL: 0200 on every arch the gate runs,
 * all of asm-generic's fcntl.h), as /proc/<pid>/fdinfo's "flags:" shows
 * it.  Pinned: never the tree's <linux/pidfd.h>.
 */
#define CLONE3_PIDFD_THREAD	00000200
/*
 * The file flag that marks a pidfd clone3() returned with 7.1's
 * CLONE_PIDFD_AUTOKILL (PIDFD_AUTOKILL, which the kernel defines as
 * O_TRUNC: 01000 on every arch the gate runs), and pidfd_open(), whose
 * number is the same on every arch since 5.3.  Pinned, as above.
 */
#define CLONE3_PIDFD_AUTOKILL	00001000
#define CLONE3_NR_PIDFD_OPEN	434
/* The sizes of struct clone_args clone3() accepts at each version. */
#undef CLONE_ARGS_SIZE_VER0
#define CLONE_ARGS_SIZE_VER0	64
#undef CLONE_ARGS_SIZE_VER1
#define CLONE_ARGS_SIZE_VER1	80
#undef CLONE_ARGS_SIZE_VER2
#define CLONE_ARGS_SIZE_VER2	88

/*
 * Every clone3() flag above the exit signal byte, with the release that
 * merged it: the one list of flags of the suite, the probe and the
 * fuzzer.  The legacy flags' values are the C library's <sched.h>
 * (a tree whose <linux/sched.h> moved one would not build: the two
 * definitions would differ), the clone3-only ones are pinned above.
 */
static const struct clone3_flag {
	const char *name;
	unsigned long long value;
	int major, minor;
} clone3_flags[] = {
	{ "CLONE_NEWTIME", CLONE_NEWTIME, 5, 6 },
	{ "CLONE_VM", CLONE_VM, 5, 3 },
	{ "CLONE_FS", CLONE_FS, 5, 3 },
	{ "CLONE_FILES", CLONE_FILES, 5, 3 },
	{ "CLONE_SIGHAND", CLONE_SIGHAND, 5, 3 },
	{ "CLONE_PIDFD", CLONE_PIDFD, 5, 3 },
	{ "CLONE_PTRACE", CLONE_PTRACE, 5, 3 },
	{ "CLONE_VFORK", CLONE_VFORK, 5, 3 },
	{ "CLONE_PARENT", CLONE_PARENT, 5, 3 },
	{ "CLONE_THREAD", CLONE_THREAD, 5, 3 },
	{ "CLONE_NEWNS", CLONE_NEWNS, 5, 3 },
	{ "CLONE_SYSVSEM", CLONE_SYSVSEM, 5, 3 },
	{ "CLONE_SETTLS", CLONE_SETTLS, 5, 3 },
	{ "CLONE_PARENT_SETTID", CLONE_PARENT_SETTID, 5, 3 },
	{ "CLONE_CHILD_CLEARTID", CLONE_CHILD_CLEARTID, 5, 3 },
	{ "CLONE_DETACHED", CLONE_DETACHED, 5, 3 },
	{ "CLONE_UNTRACED", CLONE_UNTRACED, 5, 3 },
	{ "CLONE_CHILD_SETTID", CLONE_CHILD_SETTID, 5, 3 },
	{ "CLONE_NEWCGROUP", CLONE_NEWCGROUP, 5, 3 },
	{ "CLONE_NEWUTS", CLONE_NEWUTS, 5, 3 },
	{ "CLONE_NEWIPC", CLONE_NEWIPC, 5, 3 },
	{ "CLONE_NEWUSER", CLONE_NEWUSER, 5, 3 },
	{ "CLONE_NEWPID", CLONE_NEWPID, 5, 3 },
	{ "CLONE_NEWNET", CLONE_NEWNET, 5, 3 },
	{ "CLONE_IO", CLONE_IO, 5, 3 },
	{ "CLONE_CLEAR_SIGHAND", CLONE_CLEAR_SIGHAND, 5, 5 },
	{ "CLONE_INTO_CGROUP", CLONE_INTO_CGROUP, 5, 7 },
	{ "CLONE_AUTOREAP", CLONE_AUTOREAP, 7, 1 },
	{ "CLONE_NNP", CLONE_NNP, 7, 1 },
	{ "CLONE_PIDFD_AUTOKILL", CLONE_PIDFD_AUTOKILL, 7, 1 },
	{ "CLONE_EMPTY_MNTNS", CLONE_EMPTY_MNTNS, 7, 1 },
};

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* The release of the uapi headers the program is built against. */
#define CLONE3_TREE_MAJOR	((int)(LINUX_VERSION_CODE >> 16))
#define CLONE3_TREE_MINOR	((int)((LINUX_VERSION_CODE >> 8) & 0xff))

/* The name of flag bit BIT, or NULL. */
static inline const char *clone3_flag_name(int bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(clone3_flags); i++)
		if (clone3_flags[i].value == 1ULL << bit)
			return clone3_flags[i].name;
	return NULL;
}

/*
 * The flags clone3() of Linux MAJOR.MINOR accepts in some combination:
 * the 32 legacy bits (the exit signal byte and CLONE_DETACHED are
 * refused later, by value) and each newer flag from its release on.
 */
static inline unsigned long long clone3_known_flags(int major, int minor)
{
	unsigned long long known = 0xffffffffULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(clone3_flags); i++) {
		const struct clone3_flag *f = &clone3_flags[i];

		if (major > f->major || (major == f->major && minor >= f->minor))
			known |= f->value;
	}
	return known;
}

/* struct clone_args up to CLONE_ARGS_SIZE_VER2, the same on every arch. */
struct clone3_args {
	__aligned_u64 flags;
	__aligned_u64 pidfd;
	__aligned_u64 child_tid;
	__aligned_u64 parent_tid;
	__aligned_u64 exit_signal;
	__aligned_u64 stack;
	__aligned_u64 stack_size;
	__aligned_u64 tls;
	__aligned_u64 set_tid;
	__aligned_u64 set_tid_size;
	__aligned_u64 cgroup;
};

typedef int (*clone3_fn)(void *arg);

/*
 * What has to be code per architecture: one block for each, and nothing
 * of an architecture anywhere else in the suite.  A block defines
 *
 *   KSA_KNOWN_LAYOUT       the kernel's struct sigaction is known here,
 *   KSA_HAS_RESTORER       ... and has sa_restorer between sa_flags and
 *                          sa_mask (no block: the table tests skip);
 *   CLONE3_OWN_USER_SPACE  1 where user space is an address space of
 *                          its own: access_ok() takes every range (0
 *                          where not defined);
 *   CLONE3_HAVE_RUN 1 and clone3_run(ARGS, SIZE, FN, ARG, TOP): clone3()
 *       whose child moves its stack pointer to TOP (rounded down to 16
 *       bytes), calls FN(ARG) and ends with SYS_exit (not exit_group)
 *       and FN's return value; it never comes back here, so it needs no
 *       frame of ours.  The parent gets the child's id or -errno.  TOP
 *       must be memory only the child uses: with CLONE_VM, not our
 *       stack.  The syscall instruction keeps every register but the
 *       result one, so the child finds FN, ARG and TOP where the parent
 *       put them;
 *   clone3_tls(): the tls argument that gives a CLONE_SETTLS child the
 *       thread pointer of its caller, so that the C library keeps
 *       working in it (0 where unknown).
 *
 * Elsewhere CLONE3_HAVE_RUN is 0, clone3_run() gives -EOPNOTSUPP and
 * clone3_tls() 0.
 */
#if defined(__x86_64__)
/* x86_64: syscall, the number in rax. */
#define KSA_KNOWN_LAYOUT 1
#define KSA_HAS_RESTORER 1
#define CLONE3_HAVE_RUN 1
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	register long ret asm("rax") = __NR_clone3;
	register void *rdi asm("rdi") = args;
	register size_t rsi asm("rsi") = size;
	register clone3_fn r12 asm("r12") = fn;
	register void *r13 asm("r13") = arg;
	register void *r14 asm("r14") = top;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov %%r14, %%rsp\n\t"
		     "and $-16, %%rsp\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "mov %%r13, %%rdi\n\t"
		     "call *%%r12\n\t"
		     "mov %%eax, %%edi\n\t"
		     "mov %[nr_exit], %%eax\n\t"
		     "syscall\n\t"
		     "ud2\n"
		     "1:"
		     : "+r" (ret)
		     : "r" (rdi), "r" (rsi), "r" (r12), "r" (r13), "r" (r14),
		       [nr_exit] "i" (__NR_exit)
		     : "rcx", "r11", "memory", "cc");
	return (long)ret;
}

static inline unsigned long long clone3_tls(void)
{
	unsigned long tp;

	/* glibc's and musl's thread control block starts with itself. */
	asm volatile("mov %%fs:0, %0" : "=r" (tp));
	return tp;
}
#elif defined(__i386__)
/* i386, and i386 programs under a 64-bit kernel. */
#define KSA_KNOWN_LAYOUT 1
#define KSA_HAS_RESTORER 1
#define CLONE3_HAVE_RUN 1
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	/* int $0x80: eax the number, ebx and ecx the arguments. */
	long ret = __NR_clone3;

	asm volatile("int $0x80\n\t"
		     "test %%eax, %%eax\n\t"
		     "jnz 1f\n\t"
		     "mov %%edx, %%esp\n\t"
		     "and $-16, %%esp\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "sub $12, %%esp\n\t"
		     "push %%edi\n\t"
		     "call *%%esi\n\t"
		     "mov %%eax, %%ebx\n\t"
		     "mov %[nr_exit], %%eax\n\t"
		     "int $0x80\n\t"
		     "ud2\n"
		     "1:"
		     : "+a" (ret)
		     : "b" (args), "c" (size), "S" (fn), "D" (arg), "d" (top),
		       [nr_exit] "i" (__NR_exit)
		     : "memory", "cc");
	return (long)ret;
}

static inline unsigned long long clone3_tls(void)
{
	/*
	 * A struct user_desc, only passed on from get_thread_area() to the
	 * kernel: its first word, the entry number, is all we set.
	 */
	static unsigned int desc[4];
	unsigned int gs;

	asm volatile("mov %%gs, %0" : "=r" (gs));
	memset(desc, 0, sizeof(desc));
	desc[0] = gs >> 3;
	if (syscall(__NR_get_thread_area, desc))
		return 0;
	return (uintptr_t)desc;
}
#elif defined(__aarch64__)
/* arm64. */
#define KSA_KNOWN_LAYOUT 1
#define KSA_HAS_RESTORER 1
#define CLONE3_HAVE_RUN 1
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	register long nr asm("x8") = __NR_clone3;
	register void *ret asm("x0") = args;
	register size_t x1 asm("x1") = size;
	register clone3_fn x19 asm("x19") = fn;
	register void *x20 asm("x20") = arg;
	register void *x21 asm("x21") = top;

	asm volatile("svc #0\n\t"
		     "cbnz x0, 1f\n\t"
		     "and x21, x21, #-16\n\t"
		     "mov sp, x21\n\t"
		     "mov x29, xzr\n\t"
		     "mov x0, x20\n\t"
		     "blr x19\n\t"
		     "mov x8, %[nr_exit]\n\t"
		     "svc #0\n\t"
		     "brk #0\n"
		     "1:"
		     : "+r" (ret)
		     : "r" (nr), "r" (x1), "r" (x19), "r" (x20), "r" (x21),
		       [nr_exit] "i" (__NR_exit)
		     : "memory", "cc");
	return (long)ret;
}

static inline unsigned long long clone3_tls(void)
{
	unsigned long tp;

	asm volatile("mrs %0, tpidr_el0" : "=r" (tp));
	return tp;
}
#elif defined(__arm__)
/* 32-bit arm (EABI). */
#define KSA_KNOWN_LAYOUT 1
#define KSA_HAS_RESTORER 1
#define CLONE3_HAVE_RUN 1
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	/*
	 * EABI: svc #0, the number in r7.  r7 is the frame pointer of Thumb
	 * code, which the compiler may refuse as an operand: the number
	 * comes in through r2 and r7 waits in ip (r12) across the call.
	 */
	register void *ret asm("r0") = args;
	register size_t r1 asm("r1") = size;
	register long nr asm("r2") = __NR_clone3;
	register clone3_fn r4 asm("r4") = fn;
	register void *r5 asm("r5") = arg;
	register void *r6 asm("r6") = top;

	asm volatile("mov ip, r7\n\t"
		     "mov r7, r2\n\t"
		     "svc #0\n\t"
		     "mov r7, ip\n\t"
		     "cmp r0, #0\n\t"
		     "bne 1f\n\t"
		     "bic ip, r6, #15\n\t"
		     "mov sp, ip\n\t"
		     "mov r0, r5\n\t"
		     "blx r4\n\t"
		     "mov r7, %[nr_exit]\n\t"
		     "svc #0\n\t"
		     "bkpt #0\n"
		     "1:"
		     : "+r" (ret)
		     : "r" (r1), "r" (nr), "r" (r4), "r" (r5), "r" (r6),
		       [nr_exit] "i" (__NR_exit)
		     : "ip", "memory", "cc");
	return (long)ret;
}

static inline unsigned long long clone3_tls(void)
{
	unsigned long tp;

	asm volatile("mrc p15, 0, %0, c13, c0, 3" : "=r" (tp));
	return tp;
}
#elif defined(__riscv) && __riscv_xlen == 64
/* riscv64: its struct sigaction has no sa_restorer. */
#define KSA_KNOWN_LAYOUT 1
#define CLONE3_HAVE_RUN 1
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	register long nr asm("a7") = __NR_clone3;
	register void *ret asm("a0") = args;
	register size_t a1 asm("a1") = size;
	register clone3_fn s1 asm("s1") = fn;
	register void *s2 asm("s2") = arg;
	register void *s3 asm("s3") = top;

	asm volatile("ecall\n\t"
		     "bnez a0, 1f\n\t"
		     "andi sp, s3, -16\n\t"
		     "mv s0, zero\n\t"
		     "mv a0, s2\n\t"
		     "jalr s1\n\t"
		     "li a7, %[nr_exit]\n\t"
		     "ecall\n\t"
		     "ebreak\n"
		     "1:"
		     : "+r" (ret)
		     : "r" (nr), "r" (a1), "r" (s1), "r" (s2), "r" (s3),
		       [nr_exit] "i" (__NR_exit)
		     : "memory");
	return (long)ret;
}

static inline unsigned long long clone3_tls(void)
{
	unsigned long tp;

	asm volatile("mv %0, tp" : "=r" (tp));
	return tp;
}
#elif defined(__s390x__)
/* s390x: its user space is an address space of its own. */
#define KSA_KNOWN_LAYOUT 1
#define KSA_HAS_RESTORER 1
#define CLONE3_OWN_USER_SPACE 1
#define CLONE3_HAVE_RUN 1
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	/*
	 * svc 0, the number in r1 (clone3's is above 255); the result in r2.
	 * The child's frame: TOP rounded down to 16, less the 160-byte
	 * register save area that a callee may write, back chain zeroed.
	 */
	register long nr asm("r1") = __NR_clone3;
	register void *ret asm("r2") = args;
	register size_t r3 asm("r3") = size;
	register clone3_fn r7 asm("r7") = fn;
	register void *r8 asm("r8") = arg;
	register void *r9 asm("r9") = top;

	asm volatile("svc 0\n\t"
		     "ltgr %%r2, %%r2\n\t"
		     "jnz 1f\n\t"
		     "lgr %%r15, %%r9\n\t"
		     "nill %%r15, 0xfff0\n\t"
		     "aghi %%r15, -160\n\t"
		     "xc 0(8, %%r15), 0(%%r15)\n\t"
		     "lgr %%r2, %%r8\n\t"
		     "basr %%r14, %%r7\n\t"
		     "lghi %%r1, %[nr_exit]\n\t"
		     "svc 0\n\t"
		     ".short 0\n"
		     "1:"
		     : "+r" (ret)
		     : "r" (nr), "r" (r3), "r" (r7), "r" (r8), "r" (r9),
		       [nr_exit] "i" (__NR_exit)
		     : "memory", "cc");
	return (long)ret;
}

static inline unsigned long long clone3_tls(void)
{
	/* Access registers a0 and a1, the high and low halves. */
	return (uintptr_t)__builtin_thread_pointer();
}
#else
#define CLONE3_HAVE_RUN 0
static inline long clone3_run(void *args, size_t size, clone3_fn fn,
			      void *arg, void *top)
{
	return -EOPNOTSUPP;
}

static inline unsigned long long clone3_tls(void)
{
	return 0;
}
#endif
#ifndef CLONE3_OWN_USER_SPACE
#define CLONE3_OWN_USER_SPACE 0
#endif

/*
 * Signals 1..64 on every arch we know: the kernel's sigset_t is 64 bits,
 * two words on a 32-bit program, and rt_sigaction() wants 8 as its size.
 */
#define KSIG_MAX	64
#define KSIG_LONG_BITS	(8 * sizeof(unsigned long))
#define KSIG_WORDS	(KSIG_MAX / KSIG_LONG_BITS)
#define KSIG_SETSIZE	((size_t)KSIG_MAX / 8)

struct ksigaction {
	unsigned long handler;
	unsigned long flags;
#ifdef KSA_HAS_RESTORER
	unsigned long restorer;
#endif
	unsigned long mask[KSIG_WORDS];
};

/* The entry's sa_restorer: 0 where the arch's struct has none. */
static inline unsigned long ksa_restorer(const struct ksigaction *ka)
{
#ifdef KSA_HAS_RESTORER
	return ka->restorer;
#else
	(void)ka;
	return 0;
#endif
}

/* Set the entry's sa_restorer where the arch's struct has one. */
static inline void ksa_set_restorer(struct ksigaction *ka, unsigned long r)
{
#ifdef KSA_HAS_RESTORER
	ka->restorer = r;
#else
	(void)ka;
	(void)r;
#endif
}

/* A raw system call's result: the value, or -errno. */
static inline long sys_ret(long ret)
{
	return ret < 0 ? -errno : ret;
}

static inline int ksigaction(int sig, const struct ksigaction *act,
			     struct ksigaction *old)
{
	return sys_ret(syscall(__NR_rt_sigaction, sig, act, old,
			       KSIG_SETSIZE));
}

static inline int ksigprocmask(int how, const unsigned long *set,
			       unsigned long *old)
{
	return sys_ret(syscall(__NR_rt_sigprocmask, how, set, old,
			       KSIG_SETSIZE));
}

static inline void kset_add(unsigned long *set, int sig)
{
	set[(sig - 1) / KSIG_LONG_BITS] |= 1UL << ((sig - 1) % KSIG_LONG_BITS);
}

static inline bool kset_has(const unsigned long *set, int sig)
{
	return set[(sig - 1) / KSIG_LONG_BITS] &
	       (1UL << ((sig - 1) % KSIG_LONG_BITS));
}

/* The set as one 64-bit number, bit sig - 1 for signal sig: to print. */
static inline unsigned long long kset_bits(const unsigned long *set)
{
	unsigned long long bits = 0;
	int sig;

	for (sig = 1; sig <= KSIG_MAX; sig++)
		if (kset_has(set, sig))
			bits |= 1ULL << (sig - 1);
	return bits;
}

/*
 * CLONE3_REQUIRE_CLEAR_SIGHAND=1: the kernel under test must have the
 * flag, so a refusal fails the flag tests instead of skipping them.
 */
static inline bool clone3_flag_required(void)
{
	const char *v = getenv("CLONE3_REQUIRE_CLEAR_SIGHAND");

	return v && !strcmp(v, "1");
}

/*
 * A system call number no kernel has: above every table, below the ARM
 * private numbers (0xf0000 up), for which an ARM kernel sends SIGILL
 * instead of failing with ENOSYS.
 */
#define NO_SUCH_SYSCALL 0x7fff

/*
 * The errno clone3(NULL, 0) gives when the kernel has no clone3(): that
 * of NO_SUCH_SYSCALL.  0 when clone3() exists (the call then fails with
 * some other errno, EINVAL on a sane kernel).
 */
static inline int clone3_missing_errno(void)
{
	long ret = syscall(__NR_clone3, NULL, 0);
	int err = errno;

	if (ret == 0)
		_exit(0);	/* a broken kernel made a child of us */
	if (ret > 0 || syscall(NO_SUCH_SYSCALL) >= 0 || errno != err)
		return 0;
	return err;
}

/* clone3_run() on the stack the arguments give the kernel. */
static inline long clone3_run_on_stack(struct clone3_args *args, size_t size,
				       clone3_fn fn, void *arg)
{
	return clone3_run(args, size, fn, arg,
			  (void *)(uintptr_t)(args->stack + args->stack_size));
}

#endif /* CLONE3_RAW_H */
