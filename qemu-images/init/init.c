// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the gate's guest: runs the clone3 selftests listed in
 * /clone3/run-list, one process group each, and prints their output as one
 * KTAP document framed by CLONE3-GATE-BEGIN abi=native / CLONE3-GATE-END on
 * the console.  When /clone3-compat exists (the 32-bit build of the suite
 * on a 64-bit guest, its ABI named by /clone3-compat/abi: ia32, arm32), it
 * then runs that directory the same way as a second document, abi=<abi>.
 * Then it reboots once, which ends QEMU (-no-reboot).
 *
 * Each program runs under a runner of its own, a child of init that is the
 * subreaper of everything the program starts and kills what is left when
 * it ends; its output goes to a file that init copies to the console in
 * the documents' order.  Up to CLONE3_GATE_JOBS runners (default: the
 * online CPUs, at most MAX_JOBS) run at once, across both documents, so a
 * guest with two CPUs runs its compat document beside the native one.
 *
 * Run as any other PID (host test mode) it neither mounts nor reboots: it
 * exits 0 when every program of every document passed or skipped, 1
 * otherwise.  CLONE3_INIT_ROOT replaces /clone3 in both modes, and
 * CLONE3_INIT_COMPAT_ROOT /clone3-compat (default: the root with -compat
 * appended); CLONE3_GATE_RUN=name runs that one program of /clone3
 * instead of the run-list, and no compat document.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define DEFAULT_ROOT		"/clone3"
#define COMPAT_SUFFIX		"-compat"
#define MAX_ABI			32
#define DEFAULT_TIMEOUT		45
#define MAX_PROGRAMS		256
#define MAX_LINE		4096
#define KSFT_SKIP		4
#define MAX_JOBS		8

struct program {
	char name[256];
	char skip_reason[512];	/* run-list said SKIP: not built */
	int listed_skip;
};

enum outcome { RES_PASS, RES_FAIL, RES_SKIP, RES_TIMEOUT };

struct counts {
	int pass, fail, skip, timeout;
};

/* One KTAP document: a directory of programs, its run-list, its ABI. */
struct document {
	char dir[PATH_MAX];
	char abi[MAX_ABI];
	int err;		/* -errno: the run-list or abi file unreadable */
	const char *err_file;	/* which of the two */
	int timeout_s;
	int nr;			/* programs listed */
	int last;		/* programs run: nr, or nr / 2 when cut */
	int cut;		/* fault test: no END line, nothing after it */
	struct program programs[MAX_PROGRAMS];
};

static struct document documents[2];
static int nr_documents;
static int timeout_s = DEFAULT_TIMEOUT;
/* In a runner: the directory of its program's document. */
static const char *root = DEFAULT_ROOT;
static int is_pid1;

/* write() the whole buffer; the console is the only place output goes */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= n;
	}
}

