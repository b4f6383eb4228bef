#define _GNU_SOURCE
#include "connect_watch.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libavformat/version.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/// The library whose calls are watched: the major version onair was built against.
static const char library_name[] = "libavformat.so." STRINGIFY(LIBAVFORMAT_VERSION_MAJOR);

#if __ELF_NATIVE_CLASS == 64
#define RELOCATION_TYPE ELF64_R_TYPE
#define RELOCATION_SYMBOL ELF64_R_SYM
#else
#define RELOCATION_TYPE ELF32_R_TYPE
#define RELOCATION_SYMBOL ELF32_R_SYM
#endif

#if defined(__x86_64__)
enum { CALL_RELOCATION = R_X86_64_JUMP_SLOT, ADDRESS_RELOCATION = R_X86_64_GLOB_DAT };
#elif defined(__aarch64__)
enum { CALL_RELOCATION = R_AARCH64_JUMP_SLOT, ADDRESS_RELOCATION = R_AARCH64_GLOB_DAT };
#else
#define CONNECT_WATCH_UNSUPPORTED 1
#endif

typedef int (*connect_function)(int, const struct sockaddr *, socklen_t);
typedef int (*close_function)(int);

/// What libavformat's entries held before: the functions the recorders pass every call on to.
static connect_function previous_connect;
static close_function previous_close;
static int installed;

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

// MARK: - The recorders

static int watched_connect(int fd, const struct sockaddr *address, socklen_t length) {
    connect_function next = __atomic_load_n(&previous_connect, __ATOMIC_ACQUIRE);
    int result = next(fd, address, length);
    if (watching && address && (result == 0 || errno == EINPROGRESS)) {
        int saved = errno;
        remember(fd, address, length);
        errno = saved;
    }
    return result;
}

static int watched_close(int fd) {
    close_function next = __atomic_load_n(&previous_close, __ATOMIC_ACQUIRE);
    if (watching) forget(fd);
    return next(fd);
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

// MARK: - Pointing libavformat's entries at the recorders

#ifndef CONNECT_WATCH_UNSUPPORTED

typedef struct {
    const char *name;
    void *recorder;
    void **previous;
} watched_function;

/// Whether `address` lies in one of `object`'s loaded segments.
static int inside(const struct dl_phdr_info *object, uintptr_t address) {
    for (int i = 0; i < object->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &object->dlpi_phdr[i];
        uintptr_t start = object->dlpi_addr + header->p_vaddr;
        if (header->p_type == PT_LOAD && address >= start && address < start + header->p_memsz) return 1;
    }
    return 0;
}

/// Points `slot` at `function`'s recorder, keeping what it pointed to. An entry that still
/// points into the library itself has not been bound yet (lazy binding): what it will call is
/// looked up as the loader would. A read-only entry (RELRO) is made writable for the store.
static void replace(const struct dl_phdr_info *object, uintptr_t relro_start, uintptr_t relro_end, void **slot,
                    const watched_function *function) {
    void *current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (current == function->recorder) return;
    if (inside(object, (uintptr_t)current)) current = dlsym(RTLD_DEFAULT, function->name);
    if (!current) return;
    long page = sysconf(_SC_PAGESIZE);
    void *start = (void *)((uintptr_t)slot & ~(uintptr_t)(page - 1));
    int read_only = (uintptr_t)slot >= relro_start && (uintptr_t)slot < relro_end;
    if (read_only && mprotect(start, (size_t)page, PROT_READ | PROT_WRITE) != 0) return;
    if (!*function->previous) __atomic_store_n(function->previous, current, __ATOMIC_RELEASE);
    __atomic_store_n(slot, function->recorder, __ATOMIC_RELEASE);
    if (read_only) mprotect(start, (size_t)page, PROT_READ);
}

/// The loader has already relocated the addresses in the dynamic section on most platforms;
/// where it has not, they are relative to the load address.
static uintptr_t absolute(const struct dl_phdr_info *object, uintptr_t address) {
    return address < object->dlpi_addr ? address + object->dlpi_addr : address;
}

static void patch(const struct dl_phdr_info *object, const watched_function *functions, int count) {
    const ElfW(Dyn) *dynamic = NULL;
    uintptr_t relro_start = 0, relro_end = 0;
    for (int i = 0; i < object->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &object->dlpi_phdr[i];
        if (header->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)(object->dlpi_addr + header->p_vaddr);
        if (header->p_type == PT_GNU_RELRO) {
            relro_start = object->dlpi_addr + header->p_vaddr;
            relro_end = relro_start + header->p_memsz;
        }
    }
    if (!dynamic) return;
    uintptr_t symbols = 0, strings = 0, calls = 0, calls_size = 0, data = 0, data_size = 0;
    long call_kind = 0;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
        case DT_SYMTAB: symbols = absolute(object, entry->d_un.d_ptr); break;
        case DT_STRTAB: strings = absolute(object, entry->d_un.d_ptr); break;
        case DT_JMPREL: calls = absolute(object, entry->d_un.d_ptr); break;
        case DT_PLTRELSZ: calls_size = entry->d_un.d_val; break;
        case DT_PLTREL: call_kind = (long)entry->d_un.d_val; break;
        case DT_RELA: data = absolute(object, entry->d_un.d_ptr); break;
        case DT_RELASZ: data_size = entry->d_un.d_val; break;
        }
    }
    if (!symbols || !strings) return;
    // Calls (the PLT's entries) and, should the library take a function's address, data.
    const struct { uintptr_t start, size; } tables[] = {{call_kind == DT_RELA ? calls : 0, calls_size}, {data, data_size}};
    for (int t = 0; t < 2; t++) {
        const ElfW(Rela) *relocation = (const ElfW(Rela) *)tables[t].start;
        for (size_t i = 0; relocation && i < tables[t].size / sizeof *relocation; i++) {
            unsigned long type = RELOCATION_TYPE(relocation[i].r_info);
            if (type != CALL_RELOCATION && type != ADDRESS_RELOCATION) continue;
            const ElfW(Sym) *symbol = (const ElfW(Sym) *)symbols + RELOCATION_SYMBOL(relocation[i].r_info);
            const char *name = (const char *)strings + symbol->st_name;
            for (int f = 0; f < count; f++) {
                if (strcmp(name, functions[f].name) != 0) continue;
                replace(object, relro_start, relro_end, (void **)(object->dlpi_addr + relocation[i].r_offset), &functions[f]);
            }
        }
    }
}

static int patch_if_libavformat(struct dl_phdr_info *object, size_t size, void *context) {
    (void)size;
    (void)context;
    const char *slash = strrchr(object->dlpi_name, '/');
    if (strcmp(slash ? slash + 1 : object->dlpi_name, library_name) != 0) return 0;
    const watched_function functions[] = {
        {"connect", (void *)watched_connect, (void **)&previous_connect},
        {"close", (void *)watched_close, (void **)&previous_close},
    };
    patch(object, functions, 2);
    return 1;
}

#endif

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void install(void) {
#ifndef CONNECT_WATCH_UNSUPPORTED
    dl_iterate_phdr(patch_if_libavformat, NULL);
    installed = __atomic_load_n(&previous_connect, __ATOMIC_ACQUIRE) != NULL;
#endif
}

int connect_watch_install(void) {
    pthread_once(&install_once, install);
    return installed;
}
