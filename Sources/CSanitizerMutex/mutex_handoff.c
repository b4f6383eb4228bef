// Tells ThreadSanitizer when Synchronization's Mutex changes hands on Linux, so that what a
// withLock closure touches is not reported as racing with the previous holder's closure.
//
// Mutex's fast paths, an atomic compare-exchange to lock and another to unlock, are inlined into
// onair's code and instrumented. Its slow paths are functions of libswiftSynchronization.so,
// which is not instrumented: `_lockSlow` spins, taking the lock with a compare-exchange of its
// own, then asks the kernel (FUTEX_LOCK_PI, which may hand the lock over); `_unlockSlow` gives
// it back through FUTEX_UNLOCK_PI; `_tryLockSlow` uses FUTEX_TRYLOCK_PI. ThreadSanitizer sees
// none of them. Watching only the futex calls (interposing libc's syscall) misses the locks
// taken while spinning, so these definitions replace the three slow paths themselves (the
// executable's definition comes before the library's): each calls the library's function and
// marks the mutex's word as released before unlocking and as acquired after locking.
//
// They are Swift functions of `_MutexHandle` (a borrowed self, passed by address in the swiftself
// register, which clang calls swift_context). A process whose Synchronization library lacks one
// of them stops at its start, saying so: without them every report about a Mutex is suspect.
#if defined(__linux__)
#define _GNU_SOURCE
#include "sanitizer_mutex.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// compiler-rt's sanitizer/tsan_interface.h, declared here: the header is not on every include path.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

#define SWIFT_CALL __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

// Synchronization._MutexHandle._lockSlow(_: UInt32), _tryLockSlow() -> Bool, _unlockSlow().
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

typedef SWIFT_CALL void (*lock_slow_function)(uint32_t, void *SWIFT_SELF);
typedef SWIFT_CALL bool (*try_lock_slow_function)(void *SWIFT_SELF);
typedef SWIFT_CALL void (*unlock_slow_function)(void *SWIFT_SELF);

static lock_slow_function library_lock_slow;
static try_lock_slow_function library_try_lock_slow;
static unlock_slow_function library_unlock_slow;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void *library_function(const char *name) {
    void *function = dlsym(RTLD_NEXT, name);
    if (function == NULL) {
        fprintf(stderr, "mutex_handoff.c: the Synchronization library has no %s; "
                        "ThreadSanitizer would not see its Mutex change hands\n", name);
        abort();
    }
    return function;
}

static void resolve(void) {
    library_lock_slow = (lock_slow_function)library_function(LOCK_SLOW);
    library_try_lock_slow = (try_lock_slow_function)library_function(TRY_LOCK_SLOW);
    library_unlock_slow = (unlock_slow_function)library_function(UNLOCK_SLOW);
}

__attribute__((constructor)) static void resolve_at_start(void) { pthread_once(&resolved, resolve); }

SWIFT_CALL void lock_slow(uint32_t thread_id, void *SWIFT_SELF word) __asm__(LOCK_SLOW);
SWIFT_CALL void lock_slow(uint32_t thread_id, void *SWIFT_SELF word) {
    pthread_once(&resolved, resolve);
    library_lock_slow(thread_id, word);
    __tsan_acquire(word);
}

SWIFT_CALL bool try_lock_slow(void *SWIFT_SELF word) __asm__(TRY_LOCK_SLOW);
SWIFT_CALL bool try_lock_slow(void *SWIFT_SELF word) {
    pthread_once(&resolved, resolve);
    bool locked = library_try_lock_slow(word);
    if (locked) __tsan_acquire(word);
    return locked;
}

SWIFT_CALL void unlock_slow(void *SWIFT_SELF word) __asm__(UNLOCK_SLOW);
SWIFT_CALL void unlock_slow(void *SWIFT_SELF word) {
    pthread_once(&resolved, resolve);
    __tsan_release(word);
    library_unlock_slow(word);
}
#endif
