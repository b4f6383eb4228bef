#define _GNU_SOURCE
#include "connect_watch.h"

#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// Why interposition (the executable's own connect() and close()) and nothing else, for
// FFmpeg 5.1: libavformat.so.59 exports no function that names a protocol's socket (no ff*
// symbol at all), RTMP's protocol has no get-file-handle entry, and its TCP connection is a
// field of private structures (URLContext, RTMPContext, TCPContext) whose layouts would have to
// be copied by hand. A custom AVIOContext sits above the protocol: RTMP's handshake and chunks
// would be onair's to write. The dynamic linker, instead, binds libavformat's calls to connect
// and close to the first definition in the process's global scope, and the executable comes
// first — `onair` as much as the test bundle, which is an executable on Linux too.
// connect_watch_available() checks that binding at run time, so it is never assumed.

typedef int (*connect_function)(int, const struct sockaddr *, socklen_t);
typedef int (*close_function)(int);

// A sanitizer linked statically into the executable defines connect and close too, weakly: the
// definitions below replace its interceptors, so they call them (nil without a sanitizer).
extern int __interceptor_connect(int, const struct sockaddr *, socklen_t) __attribute__((weak));
extern int __interceptor_close(int) __attribute__((weak));

/// The function the next object in the search order (libc, or a sanitizer's shared runtime)
/// defines as `name`, found once.
static void *next_definition(void **cache, const char *name) {
    void *found = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!found) {
        found = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, found, __ATOMIC_RELEASE);
    }
    return found;
}

// MARK: - What a watching thread notes

/// One end of a connection, comparable byte for byte.
typedef struct {
    sa_family_t family;
    in_port_t port;
    uint32_t scope;
    uint8_t address[16];
} endpoint;

typedef struct {
    int fd;
    endpoint local;
    endpoint peer;
} made_connection;

/// Room for every attempt of one open: a Happy-Eyeballs connect tries a few addresses, and an
/// RTMP redirect connects once more. The oldest is forgotten first.
enum { CAPACITY = 8 };

static _Thread_local int watching;
static _Thread_local int made_count;
static _Thread_local made_connection made[CAPACITY];

/// The IPv4 or IPv6 endpoint `address` names; 0 for other families.
static int endpoint_of(const struct sockaddr *address, socklen_t length, endpoint *out) {
    memset(out, 0, sizeof *out);
    if (address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        out->family = AF_INET;
        out->port = v4->sin_port;
        memcpy(out->address, &v4->sin_addr, sizeof v4->sin_addr);
        return 1;
    }
    if (address->sa_family == AF_INET6 && length >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        out->family = AF_INET6;
        out->port = v6->sin6_port;
        out->scope = v6->sin6_scope_id;
        memcpy(out->address, &v6->sin6_addr, sizeof v6->sin6_addr);
        return 1;
    }
    return 0;
}

/// The local (or, with `peer`, the remote) endpoint of `fd` now; 0 when it has none.
static int endpoint_now(int fd, int peer, endpoint *out) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    int read = peer ? getpeername(fd, (struct sockaddr *)&address, &length) : getsockname(fd, (struct sockaddr *)&address, &length);
    return read == 0 && endpoint_of((struct sockaddr *)&address, length, out);
}

static void forget(int fd) {
    int kept = 0;
    for (int i = 0; i < made_count; i++) {
        if (made[i].fd != fd) made[kept++] = made[i];
    }
    made_count = kept;
}

static void remember(int fd, const struct sockaddr *address, socklen_t length) {
    made_connection connection = {.fd = fd};
    // The local port is the kernel's choice at connect(), even while the handshake goes on.
    if (!endpoint_of(address, length, &connection.peer) || !endpoint_now(fd, 0, &connection.local)) return;
    forget(fd);
    if (made_count == CAPACITY) {
        memmove(made, made + 1, sizeof made[0] * (CAPACITY - 1));
        made_count -= 1;
    }
    made[made_count++] = connection;
}

/// Whether `connection` is still the TCP connection that was noted: a descriptor number that
/// was closed and reused meanwhile has another local port or peer.
static int still_connected(const made_connection *connection) {
    int type = 0;
    socklen_t length = sizeof type;
    endpoint local, peer;
    return getsockopt(connection->fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_STREAM
        && endpoint_now(connection->fd, 0, &local) && memcmp(&local, &connection->local, sizeof local) == 0
        && endpoint_now(connection->fd, 1, &peer) && memcmp(&peer, &connection->peer, sizeof peer) == 0;
}

/// Whether the code at `caller` is libavformat's: only its own calls are noted, not those of
/// whatever else runs on the thread meanwhile (the interrupt and log callbacks it calls).
static int called_by_libavformat(const void *caller) {
    static void *library;
    Dl_info info;
    if (!__atomic_load_n(&library, __ATOMIC_ACQUIRE) && dladdr(dlsym(RTLD_DEFAULT, "avformat_version"), &info)) {
        __atomic_store_n(&library, info.dli_fbase, __ATOMIC_RELEASE);
    }
    return dladdr(caller, &info) && info.dli_fbase == __atomic_load_n(&library, __ATOMIC_ACQUIRE);
}

// MARK: - The process's connect() and close()

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    static void *next;
    connect_function call = __interceptor_connect ? __interceptor_connect : (connect_function)next_definition(&next, "connect");
    int result = call(fd, address, length);
    if (watching && address && (result == 0 || errno == EINPROGRESS)) {
        int saved = errno;
        if (called_by_libavformat(__builtin_return_address(0))) remember(fd, address, length);
        errno = saved;
    }
    return result;
}

int close(int fd) {
    static void *next;
    close_function call = __interceptor_close ? __interceptor_close : (close_function)next_definition(&next, "close");
    if (watching) forget(fd);
    return call(fd);
}

int connect_watch_available(void) {
    return dlsym(RTLD_DEFAULT, "connect") == (void *)connect && dlsym(RTLD_DEFAULT, "close") == (void *)close;
}

void connect_watch_begin(void) {
    made_count = 0;
    watching = 1;
}

int connect_watch_end(void) {
    watching = 0;
    int kept = -1;
    for (int i = made_count - 1; i >= 0 && kept < 0; i--) {
        if (still_connected(&made[i])) kept = made[i].fd;
    }
    made_count = 0;
    return kept;
}
