/*
 * crashtrail/crashtrail.h - the public API of the crashtrail runtime.
 *
 * A program built with the crashtrail plugin records its path automatically and writes a dump
 * when it dies of a fatal signal; nothing here is needed for that. These calls are for the
 * cases a user chooses: a dump on demand (a hung request, an assertion the program survives),
 * and re-installing the crash handlers after the program installed its own.
 */
#ifndef CRASHTRAIL_H
#define CRASHTRAIL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a dump of the whole process now, without stopping it. `reason` (may be NULL) is stored
 * in the dump and shown by the post-mortem. Returns 0 and prints the dump's path on stderr, or
 * -1 (with a message on stderr) if no dump could be written or another dump is in progress.
 * Async-signal-safe: it may be called from a signal handler. */
int crashtrail_dump(const char *reason);

/* The path of the last dump this process wrote, or NULL. Valid until the next dump. */
const char *crashtrail_last_dump_path(void);

/* Installs crashtrail's fatal-signal handlers again, chaining to whatever is installed now.
 * Call it after installing your own handlers if you want crashtrail to run first. */
void crashtrail_install_handlers(void);

#ifdef __cplusplus
}
#endif

#endif