/* One line per write(), so kernel messages rarely split our lines. */
static void say(const char *fmt, ...)
{
	char buf[MAX_LINE + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	write_all(STDOUT_FILENO, buf, n);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void setup_console(void)
{
	int fd;

	if (fcntl(STDOUT_FILENO, F_GETFD) >= 0 &&
	    fcntl(STDERR_FILENO, F_GETFD) >= 0 &&
	    fcntl(STDIN_FILENO, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) == 0)
		return;
	if (errno == EBUSY || errno == ENODEV)
		return;
	say("init: mount %s on %s: %s", type, dir, strerror(errno));
}

static void setup_filesystems(void)
{
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("devtmpfs", "/dev", "devtmpfs");
	mount_one("tmpfs", "/tmp", "tmpfs");
	if (access("/dev/null", F_OK) != 0)
		mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3));
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == '\r' ||
			   end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

static void read_settings(struct document *d)
{
	char path[PATH_MAX + 16], line[256];
	FILE *f;

	d->timeout_s = DEFAULT_TIMEOUT;
	snprintf(path, sizeof(path), "%s/settings", d->dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *end;
		long v;

		if (strncmp(s, "timeout=", 8))
			continue;
		errno = 0;
		v = strtol(s + 8, &end, 10);
		if (errno || *end || end == s + 8 || v < 0 || v > 86400)
			continue;
		d->timeout_s = v;
	}
	fclose(f);
}

/* "<name>" or "<name> SKIP <reason>"; blank lines and # comments ignored */
static void add_program(struct document *d, char *s)
{
	struct program *p = &d->programs[d->nr];
	char *rest;

	rest = strpbrk(s, " \t");
	if (rest) {
		*rest++ = '\0';
		rest = trim(rest);
		if (!strncmp(rest, "SKIP", 4) &&
		    (rest[4] == '\0' || rest[4] == ' ' || rest[4] == '\t')) {
			p->listed_skip = 1;
			snprintf(p->skip_reason, sizeof(p->skip_reason), "%s",
				 *trim(rest + 4) ? trim(rest + 4) : "no reason");
		}
	}
	snprintf(p->name, sizeof(p->name), "%s", s);
	d->nr++;
}

static int read_run_list(struct document *d)
{
	const char *only = getenv("CLONE3_GATE_RUN");
	char path[PATH_MAX + 16], line[1024];
	FILE *f;

	d->nr = 0;
	memset(d->programs, 0, sizeof(d->programs));
	/* One program instead of the list: make bench runs the spawn bench. */
	if (only && *only) {
		snprintf(line, sizeof(line), "%s", only);
		add_program(d, line);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/run-list", d->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (d->nr < MAX_PROGRAMS && fgets(line, sizeof(line), f)) {
		char *s = trim(line);

		if (*s && *s != '#')
			add_program(d, s);
	}
	fclose(f);
	return 0;
}

static char **child_env(void)
{
	static char path_var[600];
	size_t n = 0, i;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return environ;
	snprintf(path_var, sizeof(path_var), "PATH=%s", root);
	for (i = 0, n = 0; environ && environ[i]; i++)
		if (strncmp(environ[i], "PATH=", 5))
			env[n++] = environ[i];
	env[n++] = path_var;
	env[n] = NULL;
	return env;
}

/* In the child: own process group, output into the pipe, then exec. */
static void exec_program(const char *name, int wfd)
{
	char path[PATH_MAX + 256];
	char *argv[2];
	sigset_t none;
	int null;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	dup2(wfd, STDOUT_FILENO);
	dup2(wfd, STDERR_FILENO);
	if (wfd > STDERR_FILENO)
		close(wfd);
	snprintf(path, sizeof(path), "%s/%s", root, name);
	argv[0] = (char *)name;
	argv[1] = NULL;
	if (chdir(root))
		dprintf(STDERR_FILENO, "init: chdir %s: %m\n", root);
	execve(path, argv, child_env());
	dprintf(STDERR_FILENO, "init: cannot execute %s: %m\n", path);
	_exit(127);
}

/* Split program output into lines and print each nested (4 spaces). */
struct line_buf {
	char buf[MAX_LINE];
	size_t len;
};

static void flush_line(struct line_buf *lb)
{
	char out[MAX_LINE + 8];

	memcpy(out, "    ", 4);
	memcpy(out + 4, lb->buf, lb->len);
	out[4 + lb->len] = '\n';
	write_all(STDOUT_FILENO, out, lb->len + 5);
	lb->len = 0;
}

static void feed(struct line_buf *lb, const char *data, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (data[i] == '\n') {
			flush_line(lb);
			continue;
		}
		lb->buf[lb->len++] = data[i];
		if (lb->len == sizeof(lb->buf))
			flush_line(lb);
	}
}

/* Returns 0 on EOF or error (stop reading), 1 when the pipe may have more. */
static int drain(int fd, struct line_buf *lb)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			feed(lb, buf, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		return 0;
	}
}

static void on_sigchld(int sig)
{
	(void)sig;
}

