#define _GNU_SOURCE
#include "spawn_child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

/// The file actions: the `count` descriptors given, nothing else inherited, the directory.
static int prepare_actions(posix_spawn_file_actions_t *actions, const char *directory, const int *sources, int count) {
    int result = 0;
    for (int target = 0; target < count && result == 0; target++) {
        if (sources[target] < 0)
            result = posix_spawn_file_actions_addopen(actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
        else
            result = posix_spawn_file_actions_adddup2(actions, sources[target], target);
    }
    // Without it, every descriptor this process opened without O_CLOEXEC (a test's server
    // socket, a pipe) would live on in the child, and in whatever the child starts.
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(actions, count);
    if (result == 0 && directory != NULL) result = posix_spawn_file_actions_addchdir_np(actions, directory);
    return result;
}

/// The attributes: a process group of its own; signals at their defaults (this process may
/// ignore SIGPIPE, and an ignored signal stays ignored across exec) and none blocked.
static int prepare_attributes(posix_spawnattr_t *attributes) {
    sigset_t none, defaults;
    sigemptyset(&none);
    sigfillset(&defaults);
    sigdelset(&defaults, SIGKILL);
    sigdelset(&defaults, SIGSTOP);
    int result = posix_spawnattr_setsigmask(attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(attributes, &defaults);
    if (result == 0) result = posix_spawnattr_setpgroup(attributes, 0);
    if (result == 0)
        result = posix_spawnattr_setflags(attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    return result;
}

int spawn_child(const char *path, char *const argv[], char *const envp[], const char *directory,
                const int *sources, int count, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    result = prepare_actions(&actions, directory, sources, count);
    if (result == 0) result = prepare_attributes(&attributes);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
