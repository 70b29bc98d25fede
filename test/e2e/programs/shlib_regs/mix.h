unsigned long mix(const unsigned long *v, int rounds);
int first(const int *p);