/* Reap every child that has exited; remember the test's status. */
static void reap(pid_t test, int *test_done, int *status)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == test) {
			*test_done = 1;
			*status = st;
		}
	}
}

/* Kill the children we adopted (the runner is their subreaper). */
static int kill_adopted(void)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	int killed = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		ssize_t n;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (p && atoi(p + 4) == getpid()) {
			kill(atoi(de->d_name), SIGKILL);
			killed++;
		}
	}
	closedir(d);
	return killed;
}

/*
 * Nothing the test started may outlive it: kill, then reap everything.
 * The runner is the subreaper of all the program's descendants.
 */
static void kill_leftovers(pid_t pgid)
{
	int round;

	kill(-pgid, SIGKILL);
	for (round = 0; round < 100; round++) {
		int killed = kill_adopted();

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!killed)
			break;
		usleep(10000);
	}
}

struct run {
	pid_t pid;
	int fd;
	int done;
	int status;
	int timed_out;
};

static void wait_io(struct run *r, long long deadline, const sigset_t *mask)
{
	static struct line_buf line;
	struct line_buf *lb = &line;
	struct pollfd pfd;

	lb->len = 0;
	while (r->fd >= 0 || !r->done) {
		long long left = deadline - now_ms();
		struct timespec ts = { left / 1000, (left % 1000) * 1000000 };

		if (timeout_s && left <= 0) {
			r->timed_out = !r->done;
			break;
		}
		pfd.fd = r->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		ppoll(&pfd, 1, timeout_s ? &ts : NULL, mask);
		if (r->fd >= 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !drain(r->fd, lb)) {
			close(r->fd);
			r->fd = -1;
		}
		if (!r->done) {
			reap(r->pid, &r->done, &r->status);
			if (r->done && r->fd >= 0)
				kill_leftovers(r->pid);
		}
	}
	if (r->fd >= 0) {
		drain(r->fd, lb);
		close(r->fd);
		r->fd = -1;
	}
	if (lb->len)
		flush_line(lb);
}

static void signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "%d", sig);
}

static enum outcome report(int num, const char *name, struct run *r)
{
	char sig[32];

	if (r->timed_out) {
		say("not ok %d %s # TIMEOUT %d seconds", num, name, timeout_s);
		return RES_TIMEOUT;
	}
	if (WIFSIGNALED(r->status)) {
		signal_name(WTERMSIG(r->status), sig, sizeof(sig));
		say("not ok %d %s # signal=%s", num, name, sig);
		return RES_FAIL;
	}
	if (WEXITSTATUS(r->status) == 0) {
		say("ok %d %s", num, name);
		return RES_PASS;
	}
	if (WEXITSTATUS(r->status) == KSFT_SKIP) {
		say("ok %d %s # SKIP", num, name);
		return RES_SKIP;
	}
	say("not ok %d %s # exit=%d", num, name, WEXITSTATUS(r->status));
	return RES_FAIL;
}

static enum outcome run_program(int num, const char *name,
				const sigset_t *mask)
{
	struct run r = { .fd = -1 };
	long long start, deadline;
	int fds[2];

	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		say("not ok %d %s # bad name in run-list", num, name);
		return RES_FAIL;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		say("not ok %d %s # pipe: %s", num, name, strerror(errno));
		return RES_FAIL;
	}
	start = now_ms();
	deadline = start + timeout_s * 1000LL;
	r.pid = fork();
	if (r.pid == 0)
		exec_program(name, fds[1]);
	close(fds[1]);
	if (r.pid < 0) {
		close(fds[0]);
		say("not ok %d %s # fork: %s", num, name, strerror(errno));
		return RES_FAIL;
	}
	setpgid(r.pid, r.pid);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	r.fd = fds[0];
	wait_io(&r, deadline, mask);
	kill_leftovers(r.pid);
	say("# duration_ms=%lld", now_ms() - start);
	return report(num, name, &r);
}

