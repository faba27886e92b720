// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of one spawn: the clone3() spawner with CLONE_CLEAR_SIGHAND (flag)
 * and with the child's own reset (classic), beside glibc's posix_spawn()
 * and fork() + execve(), for a parent with no handlers and with every
 * handler glibc lets it install.  A spawn is timed from the call until
 * the child has called execve() (posix_spawn() returns then; for fork()
 * the parent waits for EOF on a close-on-exec pipe); reaping is not timed.
 * The spawned program is this one with --exit, which leaves at once.
 *
 * Spawns of every strategy alternate, so that a ratio is taken between
 * spawns made at nearly the same time; a round's figure is the median of
 * its spawns, which a preempted spawn does not move (the mean when the
 * clock is too coarse to time one spawn).  Output is a
 * markdown table with plain numbers: microseconds per spawn and the
 * ratio to posix_spawn() (median, min, max of the rounds' figures), and
 * the signal system calls the child made per spawn, counted by the
 * spawner itself (flag, classic); the other two need strace from outside.
 * A plain static program: it runs as is in a guest without a shell.
 * Exit 1 when a strategy failed, except the flag on a kernel without it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clone3_spawn.h"

#define MAX_ROUNDS 1000
#define COARSE_CLOCK_NS 1000

enum strat { S_FLAG, S_CLASSIC, S_POSIX_SPAWN, S_FORK, S_COUNT };

static const char * const strat_names[S_COUNT] = {
	"flag", "classic", "posix_spawn", "fork",
};

struct bench {
	int spawns;
	int rounds;
	const char *program;
	unsigned int strats;	/* bit per enum strat */
	unsigned int handlers;	/* bit 0: none, bit 1: all */
	char *argv[3];
	char *const *envp;
	long clock_ns;		/* smallest step of CLOCK_MONOTONIC */
};

/* Per handler setting and strategy: median microseconds by round. */
struct result {
	double us[MAX_ROUNDS];
	double *samples;	/* one round's spawns */
	unsigned long sig_calls;
	int err;
};

static struct result results[2][S_COUNT];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* 64 bits: seconds times 10^9 overflow a 32-bit long. */
static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/*
 * The smallest step CLOCK_MONOTONIC makes, seen from here: clock_getres()
 * says 1 ns with high-resolution timers even on a jiffies clocksource.
 */
static long clock_step_ns(void)
{
	struct timespec a, b;
	long long step, best = 0;
	int i;

	for (i = 0; i < 5; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while (ts_ns(&b) == ts_ns(&a));
		step = ts_ns(&b) - ts_ns(&a);
		if (!best || step < best)
			best = step;
	}
	return best;
}

static void handler(int sig)
{
}

/* No handler at all, or one for every signal glibc lets us catch. */
static void set_handlers(bool all)
{
	struct sigaction sa = { .sa_flags = SA_RESTART };
	int sig;

	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig <= KSIG_MAX; sig++) {
		sa.sa_handler = all ? handler : SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
}

/* fork() + execve(); the pipe closes on exec, or carries its errno. */
static pid_t spawn_fork(struct bench *b)
{
	int fds[2], err = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		execve(b->program, b->argv, b->envp);
		err = errno;
		if (write(fds[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &err, sizeof(err)) > 0) {
		waitpid(pid, NULL, 0);
		pid = -err;
	}
	close(fds[0]);
	return pid < 0 && !err ? -errno : pid;
}

static pid_t spawn_one(struct bench *b, enum strat s, unsigned long *calls)
{
	struct spawn_hooks hooks = { .sig_syscalls = calls };
	pid_t pid;
	int err;

	switch (s) {
	case S_FLAG:
		return clone3_spawn(SPAWN_FLAG, b->program, b->argv, b->envp,
				    &hooks);
	case S_CLASSIC:
		return clone3_spawn(SPAWN_CLASSIC, b->program, b->argv,
				    b->envp, &hooks);
	case S_POSIX_SPAWN:
		err = posix_spawn(&pid, b->program, NULL, NULL, b->argv,
				  b->envp);
		return err ? -err : pid;
	default:
		return spawn_fork(b);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The median of a round's spawns; with a clock too coarse to time one
 * spawn (a guest kernel on jiffies) the mean, which stays unbiased as the
 * spawns start at random points between two ticks.
 */
static double round_figure(struct bench *b, double *v)
{
	double sum = 0;
	int i;

	if (b->clock_ns <= COARSE_CLOCK_NS)
		return median(v, b->spawns);
	for (i = 0; i < b->spawns; i++)
		sum += v[i];
	return sum / b->spawns;
}

/* One timed spawn, reaped untimed; returns microseconds or -errno. */
static double time_spawn(struct bench *b, enum strat s, unsigned long *calls)
{
	double t;
	int status;
	pid_t pid;

	t = now_us();
	pid = spawn_one(b, s, calls);
	t = now_us() - t;
	if (pid < 0)
		return pid;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -ECHILD;
	return t;
}

/* Spawns of every strategy in turn, so that drift hits all alike. */
static void run_handlers(struct bench *b, int h, int round)
{
	struct result *r;
	double us;
	int i, s;

	for (s = 0; s < S_COUNT; s++)
		results[h][s].sig_calls = 0;
	for (i = 0; i < b->spawns; i++) {
		for (s = 0; s < S_COUNT; s++) {
			r = &results[h][s];
			if (!(b->strats & (1U << s)) || r->err)
				continue;
			us = time_spawn(b, s, &r->sig_calls);
			if (us < 0)
				r->err = -us;
			r->samples[i] = us;
		}
	}
	for (s = 0; s < S_COUNT; s++) {
		r = &results[h][s];
		if ((b->strats & (1U << s)) && !r->err)
			r->us[round] = round_figure(b, r->samples);
	}
}

static void run_round(struct bench *b, int round)
{
	int h;

	for (h = 0; h < 2; h++) {
		if (!(b->handlers & (1U << h)))
			continue;
		set_handlers(h);
		run_handlers(b, h, round);
	}
	set_handlers(false);
}

/* Median, min and max of N values (sorted in place). */
static void spread(double *v, int n, double out[3])
{
	out[0] = median(v, n);
	out[1] = v[0];
	out[2] = v[n - 1];
}

static void print_row(struct bench *b, int h, int s)
{
	struct result *r = &results[h][s], *ref = &results[h][S_POSIX_SPAWN];
	double us[MAX_ROUNDS], ratio[MAX_ROUNDS], u[3], q[3];
	const char *name = h ? "all" : "none";
	bool have_ref = (b->strats & (1U << S_POSIX_SPAWN)) && !ref->err;
	char calls[32] = "-";
	char ratios[64] = "- | - | -";
	int i;

	if (r->err) {
		printf("| %s | %s | error: %s | | | | | | |\n", name,
		       strat_names[s], strerror(r->err));
		return;
	}
	for (i = 0; i < b->rounds; i++) {
		us[i] = r->us[i];
		ratio[i] = have_ref ? r->us[i] / ref->us[i] : 0;
	}
	spread(us, b->rounds, u);
	spread(ratio, b->rounds, q);
	if (have_ref)
		snprintf(ratios, sizeof(ratios), "%.3f | %.3f | %.3f",
			 q[0], q[1], q[2]);
	if (s == S_FLAG || s == S_CLASSIC)
		snprintf(calls, sizeof(calls), "%.0f",
			 (double)r->sig_calls / b->spawns);
	printf("| %s | %s | %.1f | %.1f | %.1f | %s | %s |\n", name,
	       strat_names[s], u[0], u[1], u[2], ratios, calls);
}

static void print_table(struct bench *b)
{
	int h, s;

	printf("# clone3_spawn_bench spawns=%d rounds=%d program=%s clock_ns=%ld round=%s\n",
	       b->spawns, b->rounds, b->program, b->clock_ns,
	       b->clock_ns <= COARSE_CLOCK_NS ? "median" : "mean");
	if (b->clock_ns > COARSE_CLOCK_NS)
		printf("# warning: coarse clock, figures are rough: use more spawns (-n)\n");
	fputs("| handlers | strategy | us_median | us_min | us_max", stdout);
	fputs(" | ratio_median | ratio_min | ratio_max", stdout);
	fputs(" | child_sig_syscalls |\n", stdout);
	fputs("|---|---|---|---|---|---|---|---|---|\n", stdout);
	for (h = 0; h < 2; h++)
		for (s = 0; s < S_COUNT; s++)
			if ((b->handlers & (1U << h)) && (b->strats & (1U << s)))
				print_row(b, h, s);
	fputs("# us: microseconds from the call to execve() in the child,\n",
	      stdout);
	fputs("#   median (mean on a coarse clock) of a round's spawns;\n",
	      stdout);
	fputs("#   median, min, max of the rounds\n", stdout);
	fputs("# ratio: us / posix_spawn()'s us in the same round\n", stdout);
	fputs("# child_sig_syscalls: rt_sigaction + rt_sigprocmask per spawn\n",
	      stdout);
	fputs("#   in the child, by the spawner's own counter ('-': use strace)\n",
	      stdout);
}

/* A failure other than a kernel that refuses CLONE_CLEAR_SIGHAND. */
static bool failed(void)
{
	int h, s;

	for (h = 0; h < 2; h++)
		for (s = 0; s < S_COUNT; s++)
			if (results[h][s].err &&
			    !(s == S_FLAG && results[h][s].err == EINVAL))
				return true;
	return false;
}

static void die_usage(const char *me)
{
	fprintf(stderr,
		"usage: %s [-n SPAWNS] [-r ROUNDS] [-H none|all|both] [-p PROGRAM]\n"
		"          [-s flag,classic,posix_spawn,fork]\n"
		"       %s --exit  (the spawned program: exits 0 at once)\n"
		"environment: CLONE3_BENCH_SPAWNS, CLONE3_BENCH_ROUNDS (-n, -r)\n",
		me, me);
	exit(2);
}

static unsigned int parse_strats(const char *arg, const char *me)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned int mask = 0;
	int s;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (s = 0; s < S_COUNT; s++)
			if (!strcmp(tok, strat_names[s]))
				break;
		if (s == S_COUNT)
			die_usage(me);
		mask |= 1U << s;
	}
	free(copy);
	return mask;
}

static unsigned int parse_handlers(const char *arg, const char *me)
{
	if (!strcmp(arg, "none"))
		return 1;
	if (!strcmp(arg, "all"))
		return 2;
	if (!strcmp(arg, "both"))
		return 3;
	die_usage(me);
	return 0;
}

static int parse_count(const char *arg, int max, const char *me)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v < 1 || v > max)
		die_usage(me);
	return v;
}

