struct job { int n, step; int *sink[2]; };
void *worker_main(void *arg);
