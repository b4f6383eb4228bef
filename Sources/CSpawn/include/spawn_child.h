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
/// its default action and none blocked, in `directory` when it is not NULL. It gets
/// `sources[i]` as its descriptor `i`, for `i` below `count` (at least 3: standard input,
/// output and error; -1: /dev/null); every other descriptor is closed in the child. A source
/// must not be below `count` (an earlier copy could overwrite it). Returns 0, or the error
/// number: a missing or non-executable `path` is reported here, not as the child's exit status.
int spawn_child(const char *path, char *const argv[], char *const envp[], const char *directory,
                const int *sources, int count, pid_t *pid);

#ifdef __cplusplus
}
#endif

#endif
