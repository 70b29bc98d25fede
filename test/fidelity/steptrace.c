/* steptrace: the fidelity oracle's recorder. It runs a program under ptrace, single-steps every
 * thread and logs the address of every instruction a thread executes, in order, up to the
 * instruction that faulted (or, for a signal sent from outside, up to the instruction the signal
 * interrupted). It shares no code and no idea with crashtrail: the CPU's trap flag says what ran.
 *
 *   steptrace [-d MS | -b DELTA[:HITS] [-c]] [-k N | -a DELTA[:HITS]] [-s SIG] [-m N]
 *             [-r ENTRIES] [-t SECONDS] -o OUT -- PROG ARGS...
 *
 * Where stepping starts (single-stepping costs a trap per instruction: 20-65 thousand
 * instructions a second in a VM, so long runs are run natively up to a point):
 *   -d MS       run natively for MS milliseconds, then stop every thread and step from there
 *   -b DELTA[:HITS]  run natively until the HITS-th (default 1st) execution of the instruction at
 *               the program's entry point + DELTA (an int3 breakpoint; DELTA is the link-time
 *               address minus e_entry, so it needs no load bias), then step every thread
 *   -c          with -b: never step; count the breakpoint's hits over the whole run ("hits N")
 *               default: step from the first instruction after exec
 * A signal from outside (kill(2), si_code SI_USER, as another process would send it):
 *   -k N        after N single steps (all threads)
 *   -a DELTA[:HITS]  just before the HITS-th (default 1st) execution of the instruction at the
 *               entry point + DELTA: a signal that interrupts exactly that instruction
 *   -s SIG      which signal (default 11, SIGSEGV)
 * Limits and output:
 *   -m N        stop after N single steps: kill the program, report "exit limit"
 *   -r ENTRIES  per-thread ring of instruction addresses (default 4M entries; older ones are
 *               overwritten, their count is reported)
 *   -t SECONDS  kill the program (SIGKILL) and fail after this long (default 600)
 *   -o OUT      the report: OUT (text: exit status, crashed thread, signal, siginfo, the stop's
 *               RIP, the memory map) and OUT.pcs (the crashed thread's instruction addresses,
 *               oldest first, little-endian uint64)
 *
 * How an address gets into the log. At every stop of a stepped thread its RIP is the instruction
 * it will run next: that address becomes the thread's *pending* instruction. It is committed to
 * the ring when the thread stops again after a completed single step (a SIGTRAP stop: it ran) or
 * with a synchronous fault (si_code > 0 on SIGSEGV SIGBUS SIGILL SIGFPE: it was attempted, and
 * it is the faulting instruction). A stop for an asynchronous signal (kill, tgkill, sigqueue)
 * happens before the pending instruction runs: it is dropped, and the stop's RIP is the
 * interrupted instruction. A signal handler's first instruction is reported by the kernel's
 * SIGTRAP stop after it builds the frame, and the interrupted instruction comes back as pending
 * after sigreturn; so the log is exactly the executed stream, handlers included.
 *
 * The first SIGSEGV SIGBUS SIGILL SIGFPE SIGABRT SIGSYS the program takes while being stepped is
 * "the crash": the crashed thread, the signal and its siginfo, the stop RIP and the process's
 * memory map (/proc/PID/maps, for load biases) are recorded; then every thread runs on natively
 * with its signals (so crashtrail's handler writes its dump, natively), and the exit status of
 * the program is recorded too. SIGTRAP stops are taken as single steps: a program that raises
 * SIGTRAP itself is not supported.
 *
 * The program runs without address-space randomisation (personality ADDR_NO_RANDOMIZE), so that
 * a seed gives the same run every time.
 *
 * Exit status: 0 report written (look at "crashed"), 2 usage or system error, 3 timeout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_NATIVE, MODE_STEP, MODE_DRAIN };

struct thread {
  pid_t tid;
  int started;       /* its first stop (the SIGSTOP of a new thread) has been seen */
  int stepping;      /* 1 once the thread is single-stepped */
  int interrupting;  /* a SIGSTOP of ours is on its way */
  int has_pending;
  uint64_t pending;  /* the instruction the thread runs next */
  uint64_t *ring;
  uint64_t count;    /* addresses committed; ring[count % ring_size] is the next slot */
};

