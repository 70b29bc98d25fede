/*
 * rss_exec.c - runs a command and appends one line to a file: its peak resident set size (KB)
 * and the user and system CPU seconds it used, all from wait4's rusage. The benchmark's memory
 * and CPU-time probe, wrapped around every timed run.
 *
 *   rss_exec OUTFILE COMMAND [ARGS...]
 *
 * Exits with the command's status (128+N when killed by signal N). Costs one fork and one
 * exec, the same for every variant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  struct rusage ru;
  int status;
  pid_t pid;
  FILE *out;
  if (argc < 3) return fprintf(stderr, "usage: rss_exec OUTFILE COMMAND [ARGS...]\n"), 2;
  pid = fork();
  if (pid < 0) return perror("rss_exec: fork"), 2;
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror("rss_exec: exec");
    _exit(127);
  }
  if (wait4(pid, &status, 0, &ru) < 0) return perror("rss_exec: wait4"), 2;
  out = fopen(argv[1], "a");
  if (out) {
    fprintf(out, "%ld %ld.%06ld %ld.%06ld\n", ru.ru_maxrss, (long)ru.ru_utime.tv_sec,
            (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
    fclose(out);
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
