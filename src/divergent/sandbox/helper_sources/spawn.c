/* divergent's spawn helper: one run of a whole program, started the way the launcher's Python fork
 * starts it (divergent/sandbox/child/spawn.py, in_child), but from a vfork-like clone
 * (CLONE_VM | CLONE_VFORK), so no page table of the launcher is copied and the launcher's heap is
 * never made copy-on-write: a run then costs about what fork + exec of the program costs.
 *
 * Built once into the build cache (a shared library, loaded by the launcher with ctypes) wherever a
 * C compiler exists; without one the launcher forks as before. Only the child side below runs
 * between clone and exec, and it calls nothing but system calls (it shares the launcher's memory).
 *
 * divergent_spawn(path, argv, envp, stdin, stdout, stderr, cgroups, cgroup_count, cwd, limits, filter,
 *                 filter_length, error)
 *   cgroups: descriptors of the cgroup.procs files the run joins (the run's memory and CPU groups)
 *   limits: cpu seconds, address space bytes (0: none), file bytes, stack bytes, processes (0: none)
 *   filter: a seccomp program of filter_length instructions installed last, just before exec (a
 *   warm JVM's: threads but no new process), or NULL
 *   returns the child's pid, or -1 with *error set (the errno of the step that failed, in the
 *   child: the child then exits 127 after writing why on the run's stderr).
 * divergent_prepare_script(stdin, stdout, stderr, cgroups, cgroup_count, cwd, limits)
 *   the same steps in a fork of the launcher that runs a Python script next (one call from Python
 *   instead of a dozen: each would touch, and so copy, pages of the launcher's heap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define STACK_BYTES (64 * 1024)

/* the kernel's struct sock_fprog (linux/filter.h), spelled out: no kernel headers needed */
struct filter_program {
    unsigned short length;
    const void *instructions;
};

struct spawn_request {
    const char *path;
    char *const *argv;
    char *const *envp;
    int stdin_fd, stdout_fd, stderr_fd;
    const int *cgroup_fds;
    int cgroup_count;
    const char *cwd;
    const long long *limits;
    struct filter_program filter;
    sigset_t mask;        /* the launcher's signal mask, restored just before exec */
    volatile int error;   /* shared with the launcher (CLONE_VM): the errno of a failed step */
    volatile int step;
};

static char child_stack[STACK_BYTES] __attribute__((aligned(16)));

static void lower(int which, rlim_t soft, rlim_t hard) {
    struct rlimit current;
    if (getrlimit(which, &current) == 0 && current.rlim_max != RLIM_INFINITY) {
        if (hard > current.rlim_max) hard = current.rlim_max;
        if (soft > hard) soft = hard;
    }
    struct rlimit wanted = {soft, hard};
    setrlimit(which, &wanted); /* as the Python fork: a limit that cannot be set is left as it is */
}

static void say(const char *what, int error) {
    /* the run's stderr is fd 2 once the descriptors are in place */
    static const char head[] = "divergent launcher: cannot start the program: ";
    (void)!write(2, head, sizeof head - 1);
    (void)!write(2, what, strlen(what));
    /* the untranslated text (strerror may load a message catalogue, which allocates) */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *text = strerrordesc_np(error);
#else
    const char *text = NULL;
#endif
    (void)!write(2, ": ", 2);
    if (text != NULL) {
        (void)!write(2, text, strlen(text));
    } else {
        char digits[16];
        int length = 0;
        unsigned value = (unsigned)error;
        do digits[sizeof digits - 1 - length++] = (char)('0' + value % 10); while ((value /= 10) && length < 15);
        (void)!write(2, "errno ", 6);
        (void)!write(2, digits + sizeof digits - length, (size_t)length);
    }
    (void)!write(2, "\n", 1);
}

/* The steps between fork and the program, shared by both entry points below. Returns 0, or the
 * errno of the step that failed (then *step says which). Only system calls: it may share the
 * launcher's memory. */
