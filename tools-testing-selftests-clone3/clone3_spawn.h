/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A posix_spawn()-style spawner built on clone3(CLONE_VM | CLONE_VFORK),
 * with two ways of making sure that no signal handler of the parent runs
 * in the child, which shares the parent's memory until it calls execve():
 *
 *  SPAWN_FLAG     CLONE_CLEAR_SIGHAND: the kernel resets the handlers.
 *  SPAWN_CLASSIC  the child asks the kernel for the disposition of every
 *                 signal 1..64 and resets each caught one to SIG_DFL, as
 *                 glibc 2.36's posix_spawn() does.
 *
 * Both block every signal in the parent around clone3() and give the
 * child the parent's signal mask back just before execve().
 */
#ifndef CLONE3_SPAWN_H
#define CLONE3_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "clone3_raw.h"

enum spawn_strategy {
	SPAWN_FLAG,
	SPAWN_CLASSIC,
};

struct spawn_hooks {
	/* Runs in the child after the signal reset, right before execve(). */
	void (*before_exec)(void *data);
	void *data;
	/* When set, the child adds the signal system calls it made here. */
	unsigned long *sig_syscalls;
};

/* True when this architecture has a spawner and the kernel has clone3(). */
bool clone3_spawn_available(void);

/*
 * Start PATH with ARGV and ENVP.  Returns the child's pid or a negative
 * errno: -EOPNOTSUPP when this architecture has no spawner, the error of
 * clone3() (-EINVAL: the kernel refuses CLONE_CLEAR_SIGHAND), or the
 * error of execve() in the child, which is then already reaped.
 */
pid_t clone3_spawn(enum spawn_strategy strategy, const char *path,
		   char *const argv[], char *const envp[],
		   const struct spawn_hooks *hooks);

const char *spawn_strategy_name(enum spawn_strategy strategy);

#endif /* CLONE3_SPAWN_H */