static struct {
  uint64_t ring_size;
  long delay_ms, timeout_s;
  uint64_t kill_after; /* 0: never */
  int kill_signal;
  const char *out;
  int use_break;
  long long break_delta;
  long break_hits;
  uint64_t max_steps; /* 0: no limit */
  int count_only;
  int use_kill_at;
  long long kill_at_delta;
  long kill_at_hits;
} opt = {1u << 22, 0, 600, 0, SIGSEGV, NULL, 0, 0, 1, 0, 0, 0, 0, 1};
static uint64_t kill_at_addr;

static struct {
  uint64_t addr;
  long orig;   /* the word the int3 replaced */
  long hits;
  int armed;
} bp;

static struct thread *threads;
static size_t nthreads, cap_threads;
static pid_t child;
static uint64_t steps;

static struct {
  int happened, before_stepping;
  pid_t tid;
  siginfo_t info;
  uint64_t rip;
  int synchronous;
  char *maps;
  uint64_t *pcs;
  uint64_t npcs, lost;
} crash;

static void die(const char *what) {
  fprintf(stderr, "steptrace: %s: %s\n", what, strerror(errno));
  if (child > 0) kill(child, SIGKILL);
  exit(2);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct thread *find_thread(pid_t tid) {
  for (size_t i = 0; i < nthreads; i++)
    if (threads[i].tid == tid) return &threads[i];
  return NULL;
}

static struct thread *add_thread(pid_t tid) {
  struct thread *t = find_thread(tid);
  if (t) return t;
  if (nthreads == cap_threads) {
    cap_threads = cap_threads ? 2 * cap_threads : 16;
    threads = realloc(threads, cap_threads * sizeof *threads);
    if (!threads) die("realloc");
  }
  t = &threads[nthreads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  return t;
}

static void remove_thread(pid_t tid) {
  struct thread *t = find_thread(tid);
  if (!t) return;
  if (t->ring) munmap(t->ring, opt.ring_size * sizeof(uint64_t));
  *t = threads[--nthreads];
}

static uint64_t rip_of(pid_t tid) {
  errno = 0;
  long v = ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user, regs.rip), 0);
  if (v == -1 && errno) die("PTRACE_PEEKUSER");
  return (uint64_t)v;
}

static void commit(struct thread *t) {
  if (!t->has_pending) return;
  if (!t->ring) {
    t->ring = mmap(NULL, opt.ring_size * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t->ring == MAP_FAILED) die("mmap");
  }
  t->ring[t->count++ % opt.ring_size] = t->pending;
  t->has_pending = 0;
}

/* Resume a stopped thread in the current mode, delivering sig (0: none). */
static void resume(struct thread *t, enum mode mode, int sig) {
  if (mode == MODE_STEP && t->stepping) {
    if (sig == 0) {
      t->pending = rip_of(t->tid);
      t->has_pending = 1;
    }
    if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, (void *)(long)sig) == -1 && errno != ESRCH)
      die("PTRACE_SINGLESTEP");
    steps++;
  } else if (ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)sig) == -1 && errno != ESRCH) {
    die("PTRACE_CONT");
  }
}

static int is_crash_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
         sig == SIGSYS;
}

static int is_fault_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return strdup("");
  size_t cap = 65536, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 4096) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) die("malloc");
  buf[len] = 0;
  return buf;
}

/* The crash: keep what the report needs; from now on every thread runs natively. */
static void record_crash(struct thread *t, const siginfo_t *si, uint64_t rip, int before) {
  char path[64];
  crash.happened = 1;
  crash.before_stepping = before;
  crash.tid = t->tid;
  crash.info = *si;
  crash.rip = rip;
  crash.synchronous = is_fault_signal(si->si_signo) && si->si_code > 0;
  snprintf(path, sizeof path, "/proc/%d/maps", (int)child);
  crash.maps = read_file(path);
  uint64_t n = t->count < opt.ring_size ? t->count : opt.ring_size;
  crash.lost = t->count - n;
  crash.npcs = n;
  crash.pcs = malloc((n ? n : 1) * sizeof(uint64_t));
  if (!crash.pcs) die("malloc");
  for (uint64_t i = 0; i < n; i++)
    crash.pcs[i] = t->ring[(t->count - n + i) % opt.ring_size];
}

