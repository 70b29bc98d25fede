/* A crash in a second thread while the main thread is busy.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * crashed-thread: worker
 * expect-O0: w0 w1 w2 w3 w2 w3 w2 w4 w5
 * expect-O2: w0 w2 w3 w2 w3 w2 w5
 * expect-O2@19: w0 w2 w3 w2 w3 w2 w4 w5
 * (At -O2 clang 14 sinks w4's compare into the loop exit and gives it the location of the loop
 * condition, w2: in the binary's own line table nothing runs on w4's line. clang 19 keeps w4.)
 * stack: worker
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile int stop, go;
static volatile long spins;

static void *worker(void *arg) {
  while (!go) {}                                      //@w0
  long sum = 0;                                       //@w1
  for (int i = 0; i < *(int *)arg; i++)               //@w2
    sum += i ^ stop;                                  //@w3
  volatile int *nowhere = sum == 99 ? (int *)arg : NULL; //@w4
  return (void *)(long)*nowhere; }                    //@w5

int main(int argc, char **argv) {
  pthread_t t;
  int n = argc + 1;
  pthread_setname_np(pthread_self(), "busy-main");
  if (pthread_create(&t, NULL, worker, &n) != 0) return 1;
  pthread_setname_np(t, "worker");
  go = 1;
  while (!stop) spins++;                              /* busy until the process dies */
  return (int)strlen(argv[0]); }
