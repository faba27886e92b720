// SPDX-License-Identifier: GPL-2.0
/*
 * clone3() argument fuzzer.
 *
 * Draws argument sets from a seed, predicts the kernel's answer with a
 * model of the v6.1 rules (copy_clone_args_from_user(), clone3_args_valid(),
 * clone3_stack_valid(), the flag checks at the top of copy_process() and
 * copy_struct_from_user()) and reports every input where the kernel and
 * the model disagree, with the seed and iteration that reproduce it.
 * The flags that are defined are those of the release of the headers the
 * program is built against; a flag newer than v6.1 is not modelled and
 * only appears in inputs rejected earlier.
 *
 * Safety: a call the model accepts never carries a flag with a side effect
 * the fuzzer does not undo (namespaces, threads, CLONE_PARENT, TLS, pidfds,
 * TID writes, cgroups); such flags only appear in inputs with at least one
 * earlier rejection.  Each child reads one signal entry on a stack of the
 * fuzzer's, exits and is reaped, so a kernel that wrongly accepts an input
 * leaves nothing behind but a reported disagreement.
 *
 * The kernel's word size is part of the model: a 32-bit kernel keeps only
 * the low word of stack, stack_size and tls (struct kernel_clone_args
 * holds them as unsigned long), a 64-bit one, also under a 32-bit
 * program, keeps all of it.
 *
 * Environment: CLONE3_FUZZ_SEED, CLONE3_FUZZ_SECONDS (default 2; a
 * decimal such as 0.5 is taken),
 * CLONE3_FUZZ_ITERATIONS, CLONE3_FUZZ_SELFTEST=undefined-bits|no-exclusion
 * (perturbs the model so that disagreements must be reported),
 * CLONE3_FUZZ_KERNEL_BITS=32|64 (the kernel's word size, detected when
 * unset; 32 on a 64-bit kernel is a perturbation too).
 * Results about inputs with CLONE_CLEAR_SIGHAND are named flag_*: they are
 * skipped on a kernel that rejects the flag, unless
 * CLONE3_REQUIRE_CLEAR_SIGHAND=1 (then the model keeps the flag and they
 * fail).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "clone3_raw.h"

/* The v6.1 constants the model is written against. */
#define V61_SIZE_VER0		CLONE_ARGS_SIZE_VER0
#define V61_SIZE_VER1		CLONE_ARGS_SIZE_VER1
#define V61_SIZE_VER2		CLONE_ARGS_SIZE_VER2
#define V61_NSIG		64
#define V61_MAX_PID_NS_LEVEL	32
#define V61_CSIGNAL		0xffULL
#define V61_KNOWN_FLAGS		clone3_known_flags(6, 1)
#define V61_RESERVED_FLAGS	(CLONE_DETACHED | (CSIGNAL & ~CLONE_NEWTIME))

/*
 * The flags of the release the program is built for (the tree's uapi
 * headers): a bit outside them is undefined, and a kernel of that
 * release must refuse it.  The flags it has beyond v6.1 (7.1's
 * CLONE_AUTOREAP, CLONE_NNP, CLONE_PIDFD_AUTOKILL, CLONE_EMPTY_MNTNS)
 * are known but their rules are not modelled: they are hazards, only
 * drawn behind an earlier rejection, which every kernel gives first.
 */
#define TREE_KNOWN_FLAGS	clone3_known_flags(CLONE3_TREE_MAJOR, \
						   CLONE3_TREE_MINOR)
#define UNDEFINED_FLAGS		(~TREE_KNOWN_FLAGS)
#define NEWER_FLAGS		(TREE_KNOWN_FLAGS & ~V61_KNOWN_FLAGS)

/* Flags whose accepted use has no side effect left after the child exits. */
#define SAFE_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
			 CLONE_VFORK | CLONE_SYSVSEM | CLONE_UNTRACED | \
			 CLONE_IO | CLONE_CLEAR_SIGHAND)
/* Known flags with side effects (and the unmodelled newer ones). */
#define HAZARD_FLAGS	(TREE_KNOWN_FLAGS & ~SAFE_FLAGS & ~V61_RESERVED_FLAGS)

#define STACK_SIZE	(64 * 1024)
#define CHILD_STACK	(16 * 1024)
#define MAX_SHOWN	20
#define CANARY_SIGNAL	SIGUSR2

/*
 * Addresses no kernel lets a program use, whatever its word size: the
 * kernel half for a 64-bit kernel, and a low word of 0xf0000000 and up,
 * above every 32-bit TASK_SIZE, for a 32-bit one.
 */
#define KERNEL_ADDR	0xffff8000f0000000ULL
/* The first address the model takes as invalid on a 32-bit kernel. */
#define LIMIT_32	0xf0000000ULL
/* High bits a 32-bit kernel drops; above any 64-bit TASK_SIZE_MAX. */
#define HIGH_BITS	0xffff000000000000ULL

enum selftest_mode { SELFTEST_NONE, SELFTEST_UNDEFINED, SELFTEST_NO_EXCL };

enum kind {
	KIND_VALID, KIND_CLEAR, KIND_UNDEFINED, KIND_RESERVED, KIND_SIZE,
	KIND_EXIT_SIGNAL, KIND_STACK, KIND_SET_TID, KIND_CGROUP, KIND_THREAD,
	KIND_PRECEDENCE, NR_KINDS
};

static const char * const kind_name[NR_KINDS] = {
	"valid", "clear_sighand", "undefined_bits", "reserved_bits", "size",
	"exit_signal", "stack", "set_tid", "cgroup", "thread", "precedence",
};

enum outcome { OUT_ACCEPTED, OUT_EINVAL, OUT_E2BIG, OUT_EFAULT, OUT_OTHER,
	       NR_OUTCOMES };

static const char * const outcome_name[NR_OUTCOMES] = {
	"accepted", "EINVAL", "E2BIG", "EFAULT", "other",
};

/* Exit signals that are safe for the parent to receive (ignored/blocked). */
static const int safe_exit_signals[] = {
	0, SIGCHLD, SIGCHLD, SIGUSR1, SIGURG, SIGWINCH, 35, 50, V61_NSIG,
};