static void write_report(int status, int timed_out, int limited) {
  char path[4096];
  FILE *f = fopen(opt.out, "w");
  if (!f) die(opt.out);
  fprintf(f, "steptrace 1\npid %d\nsteps %llu\nhits %ld\n", (int)child, (unsigned long long)steps,
          bp.hits);
  if (timed_out)
    fprintf(f, "exit timeout\n");
  else if (limited)
    fprintf(f, "exit limit\n");
  else if (WIFSIGNALED(status))
    fprintf(f, "exit signal %d%s\n", WTERMSIG(status), WCOREDUMP(status) ? " core" : "");
  else
    fprintf(f, "exit status %d\n", WEXITSTATUS(status));
  if (crash.happened) {
    fprintf(f, "crashed %d\nsignal %d\ncode %d\naddr 0x%llx\nrip 0x%llx\nsynchronous %d\n",
            (int)crash.tid, crash.info.si_signo, crash.info.si_code,
            (unsigned long long)(uintptr_t)crash.info.si_addr, (unsigned long long)crash.rip,
            crash.synchronous);
    fprintf(f, "before_stepping %d\npcs %llu\nlost %llu\nmaps\n%send-maps\n",
            crash.before_stepping, (unsigned long long)crash.npcs,
            (unsigned long long)crash.lost, crash.maps);
    snprintf(path, sizeof path, "%s.pcs", opt.out);
    FILE *p = fopen(path, "wb");
    if (!p || fwrite(crash.pcs, sizeof(uint64_t), crash.npcs, p) != crash.npcs || fclose(p))
      die(path);
  } else {
    fprintf(f, "crashed none\n");
  }
  if (fclose(f)) die(opt.out);
}

/* The program's entry point at run time (AT_ENTRY), read at the exec stop. */
static uint64_t runtime_entry(void) {
  char path[64];
  Elf64_auxv_t av;
  snprintf(path, sizeof path, "/proc/%d/auxv", (int)child);
  int fd = open(path, O_RDONLY);
  if (fd < 0) die(path);
  while (read(fd, &av, sizeof av) == (ssize_t)sizeof av) {
    if (av.a_type == AT_ENTRY) {
      close(fd);
      return av.a_un.a_val;
    }
  }
  close(fd);
  errno = ENOENT;
  die("AT_ENTRY");
  return 0;
}

static void set_int3(pid_t tid, int on) {
  if (on) {
    errno = 0;
    bp.orig = ptrace(PTRACE_PEEKTEXT, tid, bp.addr, 0);
    if (bp.orig == -1 && errno) die("PTRACE_PEEKTEXT");
  }
  long word = on ? (long)(((unsigned long)bp.orig & ~0xffUL) | 0xcc) : bp.orig;
  if (ptrace(PTRACE_POKETEXT, tid, bp.addr, word) == -1) die("PTRACE_POKETEXT");
  bp.armed = on;
}

/* Ask every running thread to stop (SIGSTOP, suppressed when it arrives). */
static void interrupt_all(void) {
  for (size_t i = 0; i < nthreads; i++) {
    if (threads[i].stepping || threads[i].interrupting) continue;
    threads[i].interrupting = 1;
    if (syscall(SYS_tgkill, child, threads[i].tid, SIGSTOP) == -1 && errno != ESRCH)
      die("tgkill");
  }
}

static int usage(void) {
  fprintf(stderr, "usage: steptrace [-d MS] [-k N] [-s SIG] [-r ENTRIES] [-t SECONDS] -o OUT -- "
                  "PROG ARGS...\n");
  return 2;
}

/* What the main loop knows: how threads are resumed, and what happened. */
static struct {
  enum mode mode;
  int killed, timed_out, limited;
  int exit_status;
} run;