static int prepare(int stdin_fd, int stdout_fd, int stderr_fd, const int *cgroup_fds, int cgroup_count,
                   const char *cwd, const long long *limits, int python, volatile int *step) {
    /* Signals first: no handler of the launcher's may run in this copy of it. */
    struct sigaction defaults, ignore;
    memset(&defaults, 0, sizeof defaults);
    defaults.sa_handler = SIG_DFL;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    for (int number = 1; number < NSIG; number++) {
        struct sigaction current;
        if (sigaction(number, NULL, &current) != 0) continue;
        if (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN) sigaction(number, &defaults, NULL);
    }
    int reset[] = {SIGINT, SIGPIPE, SIGXFSZ, SIGXCPU};
    for (unsigned k = 0; k < sizeof reset / sizeof reset[0]; k++) sigaction(reset[k], &defaults, NULL);

    /* before anything else: every process of the run is counted from its start */
    *step = 1;
    for (int k = 0; k < cgroup_count; k++) {
        if (cgroup_fds[k] >= 0 && write(cgroup_fds[k], "0", 1) != 1) return errno;
    }
    *step = 2;
    if (setpgid(0, 0) != 0) return errno;
    *step = 3;
    if (dup2(stdin_fd, 0) < 0 || dup2(stdout_fd, 1) < 0 || dup2(stderr_fd, 2) < 0) return errno;
    *step = 4;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
    {
        for (int fd = 3; fd < 65536; fd++) close(fd);
    }
    *step = 5;
    if (chdir(cwd) != 0) return errno;

    rlim_t cpu = (rlim_t)limits[0];
    lower(RLIMIT_CPU, cpu, cpu + 1);
    if (limits[1] > 0) lower(RLIMIT_AS, (rlim_t)limits[1], (rlim_t)limits[1]);
    lower(RLIMIT_FSIZE, (rlim_t)limits[2], (rlim_t)limits[2]);
    lower(RLIMIT_CORE, 0, 0);
    struct rlimit stack;
    if (getrlimit(RLIMIT_STACK, &stack) == 0) {
        rlim_t wanted = (rlim_t)limits[3];
        if (stack.rlim_max != RLIM_INFINITY && wanted > stack.rlim_max) wanted = stack.rlim_max;
        stack.rlim_cur = wanted;
        setrlimit(RLIMIT_STACK, &stack);
    }
    /* RLIMIT_NPROC binds everyone but root (the sandbox's pids cgroup caps root) */
    if (limits[4] > 0 && getuid() != 0) lower(RLIMIT_NPROC, (rlim_t)limits[4], (rlim_t)limits[4]);
    if (python) {
        /* as the interpreter sets them at start-up; and its own /proc entries are its own again,
         * as `python script.py` has them (the launcher is not dumpable) */
        sigaction(SIGPIPE, &ignore, NULL);
        sigaction(SIGXFSZ, &ignore, NULL);
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    }
    *step = 6;
    return 0;
}

static int child(void *argument) {
    struct spawn_request *request = argument;
    int error = prepare(request->stdin_fd, request->stdout_fd, request->stderr_fd, request->cgroup_fds,
                        request->cgroup_count, request->cwd, request->limits, 0, &request->step);
    if (error == 0 && request->filter.length > 0) {
        /* last: the program's own filter, added to the launcher's (no_new_privs is inherited) */
        request->step = 7;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, 2, &request->filter, 0, 0) != 0) {
            error = errno;
        }
    }
    if (error == 0) {
        request->step = 6;
        sigprocmask(SIG_SETMASK, &request->mask, NULL);
        execve(request->path, request->argv, request->envp);
        error = errno;
    }
    request->error = error;
    if (request->step >= 4) {
        say(request->step == 6 ? request->path : request->step == 7 ? "installing its system-call filter"
                                                                     : "setting up the run", error);
    }
    _exit(127);
}

/* In a fork of the launcher that goes on as a Python script: the same steps, in one call. Returns
 * 0 or the errno of the step that failed. */
int divergent_prepare_script(int stdin_fd, int stdout_fd, int stderr_fd, const int *cgroup_fds, int cgroup_count,
                             const char *cwd, const long long *limits) {
    volatile int step = 0;
    return prepare(stdin_fd, stdout_fd, stderr_fd, cgroup_fds, cgroup_count, cwd, limits, 1, &step);
}

pid_t divergent_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
                      int stderr_fd, const int *cgroup_fds, int cgroup_count, const char *cwd, const long long *limits,
                      const void *filter, int filter_length, int *error) {
    struct spawn_request request;
    memset(&request, 0, sizeof request);
    request.path = path;
    request.argv = argv;
    request.envp = envp;
    request.stdin_fd = stdin_fd;
    request.stdout_fd = stdout_fd;
    request.stderr_fd = stderr_fd;
    request.cgroup_fds = cgroup_fds;
    request.cgroup_count = cgroup_count;
    request.cwd = cwd;
    request.limits = limits;
    request.filter.length = (unsigned short)filter_length;
    request.filter.instructions = filter;
    /* No signal may reach a handler while the child shares the launcher's memory. */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &request.mask);
    pid_t pid = clone(child, child_stack + STACK_BYTES, CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
    int clone_error = errno;
    sigprocmask(SIG_SETMASK, &request.mask, NULL);
    if (pid < 0) {
        *error = clone_error;
        return -1;
    }
    /* CLONE_VFORK: the child has exec'd or exited by now; a step that failed left its errno */
    *error = request.error;
    return pid;
}