static const __u64 bad_exit_signals[] = {
	V61_NSIG + 1, 100, 0xff, 0x100, (1ULL << 32) | SIGCHLD,
	1ULL << 63, ~0ULL, 0x8000000000000011ULL,
};

struct fuzz_input {
	struct clone3_args args;	/* bytes as written, before truncation */
	size_t size;		/* size argument of the call */
	size_t tail_nz;		/* offset of a non-zero tail byte, 0: none */
	size_t mapped;		/* readable bytes from the struct start */
	enum kind kind;
};

struct verdict {
	int err;		/* 0: accepted, else the errno */
	const char *why;
};

struct fuzz {
	__u64 seed;
	__u64 iterations;	/* cap, 0: none */
	double seconds;		/* budget, 0: none */
	enum selftest_mode selftest;
	size_t page;
	int kbits;		/* the kernel's word size: 32 or 64, 0: guess */
	size_t ksize;		/* known struct size used by the model */
	bool newer_kernel;
	unsigned char *arena;	/* two pages, then a PROT_NONE page */
	unsigned char *stack;	/* STACK_SIZE bytes for CLONE_VM children */
	unsigned char *child_stack;	/* what the children really run on */
	__u64 tried;
	__u64 outcomes[NR_OUTCOMES];
	__u64 kind_tried[NR_KINDS];
	__u64 kind_accepted[NR_KINDS];
	__u64 kind_disagree[NR_KINDS];
	__u64 disagreements;
	__u64 flag_disagreements;
	bool flag_unknown;	/* kernel rejects the flag, not required */
	__u64 excl_accepted;
	__u64 undef_accepted;
	__u64 bad_children;
	__u64 handler_changes;
	__u64 guard_refusals;
};

static void canary_handler(int sig)
{
	(void)sig;
}

/*
 * The child's whole work, a few calls on fz->child_stack whatever stack
 * the input gave the kernel: read its own CANARY_SIGNAL entry and exit 0
 * when the handler is EXPECT, 1 when it is not, 2 when rt_sigaction()
 * failed.  It writes nothing but its own stack, so it is safe in a shared
 * address space.  clone3_run() ends it with SYS_exit, not exit_group: if
 * a faulty kernel ever made it a thread of ours, only that thread ends.
 */
static int canary_child(void *expect)
{
	struct ksigaction ka;

	if (ksigaction(CANARY_SIGNAL, NULL, &ka))
		return 2;
	return ka.handler == (unsigned long)expect ? 0 : 1;
}

static long fuzz_clone3(const struct fuzz *fz, void *args, size_t size,
			unsigned long expect)
{
	return clone3_run(args, size, canary_child, (void *)expect,
			  fz->child_stack + CHILD_STACK);
}