static void parse_options(int argc, char **argv) {
  int c;
  char *end;
  while ((c = getopt(argc, argv, "+d:b:ck:a:s:m:r:t:o:")) != -1) {
    switch (c) {
    case 'd': opt.delay_ms = atol(optarg); break;
    case 'b':
      opt.use_break = 1;
      opt.break_delta = strtoll(optarg, &end, 0);
      if (*end == ':') opt.break_hits = atol(end + 1);
      break;
    case 'c': opt.count_only = 1; break;
    case 'k': opt.kill_after = strtoull(optarg, NULL, 10); break;
    case 'a':
      opt.use_kill_at = 1;
      opt.kill_at_delta = strtoll(optarg, &end, 0);
      if (*end == ':') opt.kill_at_hits = atol(end + 1);
      break;
    case 's': opt.kill_signal = atoi(optarg); break;
    case 'm': opt.max_steps = strtoull(optarg, NULL, 10); break;
    case 'r': opt.ring_size = strtoull(optarg, NULL, 10); break;
    case 't': opt.timeout_s = atol(optarg); break;
    case 'o': opt.out = optarg; break;
    default: exit(usage());
    }
  }
  if (!opt.out || optind >= argc || opt.ring_size == 0) exit(usage());
}

/* Forks and execs the program, stopped at its first instruction, traced with its threads. */
static void start_child(char **argv) {
  int status;
  child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    personality(ADDR_NO_RANDOMIZE); /* the same run, the same addresses, every time */
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) == -1) _exit(127);
    execvp(argv[0], argv);
    fprintf(stderr, "steptrace: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  if (waitpid(child, &status, 0) != child) die("waitpid");
  if (!WIFSTOPPED(status)) {
    fprintf(stderr, "steptrace: %s did not start\n", argv[0]);
    exit(2);
  }
  if (ptrace(PTRACE_SETOPTIONS, child, 0,
             (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)) == -1)
    die("PTRACE_SETOPTIONS");
}

/* A clone event: the new thread is traced; it is stepped if we are stepping. */
static void on_clone(pid_t tid) {
  unsigned long newtid;
  if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &newtid) == -1) die("PTRACE_GETEVENTMSG");
  struct thread *n = add_thread((pid_t)newtid);
  struct thread *t = find_thread(tid); /* add_thread may move the array */
  if (!n->started) n->stepping = run.mode == MODE_STEP;
  /* The clone system call is still running: its instruction stays pending. */
  if (run.mode == MODE_STEP && t->stepping) {
    if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) == -1 && errno != ESRCH) die("PTRACE_SINGLESTEP");
  } else {
    resume(t, run.mode == MODE_STEP ? MODE_STEP : MODE_NATIVE, 0);
  }
}

/* Our int3 was hit: put the instruction back and run it from its start; on the HITS-th hit,
 * start stepping every thread, else step over it and arm the breakpoint again. */
static void on_breakpoint(struct thread *t) {
  struct user_regs_struct regs;
  if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == -1) die("PTRACE_GETREGS");
  regs.rip = bp.addr;
  if (ptrace(PTRACE_SETREGS, t->tid, 0, &regs) == -1) die("PTRACE_SETREGS");
  set_int3(t->tid, 0);
  if (++bp.hits >= opt.break_hits && !opt.count_only) {
    run.mode = MODE_STEP;
    t->stepping = 1;
    interrupt_all();
    resume(t, run.mode, 0);
    return;
  }
  int st;
  if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) == -1) die("PTRACE_SINGLESTEP");
  if (waitpid(t->tid, &st, __WALL) != t->tid || !WIFSTOPPED(st)) die("waitpid (breakpoint)");
  set_int3(t->tid, 1);
  resume(t, run.mode, 0);
}

/* A completed single step (or a signal handler's entry): the pending instruction ran. Then the
 * step limit, and the signal from outside when it is due. */
static void on_step(struct thread *t) {
  if (run.mode == MODE_STEP && t->stepping) {
    commit(t);
    if (opt.max_steps && steps >= opt.max_steps && !run.limited) {
      run.limited = 1;
      kill(child, SIGKILL);
      run.mode = MODE_DRAIN;
      resume(t, run.mode, 0);
      return;
    }
    int due = opt.kill_after && steps >= opt.kill_after;
    if (opt.use_kill_at && !run.killed && rip_of(t->tid) == kill_at_addr &&
        --opt.kill_at_hits == 0)
      due = 1;
    if (due && !run.killed) {
      run.killed = 1;
      if (kill(child, opt.kill_signal) == -1) die("kill");
      /* The signal is delivered before the next instruction: nothing is pending. */
      if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) == -1 && errno != ESRCH)
        die("PTRACE_SINGLESTEP");
      return;
    }
  }
  resume(t, run.mode, 0);
}