static void count(struct counts *c, enum outcome o)
{
	switch (o) {
	case RES_PASS:
		c->pass++;
		break;
	case RES_FAIL:
		c->fail++;
		break;
	case RES_SKIP:
		c->skip++;
		break;
	case RES_TIMEOUT:
		c->timeout++;
		break;
	}
}

/* Leave the guest: sync, reboot (QEMU -no-reboot exits).  Host: exit. */
static int finish(int code)
{
	if (!is_pid1)
		return code;
	sync();
	reboot(RB_AUTOBOOT);
	say("init: reboot: %s", strerror(errno));
	reboot(RB_POWER_OFF);
	return code;
}

static void print_header(const struct document *d)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "unknown");
	say("CLONE3-GATE-BEGIN arch=%s abi=%s programs=%d", u.machine, d->abi,
	    d->nr);
	say("KTAP version 1");
	say("1..%d", d->nr);
}

static void print_end(const struct counts *c)
{
	say("CLONE3-GATE-END pass=%d fail=%d skip=%d timeout=%d",
	    c->pass, c->fail, c->skip, c->timeout);
}

/*
 * The compat ABI's name: the one word of <dir>/abi.  Returns 0, or -errno
 * (-EINVAL when the file does not hold one word of [A-Za-z0-9_.+]).
 */