/* splitmix64: one independent stream per (seed, iteration). */
static __u64 rnd(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u64 below(__u64 *r, __u64 n)
{
	return n ? rnd(r) % n : 0;
}

static bool chance(__u64 *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

/*
 * One undefined flag bit above bit 31, evenly: bits 34-63 for a v6.1 or
 * v6.12 build (as always), 38-63 for a 7.1 or later one.
 */
static __u64 undefined_bit(__u64 *r)
{
	__u64 undefined = UNDEFINED_FLAGS & ~0xffffffffULL;
	__u64 n = below(r, __builtin_popcountll(undefined));
	int bit;

	for (bit = 32; bit < 64; bit++)
		if (((undefined >> bit) & 1) && !n--)
			return 1ULL << bit;
	return 1ULL << 63;	/* the table never defines it */
}

static const char *errno_name(int err, char *buf, size_t len)
{
	switch (err) {
	case 0:
		return "accepted";
	case EINVAL:
		return "EINVAL";
	case E2BIG:
		return "E2BIG";
	case EFAULT:
		return "EFAULT";
	case EPERM:
		return "EPERM";
	case EBADF:
		return "EBADF";
	case EAGAIN:
		return "EAGAIN";
	case ENOMEM:
		return "ENOMEM";
	}
	snprintf(buf, len, "errno %d", err);
	return buf;
}

/* ---- the model ---------------------------------------------------- */

static struct verdict verdict(int err, const char *why)
{
	struct verdict v = { err, why };

	return v;
}

/* copy_clone_args_from_user() size checks, then copy_struct_from_user(). */
static struct verdict model_copy(const struct fuzz *fz,
				 const struct fuzz_input *in)
{
	size_t known = in->size < fz->ksize ? in->size : fz->ksize;

	if (in->size > fz->page)
		return verdict(E2BIG, "size > PAGE_SIZE");
	if (in->size < V61_SIZE_VER0)
		return verdict(EINVAL, "size < CLONE_ARGS_SIZE_VER0");
	if (in->size > fz->ksize) {
		/* check_zeroed_user() stops at the first non-zero word */
		if (in->tail_nz && in->tail_nz < in->mapped)
			return verdict(E2BIG, "non-zero bytes past the struct");
		if (in->mapped < in->size)
			return verdict(EFAULT, "tail not readable");
	}
	if (in->mapped < known)
		return verdict(EFAULT, "struct not readable");
	return verdict(0, NULL);
}

/* The field checks of copy_clone_args_from_user(), on the kernel's view. */
static struct verdict model_fields(const struct fuzz_input *in,
				   const struct clone3_args *kv)
{
	if (kv->set_tid_size > V61_MAX_PID_NS_LEVEL)
		return verdict(EINVAL, "set_tid_size > MAX_PID_NS_LEVEL");
	if (!kv->set_tid && kv->set_tid_size)
		return verdict(EINVAL, "set_tid_size without set_tid");
	if (kv->set_tid && !kv->set_tid_size)
		return verdict(EINVAL, "set_tid without set_tid_size");
	if ((kv->exit_signal & ~V61_CSIGNAL) || kv->exit_signal > V61_NSIG)
		return verdict(EINVAL, "invalid exit_signal");
	if ((kv->flags & CLONE_INTO_CGROUP) &&
	    (kv->cgroup > INT_MAX || in->size < V61_SIZE_VER2))
		return verdict(EINVAL, "CLONE_INTO_CGROUP: bad cgroup or size");
	/* the generator only ever passes unreadable set_tid arrays */
	if (kv->set_tid)
		return verdict(EFAULT, "set_tid not readable");
	return verdict(0, NULL);
}

/*
 * clone3_stack_valid() on the kernel's view: access_ok() checks the range
 * against the 64-bit TASK_SIZE_MAX (also for a 32-bit program) or the
 * 32-bit TASK_SIZE, except where user space is an address space of its
 * own (CLONE3_OWN_USER_SPACE, clone3_raw.h), where it takes every range.
 * The generator keeps addresses clearly in or out.
 */
static bool model_stack_valid(const struct fuzz *fz,
			      const struct clone3_args *kv)
{
	__u64 end = kv->stack + kv->stack_size;

	if (!kv->stack)
		return !kv->stack_size;
	if (!kv->stack_size)
		return false;
	if (CLONE3_OWN_USER_SPACE)
		return true;
	if (fz->kbits == 32)
		return end <= LIMIT_32;	/* both below 2^32: no wrap */
	return end >= kv->stack && !(end >> 63);
}

static struct verdict model_flags(const struct fuzz *fz,
				  const struct clone3_args *kv)
{
	__u64 f = kv->flags;

	if ((f & UNDEFINED_FLAGS) && fz->selftest != SELFTEST_UNDEFINED)
		return verdict(EINVAL, "undefined flag bits");
	if ((f & CLONE_CLEAR_SIGHAND) && fz->flag_unknown)
		return verdict(EINVAL, "CLONE_CLEAR_SIGHAND unknown here");
	if (f & V61_RESERVED_FLAGS)
		return verdict(EINVAL, "CSIGNAL or CLONE_DETACHED bits");
	if ((f & CLONE_SIGHAND) && (f & CLONE_CLEAR_SIGHAND) &&
	    fz->selftest != SELFTEST_NO_EXCL)
		return verdict(EINVAL, "CLONE_SIGHAND with CLONE_CLEAR_SIGHAND");
	if ((f & (CLONE_THREAD | CLONE_PARENT)) && kv->exit_signal)
		return verdict(EINVAL, "CLONE_THREAD/PARENT with exit_signal");
	if (!model_stack_valid(fz, kv))
		return verdict(EINVAL, "invalid stack");
	return verdict(0, NULL);
}

/* The flag checks at the top of copy_process(). */
static struct verdict model_process(const struct clone3_args *kv)
{
	__u64 f = kv->flags;

	if ((f & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
		return verdict(EINVAL, "CLONE_NEWNS with CLONE_FS");
	if ((f & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
		return verdict(EINVAL, "CLONE_NEWUSER with CLONE_FS");
	if ((f & CLONE_THREAD) && !(f & CLONE_SIGHAND))
		return verdict(EINVAL, "CLONE_THREAD without CLONE_SIGHAND");
	if ((f & CLONE_SIGHAND) && !(f & CLONE_VM))
		return verdict(EINVAL, "CLONE_SIGHAND without CLONE_VM");
	return verdict(0, NULL);
}

/*
 * What the kernel works with: the bytes up to size, zeroes after, and on
 * a 32-bit kernel only the low word of stack, stack_size and tls (the
 * other fields are checked as 64-bit values before they are narrowed).
 */
static void kernel_view(const struct fuzz *fz, const struct fuzz_input *in,
			struct clone3_args *kv)
{
	memset(kv, 0, sizeof(*kv));
	memcpy(kv, &in->args, in->size < sizeof(*kv) ? in->size : sizeof(*kv));
	if (fz->kbits == 32) {
		kv->stack = (__u32)kv->stack;
		kv->stack_size = (__u32)kv->stack_size;
		kv->tls = (__u32)kv->tls;
	}
}

static struct verdict model(const struct fuzz *fz, const struct fuzz_input *in)
{
	struct clone3_args kv;
	struct verdict v;

	v = model_copy(fz, in);
	if (v.err)
		return v;
	kernel_view(fz, in, &kv);
	v = model_fields(in, &kv);
	if (v.err)
		return v;
	v = model_flags(fz, &kv);
	if (v.err)
		return v;
	return model_process(&kv);
}

/* ---- the generator ------------------------------------------------ */

static __u64 safe_exit_signal(__u64 *r)
{
	return safe_exit_signals[below(r, ARRAY_SIZE(safe_exit_signals))];
}

static __u64 safe_flags(__u64 *r)
{
	static const __u64 bits[] = {
		CLONE_VM, CLONE_FS, CLONE_FILES, CLONE_SIGHAND, CLONE_VFORK,
		CLONE_SYSVSEM, CLONE_UNTRACED, CLONE_IO,
	};
	__u64 f = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (chance(r, 30))
			f |= bits[i];
	if ((f & CLONE_SIGHAND) && chance(r, 85))
		f |= CLONE_VM;
	return f;
}

/* A stack inside our mapping, sometimes misaligned or a bit short. */
static void own_stack(const struct fuzz *fz, __u64 *r, struct clone3_args *a)
{
	__u64 off = chance(r, 30) ? below(r, 64) : 0;
	__u64 cut = chance(r, 30) ? below(r, 4096) : 0;

	a->stack = (__u64)(unsigned long)fz->stack + off;
	a->stack_size = STACK_SIZE - off - cut;
}

static void set_stack(const struct fuzz *fz, __u64 *r, struct clone3_args *a)
{
	if (a->flags & CLONE_VM || chance(r, 40)) {
		own_stack(fz, r, a);
	} else if (chance(r, 10)) {
		/* unmapped, but access_ok(): the child never touches it */
		a->stack = 0x10000;
		a->stack_size = 0x1000 + below(r, 0x1000);
	}
}

static size_t normal_size(const struct fuzz *fz, __u64 *r)
{
	switch (below(r, 6)) {
	case 0:
		return V61_SIZE_VER0;
	case 1:
		return V61_SIZE_VER1;
	case 2:
		return V61_SIZE_VER0 + below(r, V61_SIZE_VER2 - V61_SIZE_VER0);
	case 3:
		return fz->ksize + 1 + below(r, fz->page - fz->ksize);
	}
	return V61_SIZE_VER2;
}

/* Values in fields the kernel must ignore without their flags. */
static void garbage(__u64 *r, struct clone3_args *a)
{
	if (!chance(r, 50))
		return;
	a->pidfd = rnd(r);
	a->child_tid = rnd(r);
	a->parent_tid = rnd(r);
	a->tls = rnd(r);
	a->cgroup = rnd(r);
}

/* An input the model accepts, unless the safe flags say otherwise. */
static void gen_base(const struct fuzz *fz, __u64 *r, struct fuzz_input *in)
{
	memset(in, 0, sizeof(*in));
	in->args.flags = safe_flags(r);
	in->args.exit_signal = safe_exit_signal(r);
	garbage(r, &in->args);
	set_stack(fz, r, &in->args);
	in->size = normal_size(fz, r);
	in->mapped = 2 * fz->page;
}

static void gen_clear(const struct fuzz *fz, __u64 *r, struct fuzz_input *in)
{
	in->args.flags |= CLONE_CLEAR_SIGHAND;
	if (chance(r, 50))
		in->args.flags |= CLONE_SIGHAND | CLONE_VM;
	else if (chance(r, 50))
		in->args.flags &= ~CLONE_SIGHAND;
	set_stack(fz, r, &in->args);
}

static void gen_undefined(const struct fuzz *fz, __u64 *r,
			  struct fuzz_input *in)
{
	unsigned int n = 1 + below(r, 3);

	while (n--)
		in->args.flags |= undefined_bit(r);
	if (chance(r, 30))
		in->args.flags |= CLONE_CLEAR_SIGHAND;
	if ((in->args.flags & CLONE_SIGHAND) && chance(r, 90))
		in->args.flags &= ~(CLONE_SIGHAND | CLONE_CLEAR_SIGHAND);
}

static void gen_reserved(const struct fuzz *fz, __u64 *r,
			 struct fuzz_input *in)
{
	if (chance(r, 25))
		in->args.flags |= CLONE_DETACHED;
	else
		in->args.flags |= 1ULL << below(r, 7);
	if (chance(r, 20))
		in->args.flags |= CLONE_DETACHED;
}

static void gen_edge(const struct fuzz *fz, __u64 *r, struct fuzz_input *in)
{
	in->size = V61_SIZE_VER0 + below(r, fz->page - V61_SIZE_VER0 + 1);
	in->mapped = 8 * below(r, (in->size + 7) / 8);
	if (in->size > fz->ksize && chance(r, 50))
		in->tail_nz = fz->ksize + below(r, in->size - fz->ksize);
}

static void gen_size(const struct fuzz *fz, __u64 *r, struct fuzz_input *in)
{
	switch (below(r, 5)) {
	case 0:
		in->size = below(r, V61_SIZE_VER0);
		break;
	case 1:
		in->size = fz->page + 1 + below(r, 64);
		break;
	case 2:
		in->size = chance(r, 50) ? SIZE_MAX : SIZE_MAX / 2 + 1;
		break;
	case 3:
		gen_edge(fz, r, in);
		break;
	default:
		in->size = fz->ksize + 1 + below(r, fz->page - fz->ksize);
		in->tail_nz = fz->ksize + below(r, in->size - fz->ksize);
	}
}

static void gen_exit_signal(const struct fuzz *fz, __u64 *r,
			    struct fuzz_input *in)
{
	in->args.exit_signal =
		bad_exit_signals[below(r, ARRAY_SIZE(bad_exit_signals))];
	if (chance(r, 30))
		in->args.exit_signal = V61_NSIG + 1 + below(r, 1000);
}

static void gen_stack(const struct fuzz *fz, __u64 *r, struct fuzz_input *in)
{
	struct clone3_args *a = &in->args;

	own_stack(fz, r, a);
	switch (below(r, 6)) {
	case 0:
		a->stack = 0;
		break;
	case 1:
		a->stack_size = 0;
		break;
	case 2:
		a->stack = ~0ULL - below(r, 0x1000);
		a->stack_size = 0x2000 + below(r, 0x10000);
		break;
	case 3:
		a->stack = KERNEL_ADDR + below(r, 1ULL << 24);
		a->stack_size = 0x1000;
		break;
	case 4:	/* a 32-bit kernel drops these bits, a 64-bit one refuses */
		if (chance(r, 50))
			a->stack |= HIGH_BITS;
		else
			a->stack_size |= HIGH_BITS;
		break;
	default:
		a->stack += 1 + below(r, 15);	/* misaligned, accepted */
		a->stack_size -= 16;
	}
}

static __u64 unreadable(const struct fuzz *fz, __u64 *r)
{
	if (chance(r, 50))
		return KERNEL_ADDR + 8 * below(r, 1ULL << 20);
	return (__u64)(unsigned long)(fz->arena + 2 * fz->page) +
	       4 * below(r, fz->page / 4);
}

static void gen_set_tid(const struct fuzz *fz, __u64 *r,
			struct fuzz_input *in)
{
	struct clone3_args *a = &in->args;

	if (in->size < V61_SIZE_VER1 && chance(r, 80))
		in->size = V61_SIZE_VER2;
	switch (below(r, 4)) {
	case 0:
		a->set_tid = unreadable(fz, r);
		a->set_tid_size = V61_MAX_PID_NS_LEVEL + 1 + below(r, 1000);
		break;
	case 1:
		a->set_tid_size = 1 + below(r, V61_MAX_PID_NS_LEVEL);
		break;
	case 2:
		a->set_tid = unreadable(fz, r);
		break;
	default:
		a->set_tid = unreadable(fz, r);
		a->set_tid_size = 1 + below(r, V61_MAX_PID_NS_LEVEL);
		if (chance(r, 50))	/* EFAULT comes before flag errors */
			a->flags |= undefined_bit(r);
	}
}

static void gen_cgroup(const struct fuzz *fz, __u64 *r,
		       struct fuzz_input *in)
{
	in->args.flags |= CLONE_INTO_CGROUP;
	if (chance(r, 50)) {
		in->size = V61_SIZE_VER0 + below(r, V61_SIZE_VER2 - V61_SIZE_VER0);
	} else {
		in->size = V61_SIZE_VER2;
		in->args.cgroup = (__u64)INT_MAX + 1 + below(r, 1ULL << 40);
	}
}

/* CLONE_THREAD, always rejected by exit_signal or a missing CLONE_SIGHAND. */
static void gen_thread(const struct fuzz *fz, __u64 *r, struct fuzz_input *in)
{
	in->args.flags &= ~CLONE_CLEAR_SIGHAND;
	in->args.flags |= CLONE_THREAD | CLONE_VM;
	if (chance(r, 50)) {
		in->args.flags |= CLONE_SIGHAND;
		in->args.exit_signal = SIGCHLD;
	} else {
		in->args.flags &= ~CLONE_SIGHAND;
		in->args.exit_signal = 0;
	}
	own_stack(fz, r, &in->args);
}

/*
 * Early rejection reason @which: 0-2 set the size (one of them at most),
 * 3 a bad exit_signal, 4 a CSIGNAL flag bit.
 */
static void early_reason(const struct fuzz *fz, __u64 *r,
			 struct fuzz_input *in, unsigned int which)
{
	switch (which) {
	case 0:
		in->size = below(r, V61_SIZE_VER0);
		break;
	case 1:
		in->size = fz->page + 1 + below(r, 4096);
		break;
	case 2:
		in->size = fz->ksize + 8 + below(r, 256);
		in->tail_nz = fz->ksize + below(r, in->size - fz->ksize);
		break;
	case 3:
		in->args.exit_signal = V61_NSIG + 1 + below(r, 200);
		break;
	default:
		in->args.flags |= 1ULL << below(r, 7);
	}
}

/* Side-effect flags behind two early reasons: the earliest must win. */
static void gen_precedence(const struct fuzz *fz, __u64 *r,
			   struct fuzz_input *in)
{
	unsigned int other = below(r, 3);	/* exit_signal, CSIGNAL, both */

	in->args.flags |= rnd(r) & HAZARD_FLAGS;
	if (chance(r, 30))
		in->args.flags |= CLONE_NEWUSER | CLONE_FS;
	if (chance(r, 75))
		early_reason(fz, r, in, below(r, 3));
	else
		other = 2;
	if (other != 1)
		early_reason(fz, r, in, 3);
	if (other != 0)
		early_reason(fz, r, in, 4);
	if (chance(r, 30))
		in->args.flags |= undefined_bit(r);
}

static void (* const generators[NR_KINDS])(const struct fuzz *, __u64 *,
					   struct fuzz_input *) = {
	[KIND_CLEAR] = gen_clear,
	[KIND_UNDEFINED] = gen_undefined,
	[KIND_RESERVED] = gen_reserved,
	[KIND_SIZE] = gen_size,
	[KIND_EXIT_SIGNAL] = gen_exit_signal,
	[KIND_STACK] = gen_stack,
	[KIND_SET_TID] = gen_set_tid,
	[KIND_CGROUP] = gen_cgroup,
	[KIND_THREAD] = gen_thread,
	[KIND_PRECEDENCE] = gen_precedence,
};

/* Iteration i draws kind i % NR_KINDS from its own random stream. */
static void generate(const struct fuzz *fz, __u64 iter, struct fuzz_input *in)
{
	__u64 r = fz->seed ^ (iter * 0xd1b54a32d192ed03ULL);
	enum kind kind = iter % NR_KINDS;

	rnd(&r);
	gen_base(fz, &r, in);
	in->kind = kind;
	if (generators[kind])
		generators[kind](fz, &r, in);
}

/* ---- running one input -------------------------------------------- */

static bool is_safe_exit_signal(__u64 sig)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(safe_exit_signals); i++)
		if (sig == (__u64)safe_exit_signals[i])
			return true;
	return false;
}

/* Last line of defence: the model must never let a side effect through. */
static bool safe_to_accept(const struct fuzz *fz, const struct fuzz_input *in)
{
	struct clone3_args kv;

	kernel_view(fz, in, &kv);
	if (kv.flags & (HAZARD_FLAGS | V61_RESERVED_FLAGS))
		return false;
	if ((kv.flags & CLONE_VM) && !kv.stack)
		return false;
	return is_safe_exit_signal(kv.exit_signal) && !kv.set_tid;
}

/* Lay the argument bytes out in the arena; returns the struct address. */
static void *place(const struct fuzz *fz, const struct fuzz_input *in)
{
	unsigned char *end = fz->arena + 2 * fz->page;
	unsigned char *buf = fz->arena;
	size_t avail, clear;

	if (in->mapped < 2 * fz->page)
		buf = end - in->mapped;
	avail = end - buf;
	clear = in->size > sizeof(in->args) ? in->size : sizeof(in->args);
	if (clear > avail)
		clear = avail;
	memset(buf, 0, clear);
	/* the whole image: bytes past a short size must be ignored */
	memcpy(buf, &in->args, sizeof(in->args) < avail ?
	       sizeof(in->args) : avail);
	if (in->tail_nz && in->tail_nz < avail)
		buf[in->tail_nz] = 0xa5;
	return buf;
}

/* The child's exit code, or -1 when it was killed or cannot be waited for. */
static int reap(pid_t pid)
{
	pid_t ret;
	int status;

	do {
		ret = waitpid(pid, &status, __WALL);
	} while (ret < 0 && errno == EINTR);
	return ret == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The handler a child must find for CANARY_SIGNAL, given its flags. */
static unsigned long expected_handler(__u64 flags)
{
	if (flags & CLONE_CLEAR_SIGHAND)
		return (unsigned long)SIG_DFL;
	return (unsigned long)canary_handler;
}

static void set_canary(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = canary_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigaction(CANARY_SIGNAL, &sa, NULL);
}

/* Our own caught handler must survive a CLONE_CLEAR_SIGHAND child. */
static bool canary_intact(void)
{
	struct sigaction sa;

	if (sigaction(CANARY_SIGNAL, NULL, &sa))
		return false;
	return sa.sa_handler == canary_handler &&
	       (sa.sa_flags & SA_RESTART) &&
	       sigismember(&sa.sa_mask, SIGUSR1) == 1;
}

/* Exit signals are ignored and blocked: a child's exit never hurts us. */
static void setup_signals(void)
{
	struct sigaction ign;
	sigset_t block;
	size_t i;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(safe_exit_signals); i++) {
		int sig = safe_exit_signals[i];

		if (!sig || sig == SIGCHLD)
			continue;
		sigaction(sig, &ign, NULL);
		sigaddset(&block, sig);
	}
	set_canary();
	sigaddset(&block, CANARY_SIGNAL);
	sigprocmask(SIG_BLOCK, &block, NULL);
}

static void show_input(const struct fuzz *fz, __u64 iter,
		       const struct fuzz_input *in)
{
	const struct clone3_args *a = &in->args;

	ksft_print_msg("  seed=%llu iteration=%llu kind=%s\n",
		       (unsigned long long)fz->seed, (unsigned long long)iter,
		       kind_name[in->kind]);
	ksft_print_msg("  flags=0x%llx size=%zu exit_signal=0x%llx\n",
		       (unsigned long long)a->flags, in->size,
		       (unsigned long long)a->exit_signal);
	ksft_print_msg("  stack=0x%llx stack_size=0x%llx set_tid=0x%llx\n",
		       (unsigned long long)a->stack,
		       (unsigned long long)a->stack_size,
		       (unsigned long long)a->set_tid);
	ksft_print_msg("  set_tid_size=%llu cgroup=0x%llx\n",
		       (unsigned long long)a->set_tid_size,
		       (unsigned long long)a->cgroup);
	ksft_print_msg("  tail=%s%zu readable=%zu\n",
		       in->tail_nz ? "non-zero byte at " : "zero, ",
		       in->tail_nz, in->mapped);
}

static void problem(struct fuzz *fz, __u64 iter, const struct fuzz_input *in,
		    const char *what)
{
	static unsigned int shown;

	if (shown++ < MAX_SHOWN) {
		ksft_print_msg("%s\n", what);
		show_input(fz, iter, in);
	}
}

static void check_child(struct fuzz *fz, __u64 iter,
			const struct fuzz_input *in, pid_t pid)
{
	__u64 f = in->args.flags;
	char what[96];
	int code = reap(pid);

	if (code) {
		fz->bad_children++;
		snprintf(what, sizeof(what),
			 "child: %s (exit code %d), expected handler %s",
			 code == 1 ? "wrong CANARY_SIGNAL handler" :
			 code == 2 ? "rt_sigaction() failed" :
			 "killed or not reapable", code,
			 f & CLONE_CLEAR_SIGHAND ? "SIG_DFL" : "inherited");
		problem(fz, iter, in, what);
	}
	if ((f & CLONE_SIGHAND) && (f & CLONE_CLEAR_SIGHAND)) {
		fz->excl_accepted++;
		problem(fz, iter, in, "INVARIANT: CLONE_SIGHAND|CLONE_CLEAR_SIGHAND accepted");
	}
	if (f & UNDEFINED_FLAGS) {
		fz->undef_accepted++;
		problem(fz, iter, in, "INVARIANT: undefined flag bits accepted");
	}
	if ((f & CLONE_CLEAR_SIGHAND) && !canary_intact()) {
		fz->handler_changes++;
		problem(fz, iter, in, "INVARIANT: the parent's handler was changed");
		set_canary();
	}
}

static enum outcome outcome_of(int err)
{
	switch (err) {
	case 0:
		return OUT_ACCEPTED;
	case EINVAL:
		return OUT_EINVAL;
	case E2BIG:
		return OUT_E2BIG;
	case EFAULT:
		return OUT_EFAULT;
	}
	return OUT_OTHER;
}

static void compare(struct fuzz *fz, __u64 iter, const struct fuzz_input *in,
		    struct verdict v, int actual)
{
	char what[160], e1[16], e2[16];

	fz->tried++;
	fz->kind_tried[in->kind]++;
	fz->outcomes[outcome_of(actual)]++;
	if (!actual)
		fz->kind_accepted[in->kind]++;
	if (v.err == actual)
		return;
	if (in->args.flags & CLONE_CLEAR_SIGHAND)
		fz->flag_disagreements++;
	else
		fz->disagreements++;
	fz->kind_disagree[in->kind]++;
	snprintf(what, sizeof(what), "DISAGREEMENT: expected %s (%s), kernel: %s",
		 errno_name(v.err, e1, sizeof(e1)), v.why ? v.why : "valid",
		 errno_name(actual, e2, sizeof(e2)));
	problem(fz, iter, in, what);
}

static void run_one(struct fuzz *fz, __u64 iter)
{
	struct fuzz_input in;
	struct verdict v;
	long ret;

	generate(fz, iter, &in);
	v = model(fz, &in);
	if (!v.err && !safe_to_accept(fz, &in)) {
		fz->guard_refusals++;
		problem(fz, iter, &in, "GUARD: model accepts an input with side effects; not run");
		return;
	}
	ret = fuzz_clone3(fz, place(fz, &in), in.size,
			  expected_handler(in.args.flags));
	if (ret > 0)
		check_child(fz, iter, &in, ret);
	compare(fz, iter, &in, v, ret > 0 ? 0 : (int)-ret);
}

/* ---- setup, probes and the report --------------------------------- */

static __u64 env_u64(const char *name, __u64 dflt, bool *set)
{
	const char *s = getenv(name);
	unsigned long long val;
	char *end;

	*set = s && *s;
	if (!*set)
		return dflt;
	errno = 0;
	val = strtoull(s, &end, 0);
	if (errno || *end || *s == '-')
		ksft_exit_fail_msg("bad %s=%s: want a non-negative integer\n",
				   name, s);
	return val;
}

/* A time budget in seconds: a non-negative decimal (2, 0.5). */
static double env_seconds(const char *name, double dflt)
{
	const char *s = getenv(name);
	double val;
	char *end;

	if (!s || !*s)
		return dflt;
	errno = 0;
	val = strtod(s, &end);
	if (errno || *end || *s < '0' || *s > '9' || val > 86400)
		ksft_exit_fail_msg("bad %s=%s: want seconds, such as 2 or 0.5\n",
				   name, s);
	return val;
}

static enum selftest_mode env_selftest(void)
{
	const char *s = getenv("CLONE3_FUZZ_SELFTEST");

	if (!s || !*s)
		return SELFTEST_NONE;
	if (!strcmp(s, "undefined-bits"))
		return SELFTEST_UNDEFINED;
	if (!strcmp(s, "no-exclusion"))
		return SELFTEST_NO_EXCL;
	ksft_exit_fail_msg("bad CLONE3_FUZZ_SELFTEST=%s: want undefined-bits or no-exclusion\n",
			   s);
	return SELFTEST_NONE;
}

static void read_env(struct fuzz *fz)
{
	struct timespec ts;
	bool seed_set, iter_set, bits_set;
	__u64 bits;

	clock_gettime(CLOCK_REALTIME, &ts);
	fz->seed = env_u64("CLONE3_FUZZ_SEED",
			   (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec +
			   getpid(), &seed_set);
	fz->iterations = env_u64("CLONE3_FUZZ_ITERATIONS", 0, &iter_set);
	fz->seconds = env_seconds("CLONE3_FUZZ_SECONDS", iter_set ? 0 : 2);
	if (!fz->seconds && !fz->iterations)
		ksft_exit_fail_msg("CLONE3_FUZZ_SECONDS=0 needs CLONE3_FUZZ_ITERATIONS=n\n");
	fz->selftest = env_selftest();
	bits = env_u64("CLONE3_FUZZ_KERNEL_BITS", 0, &bits_set);
	if (bits_set && bits != 64 && (bits != 32 || sizeof(long) == 8))
		ksft_exit_fail_msg("bad CLONE3_FUZZ_KERNEL_BITS=%s: want 64 (32: 32-bit only)\n",
				   getenv("CLONE3_FUZZ_KERNEL_BITS"));
	fz->kbits = bits;
}

static void setup_memory(struct fuzz *fz)
{
	fz->page = sysconf(_SC_PAGESIZE);
	fz->ksize = V61_SIZE_VER2;
	fz->arena = mmap(NULL, 3 * fz->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fz->stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fz->child_stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (fz->arena == MAP_FAILED || fz->stack == MAP_FAILED ||
	    fz->child_stack == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	if (mprotect(fz->arena + 2 * fz->page, fz->page, PROT_NONE))
		ksft_exit_fail_msg("mprotect: %s\n", strerror(errno));
}

/*
 * clone3(NULL, 0) must fail with EINVAL.  Skip only when it fails the way
 * a syscall number the kernel does not know fails.
 */
static void check_available(const struct fuzz *fz)
{
	long ret = fuzz_clone3(fz, NULL, 0, 0);
	int err;

	if (ret > 0)
		reap(ret);
	if (ret == -EINVAL)
		return;
	err = clone3_missing_errno();
	if (err)
		ksft_exit_skip("clone3 is not available: %s\n", strerror(err));
	ksft_exit_fail_msg("clone3(NULL, 0) gave %ld, not -EINVAL\n", ret);
}

/* The first offset whose non-zero byte gives E2BIG: the kernel's size. */
static size_t probe_ksize(const struct fuzz *fz)
{
	struct clone3_args *a = (struct clone3_args *)fz->arena;
	size_t off;
	long ret;

	for (off = V61_SIZE_VER2; off + 8 <= fz->page && off < 1024; off += 8) {
		memset(fz->arena, 0, off + 8);
		a->flags = 1ULL << 63;		/* rejected twice over */
		a->exit_signal = 1ULL << 32;
		fz->arena[off] = 1;
		ret = fuzz_clone3(fz, a, off + 8, 0);
		if (ret > 0)
			reap(ret);
		if (ret == -E2BIG)
			return off;
	}
	return 0;
}

/* A plain fork-like call with the flag: accepted when the kernel knows it. */
static void probe_flag(struct fuzz *fz)
{
	struct clone3_args *a = (struct clone3_args *)fz->arena;
	long ret;

	memset(a, 0, sizeof(*a));
	a->flags = CLONE_CLEAR_SIGHAND;
	a->exit_signal = SIGCHLD;
	ret = fuzz_clone3(fz, a, sizeof(*a), expected_handler(a->flags));
	if (ret > 0) {
		reap(ret);
		return;
	}
	fz->flag_unknown = !clone3_flag_required();
	ksft_print_msg("kernel rejects CLONE_CLEAR_SIGHAND (%ld): flag_* results %s\n",
		       ret, fz->flag_unknown ? "skipped" :
		       "fail (CLONE3_REQUIRE_CLEAR_SIGHAND=1)");
}

static bool kernel_newer_than_61(const char *release)
{
	int major = 0, minor = 0;

	if (sscanf(release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor > 1);
}

/*
 * uname(2) under the plain PER_LINUX personality: linux32 (PER_LINUX32)
 * would make a 64-bit kernel report i686 or armv8l to a 32-bit program.
 */
static void kernel_uname(struct utsname *u)
{
	int old = personality(0xffffffff);
	bool swap = old != -1 && (old & PER_MASK) != PER_LINUX;

	if (swap)
		personality((old & ~PER_MASK) | PER_LINUX);
	uname(u);
	if (swap)
		personality(old);
}

/*
 * The kernel's word size.  A 64-bit program runs on a 64-bit kernel
 * only; for a 32-bit one the machine decides: x86_64, aarch64, riscv64,
 * ppc64, s390x ... mean a 64-bit kernel (compat), i686, armv7l, armv8l
 * a 32-bit one.  CLONE3_FUZZ_KERNEL_BITS overrides it.
 */
static int kernel_bits(const struct fuzz *fz, const struct utsname *u)
{
	if (fz->kbits)
		return fz->kbits;
	if (sizeof(long) == 8 || strstr(u->machine, "64") ||
	    !strcmp(u->machine, "s390x"))
		return 64;
	return 32;
}

static void describe_kernel(struct fuzz *fz)
{
	struct utsname u;
	size_t probed;

	kernel_uname(&u);
	fz->kbits = kernel_bits(fz, &u);
	fz->newer_kernel = kernel_newer_than_61(u.release);
	probed = probe_ksize(fz);
	ksft_print_msg("kernel %s %s, %d-bit; program %zu-bit\n", u.release,
		       u.machine, fz->kbits, 8 * sizeof(long));
	ksft_print_msg("model: v6.1 clone3 rules, struct clone_args %d bytes\n",
		       V61_SIZE_VER2);
	ksft_print_msg("flags: those of the %d.%d headers, undefined from bit %d\n",
		       CLONE3_TREE_MAJOR, CLONE3_TREE_MINOR,
		       __builtin_ctzll(UNDEFINED_FLAGS & ~0xffffffffULL));
	if (NEWER_FLAGS)
		ksft_print_msg("flags newer than 6.1 (%#llx): only behind an earlier rejection\n",
			       (unsigned long long)NEWER_FLAGS);
	ksft_print_msg("probe: the kernel rejects non-zero bytes from offset %zu%s\n",
		       probed, probed ? "" : " (never: tail bytes not checked?)");
	if (fz->newer_kernel && probed > V61_SIZE_VER2) {
		fz->ksize = probed;
		ksft_print_msg("newer kernel with a larger struct: bytes %d..%zu stay zero\n",
			       V61_SIZE_VER2, probed - 1);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool budget_left(const struct fuzz *fz, __u64 iter, double start)
{
	if (fz->iterations && iter >= fz->iterations)
		return false;
	if (iter < 2 * NR_KINDS)	/* every kind at least twice */
		return true;
	return !fz->seconds || now() - start < fz->seconds;
}

static void fuzz_loop(struct fuzz *fz)
{
	double start = now(), took;
	__u64 iter;

	for (iter = 0; budget_left(fz, iter, start); iter++)
		run_one(fz, iter);
	took = now() - start;
	ksft_print_msg("inputs: %llu in %.2f s (%.0f per second)\n",
		       (unsigned long long)fz->tried, took,
		       took > 0 ? fz->tried / took : 0.0);
}

static void report(const struct fuzz *fz)
{
	int i;

	for (i = 0; i < NR_OUTCOMES; i++)
		ksft_print_msg("outcome %-8s %llu\n", outcome_name[i],
			       (unsigned long long)fz->outcomes[i]);
	for (i = 0; i < NR_KINDS; i++)
		ksft_print_msg("kind %-14s %llu tried, %llu accepted, %llu disagreements\n",
			       kind_name[i],
			       (unsigned long long)fz->kind_tried[i],
			       (unsigned long long)fz->kind_accepted[i],
			       (unsigned long long)fz->kind_disagree[i]);
	if (fz->disagreements || fz->flag_disagreements)
		ksft_print_msg("reproduce: CLONE3_FUZZ_SEED=%llu %s\n",
			       (unsigned long long)fz->seed,
			       "CLONE3_FUZZ_ITERATIONS=<iteration + 1>");
}

static bool no_stray_child(void)
{
	int status;

	return waitpid(-1, &status, __WALL | WNOHANG) < 0 && errno == ECHILD;
}

/* One KTAP result; the count that decides it goes on the line before. */
static void result(const char *name, __u64 count, bool *all)
{
	ksft_print_msg("%s: %llu problems\n", name, (unsigned long long)count);
	ksft_test_result(!count, "%s\n", name);
	*all = *all && !count;
}

static void flag_result(const struct fuzz *fz, const char *name, __u64 count,
			bool *all)
{
	if (fz->flag_unknown)
		ksft_test_result_skip("%s: kernel rejects CLONE_CLEAR_SIGHAND\n",
				      name);
	else
		result(name, count, all);
}

#define NR_RESULTS 7

static void results(const struct fuzz *fz)
{
	bool all = true;

	result("model_agreement", fz->disagreements, &all);
	flag_result(fz, "flag_model_agreement", fz->flag_disagreements, &all);
	flag_result(fz, "flag_sighand_exclusion", fz->excl_accepted, &all);
	flag_result(fz, "flag_parent_handlers_untouched", fz->handler_changes,
		    &all);
	result("undefined_bits_never_accepted", fz->undef_accepted, &all);
	result("children_find_their_handler", fz->bad_children, &all);
	result("no_stray_child", !no_stray_child(), &all);
	/*
	 * The guard is the fuzzer checking its own model, not the kernel:
	 * an input it had to hold back is a bug of this program, reported
	 * as an error rather than as a test of the kernel.
	 */
	if (fz->guard_refusals)
		ksft_exit_fail_msg("fuzzer error: %llu inputs with side effects %s\n",
				   (unsigned long long)fz->guard_refusals,
				   "accepted by the model (not run)");
	ksft_exit(all);
}

int main(void)
{
	static struct fuzz fz;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	read_env(&fz);
	if (!CLONE3_HAVE_RUN)
		ksft_exit_skip("no raw clone3 call for this architecture\n");
	setup_memory(&fz);
	check_available(&fz);
	setup_signals();
	ksft_set_plan(NR_RESULTS);
	ksft_print_msg("seed=%llu (CLONE3_FUZZ_SEED), budget %g s, iteration cap %llu\n",
		       (unsigned long long)fz.seed, fz.seconds,
		       (unsigned long long)fz.iterations);
	if (fz.selftest != SELFTEST_NONE)
		ksft_print_msg("SELFTEST: model perturbed (%s): disagreements must be reported\n",
			       getenv("CLONE3_FUZZ_SELFTEST"));
	describe_kernel(&fz);
	probe_flag(&fz);
	fuzz_loop(&fz);
	report(&fz);
	results(&fz);
	return 0;
}