/* A signal-delivery stop (or a group stop, which has no siginfo: resumed as it is). */
static void on_signal(struct thread *t, int sig) {
  siginfo_t si;
  if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == -1) {
    if (errno != EINVAL) die("PTRACE_GETSIGINFO");
    resume(t, run.mode, 0);
    return;
  }
  int stepped = run.mode == MODE_STEP && t->stepping;
  int synchronous = is_fault_signal(sig) && si.si_code > 0;
  if (stepped) {
    if (synchronous)
      commit(t); /* it faulted: attempted, and the last instruction of the thread */
    else
      t->has_pending = 0; /* it has not run: the signal comes first */
  }
  if (is_crash_signal(sig) && !crash.happened && run.mode != MODE_DRAIN) {
    record_crash(t, &si, rip_of(t->tid), !stepped);
    run.mode = MODE_DRAIN;
  }
  if (run.mode == MODE_STEP && t->stepping && !synchronous) {
    /* Deliver it; the handler's first instruction comes back as a SIGTRAP stop. */
    if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, (void *)(long)sig) == -1 && errno != ESRCH)
      die("PTRACE_SINGLESTEP");
    return;
  }
  resume(t, run.mode, sig);
}

/* Waits for the next stop of any thread; in native mode with -d, switches to stepping when the
 * delay is over. Returns the thread id, 0 when there is nothing left. */
static pid_t next_stop(int *status, double start) {
  for (;;) {
    pid_t tid;
    if (run.mode == MODE_NATIVE && !opt.use_break) {
      tid = waitpid(-1, status, __WALL | WNOHANG);
      if (tid == 0) {
        if (now_s() - start >= opt.delay_ms / 1000.0) {
          run.mode = MODE_STEP;
          interrupt_all();
        } else {
          usleep(1000);
        }
        continue;
      }
    } else {
      tid = waitpid(-1, status, __WALL);
    }
    if (tid == -1 && errno == ECHILD) return 0;
    if (tid == -1) die("waitpid");
    return tid;
  }
}

int main(int argc, char **argv) {
  parse_options(argc, argv);
  start_child(argv + optind);
  run.mode = opt.delay_ms > 0 || opt.use_break ? MODE_NATIVE : MODE_STEP;
  if (opt.use_break) {
    bp.addr = runtime_entry() + (uint64_t)opt.break_delta;
    set_int3(child, 1);
  }
  if (opt.use_kill_at) kill_at_addr = runtime_entry() + (uint64_t)opt.kill_at_delta;
  struct thread *main_thread = add_thread(child);
  main_thread->started = 1;
  main_thread->stepping = run.mode == MODE_STEP;
  resume(main_thread, run.mode, 0);

  double start = now_s(), deadline = start + opt.timeout_s;
  int status;
  pid_t tid;
  while ((tid = next_stop(&status, start)) != 0) {
    if (now_s() > deadline && !run.timed_out) {
      run.timed_out = 1;
      kill(child, SIGKILL);
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == child) run.exit_status = status;
      remove_thread(tid);
      continue;
    }
    if (!WIFSTOPPED(status)) continue;
    struct thread *t = add_thread(tid);
    int sig = WSTOPSIG(status), event = status >> 16;
    if (run.timed_out)
      ptrace(PTRACE_CONT, tid, 0, 0);
    else if (sig == SIGTRAP && event == PTRACE_EVENT_CLONE)
      on_clone(tid);
    else if (event) /* any other event stop */
      resume(t, run.mode, 0);
    else if (sig == SIGTRAP && run.mode == MODE_NATIVE && opt.use_break && bp.armed &&
             rip_of(tid) == bp.addr + 1)
      on_breakpoint(t);
    else if (sig == SIGTRAP)
      on_step(t);
    else if (sig == SIGSTOP && (t->interrupting || !t->started)) {
      /* Our interruption, or a new thread's first stop: suppress it; step from here on. */
      t->started = 1;
      t->interrupting = 0;
      t->has_pending = 0;
      t->stepping = run.mode == MODE_STEP;
      resume(t, run.mode, 0);
    } else {
      on_signal(t, sig);
    }
  }
  write_report(run.exit_status, run.timed_out, run.limited);
  return run.timed_out ? 3 : 0;
}