/*
 * A guest's init runs programs without arguments but hands on the kernel
 * command line's KEY=VALUE words: CLONE3_BENCH_SPAWNS and _ROUNDS.
 */
static void parse_env(struct bench *b, const char *me)
{
	const char *v;

	v = getenv("CLONE3_BENCH_SPAWNS");
	if (v)
		b->spawns = parse_count(v, 1000000, me);
	v = getenv("CLONE3_BENCH_ROUNDS");
	if (v)
		b->rounds = parse_count(v, MAX_ROUNDS, me);
}

static void parse_args(struct bench *b, int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:r:s:H:p:")) != -1) {
		switch (opt) {
		case 'n':
			b->spawns = parse_count(optarg, 1000000, argv[0]);
			break;
		case 'r':
			b->rounds = parse_count(optarg, MAX_ROUNDS, argv[0]);
			break;
		case 's':
			b->strats = parse_strats(optarg, argv[0]);
			break;
		case 'H':
			b->handlers = parse_handlers(optarg, argv[0]);
			break;
		case 'p':
			b->program = optarg;
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc)
		die_usage(argv[0]);
}

int main(int argc, char **argv)
{
	static char *const envp[] = { NULL };
	struct bench b = {
		.spawns = 100,
		.rounds = 5,
		.program = "/proc/self/exe",
		.strats = (1U << S_COUNT) - 1,
		.handlers = 3,
		.envp = envp,
	};
	int h, i, s;

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		_exit(0);
	parse_env(&b, argv[0]);
	parse_args(&b, argc, argv);
	b.clock_ns = clock_step_ns();
	for (h = 0; h < 2; h++) {
		for (s = 0; s < S_COUNT; s++) {
			results[h][s].samples = calloc(b.spawns, sizeof(double));
			if (!results[h][s].samples)
				return 1;
		}
	}
	b.argv[0] = argv[0];
	b.argv[1] = "--exit";
	if (!clone3_spawn_available())
		fprintf(stderr, "# no clone3() or no spawner for this arch\n");
	set_handlers(false);
	for (i = 0; i < b.rounds; i++)
		run_round(&b, i);
	print_table(&b);
	return failed() ? 1 : 0;
}