static int read_abi(const char *dir, char *abi, size_t len)
{
	char path[PATH_MAX + 8], line[64], *s, *p;
	FILE *f;

	snprintf(abi, len, "unknown");
	snprintf(path, sizeof(path), "%s/abi", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	s = fgets(line, sizeof(line), f) ? trim(line) : NULL;
	fclose(f);
	if (!s || !*s || strlen(s) >= len)
		return -EINVAL;
	for (p = s; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("_.+", *p))
			return -EINVAL;
	snprintf(abi, len, "%s", s);
	return 0;
}

/*
 * Read a document's settings, run-list and, for a compat one, its ABI.
 * A document that cannot be read bails out when its turn comes.
 */
static void load_document(struct document *d, const char *dir, int compat,
			  int cut)
{
	int abi_err = 0;

	snprintf(d->dir, sizeof(d->dir), "%s", dir);
	read_settings(d);
	d->err = read_run_list(d);
	d->err_file = "run-list";
	snprintf(d->abi, sizeof(d->abi), "native");
	if (compat)
		abi_err = read_abi(dir, d->abi, sizeof(d->abi));
	if (abi_err) {
		d->nr = 0;
		d->err = abi_err;
		d->err_file = "abi";
	}
	d->cut = cut;
	/* fault test: stop in the middle and leave without the END line */
	d->last = cut ? d->nr / 2 : d->nr;
}

/* One program of one document, run by a runner of its own. */
struct job {
	const struct document *doc;
	int num;		/* the program's number in its document */
	pid_t pid;		/* its runner; 0 before it starts */
	int fd;			/* the runner's output, read side */
	off_t copied;		/* how much of it is on the console */
	int start_err;		/* errno when the runner could not start */
	int done;
	int status;
};

static struct job jobs[2 * MAX_PROGRAMS];
static int nr_jobs, next_job, running, max_jobs = 1;
static char job_dir[PATH_MAX];

/* CLONE3_GATE_JOBS, or the online CPUs; 1..MAX_JOBS. */
static int jobs_wanted(void)
{
	const char *s = getenv("CLONE3_GATE_JOBS");
	long n;
	char *end;

	if (s && *s) {
		errno = 0;
		n = strtol(s, &end, 10);
		if (errno || *end || n < 1 || n > MAX_JOBS) {
			say("init: CLONE3_GATE_JOBS=%s is not 1..%d; one program at a time",
			    s, MAX_JOBS);
			return 1;
		}
		return n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : n;
}

/*
 * In the runner: the subreaper of everything its program starts, the
 * program's output and its result line into the job's file, the outcome
 * as the exit code.
 */
static void run_job(const struct job *j, int wfd, const sigset_t *mask)
{
	struct sigaction sa = { .sa_handler = on_sigchld,
				.sa_flags = SA_NOCLDSTOP };
	sigset_t block;

	/*
	 * SIGCHLD's handler and block, set again: the runner is a child of
	 * the kernel under test, which may not have passed them on (a
	 * mutant that resets every child's handlers left the runner deaf
	 * to its program's end, until the console's silence timed out).
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	is_pid1 = 0;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	dup2(wfd, STDOUT_FILENO);
	dup2(wfd, STDERR_FILENO);
	if (wfd > STDERR_FILENO)
		close(wfd);
	root = j->doc->dir;
	timeout_s = j->doc->timeout_s;
	_exit(run_program(j->num, j->doc->programs[j->num - 1].name, mask));
}

/* The job's file is unlinked at once: only the two descriptors hold it. */
static void start_job(struct job *j, const sigset_t *mask)
{
	char path[PATH_MAX + 32];
	int wfd;

	j->fd = -1;
	snprintf(path, sizeof(path), "%s/job-%d", job_dir, (int)(j - jobs));
	wfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		   0600);
	if (wfd >= 0)
		j->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (j->fd < 0)
		j->start_err = errno;
	unlink(path);
	if (j->fd >= 0) {
		j->pid = fork();
		if (j->pid == 0)
			run_job(j, wfd, mask);
		if (j->pid < 0)
			j->start_err = errno;
	}
	if (wfd >= 0)
		close(wfd);
	if (j->pid > 0) {
		running++;
		return;
	}
	j->pid = 0;
	j->done = 1;
}

static void start_jobs(const sigset_t *mask)
{
	while (running < max_jobs && next_job < nr_jobs)
		start_job(&jobs[next_job++], mask);
	if (next_job == nr_jobs && job_dir[0]) {
		rmdir(job_dir);
		job_dir[0] = '\0';
	}
}

/* Reap every runner that has ended (and, as PID 1, any orphan). */
static void reap_jobs(void)
{
	pid_t pid;
	int st, i;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (i = 0; i < nr_jobs; i++)
			if (jobs[i].pid == pid && !jobs[i].done) {
				jobs[i].done = 1;
				jobs[i].status = st;
				running--;
				break;
			}
}

/*
 * Copy what the runner wrote to the console, one line per write(); a
 * partial last line waits for its end unless the runner is done.
 */
static void copy_output(struct job *j, int all)
{
	char buf[MAX_LINE + 64];
	size_t len, line;
	ssize_t n;

	while (j->fd >= 0) {
		n = pread(j->fd, buf, sizeof(buf), j->copied);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (len = 0; len < (size_t)n; len += line) {
			char *nl = memchr(buf + len, '\n', n - len);

			if (!nl && !all && len > 0)
				break;
			line = nl ? (size_t)(nl - buf) + 1 - len : n - len;
			write_all(STDOUT_FILENO, buf + len, line);
		}
		j->copied += len;
		if (len < (size_t)n)
			return;
	}
}

/* Follow one job to its end, starting others as runners free up. */
static enum outcome follow(struct job *j, const sigset_t *mask)
{
	const struct program *p = &j->doc->programs[j->num - 1];
	struct timespec tick = { 0, 20 * 1000000 };
	char sig[32];

	for (;;) {
		reap_jobs();
		start_jobs(mask);
		copy_output(j, j->done);
		if (j->done)
			break;
		ppoll(NULL, 0, &tick, mask);
	}
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (!j->pid) {
		say("not ok %d %s # runner: %s", j->num, p->name,
		    strerror(j->start_err));
		return RES_FAIL;
	}
	if (WIFEXITED(j->status) && WEXITSTATUS(j->status) <= RES_TIMEOUT)
		return WEXITSTATUS(j->status);
	if (WIFSIGNALED(j->status))
		signal_name(WTERMSIG(j->status), sig, sizeof(sig));
	else
		snprintf(sig, sizeof(sig), "exit=%d", WEXITSTATUS(j->status));
	say("not ok %d %s # runner ended: %s", j->num, p->name, sig);
	return RES_FAIL;
}

/*
 * Print the documents in order, each program's output as its runner
 * wrote it.  Returns 0 when every program passed or skipped, 1 otherwise
 * (also when the fault test cut a document off: no END line, and nothing
 * after it).
 */
static int run_documents(const char *fault, const sigset_t *mask)
{
	int d, i, k = 0, rc = 0;

	for (d = 0; d < nr_documents; d++) {
		const struct document *doc = &documents[d];

		for (i = 0; i < doc->last && !doc->err; i++) {
			if (doc->programs[i].listed_skip)
				continue;
			jobs[nr_jobs].doc = doc;
			jobs[nr_jobs++].num = i + 1;
		}
		if (doc->cut)
			break;
	}
	snprintf(job_dir, sizeof(job_dir), "/tmp/clone3-init.XXXXXX");
	if (!nr_jobs)
		job_dir[0] = '\0';
	else if (!mkdtemp(job_dir)) {
		say("init: mkdtemp %s: %s; the jobs go to /", job_dir,
		    strerror(errno));
		snprintf(job_dir, sizeof(job_dir), "/");
	}
	for (d = 0; d < nr_documents; d++) {
		const struct document *doc = &documents[d];
		struct counts c = { 0 };

		print_header(doc);
		if (doc->err) {
			say("Bail out! cannot read %s/%s: %s", doc->dir,
			    doc->err_file, strerror(-doc->err));
			print_end(&c);
			rc = 1;
			continue;
		}
		if (d == 0 && !strcmp(fault, "hang"))
			for (;;)
				pause();
		for (i = 0; i < doc->last; i++) {
			const struct program *p = &doc->programs[i];

			if (p->listed_skip) {
				say("ok %d %s # SKIP not built: %s", i + 1,
				    p->name, p->skip_reason);
				count(&c, RES_SKIP);
				continue;
			}
			count(&c, follow(&jobs[k++], mask));
		}
		if (doc->cut)
			return 1;
		print_end(&c);
		if (c.fail || c.timeout)
			rc = 1;
	}
	return rc;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(void)
{
	const char *fault = getenv("CLONE3_GATE_FAULT");
	struct sigaction sa = { .sa_handler = on_sigchld,
				.sa_flags = SA_NOCLDSTOP };
	const char *only = getenv("CLONE3_GATE_RUN");
	char compat_root[PATH_MAX];
	sigset_t block, wait_mask;

	if (fault && !strcmp(fault, "exit"))
		return 1;
	if (!fault)
		fault = "";
	is_pid1 = getpid() == 1;
	if (getenv("CLONE3_INIT_ROOT") && *getenv("CLONE3_INIT_ROOT"))
		root = getenv("CLONE3_INIT_ROOT");
	if (getenv("CLONE3_INIT_COMPAT_ROOT") &&
	    *getenv("CLONE3_INIT_COMPAT_ROOT"))
		snprintf(compat_root, sizeof(compat_root), "%s",
			 getenv("CLONE3_INIT_COMPAT_ROOT"));
	else
		snprintf(compat_root, sizeof(compat_root), "%s" COMPAT_SUFFIX,
			 root);
	if (is_pid1) {
		setup_console();
		setsid();
		setup_filesystems();
	} else {
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	}
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGCHLD);
	sigaction(SIGCHLD, &sa, NULL);

	max_jobs = jobs_wanted();
	load_document(&documents[0], root, 0, !strcmp(fault, "cut"));
	nr_documents = 1;
	if (!(only && *only) && is_dir(compat_root))
		load_document(&documents[nr_documents++], compat_root, 1,
			      !strcmp(fault, "cut-compat"));
	return finish(run_documents(fault, &wait_mask) ? 1 : 0);
}
