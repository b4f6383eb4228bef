// Starts a child process with posix_spawn, set up the way a supervisor wants it, in one call:
// glibc declares the two actions it needs (closefrom, chdir) only for C with _GNU_SOURCE.
#ifndef SPAWN_CHILD_H
#define SPAWN_CHILD_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Starts `path` with `argv` and `envp` (both NULL-terminated) and stores its PID in `pid`.
/// The child runs in a process group of its own (whose id is its PID), with every signal at
/// its default action and none blocked, in `directory` when it is not NULL. Its standard
/// input, output and error are the descriptors `input`, `output` and `error` (-1: /dev/null);
/// every other descriptor is closed in the child. Returns 0, or the error number: a missing or
/// non-executable `path` is reported here, not as the child's exit status.
int spawn_child(const char *path, char *const argv[], char *const envp[], const char *directory,
                int input, int output, int error, pid_t *pid);

#ifdef __cplusplus
}
#endif

#endif
