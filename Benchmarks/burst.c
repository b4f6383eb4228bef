// Benchmarks/burst.c: does the same work cost more CPU when done in bursts with idle gaps, as a
// paced run does, than back to back, as an unpaced one does? No onair, no libav: a 720p pass of
// arithmetic per "frame", `frames` times, each followed by `gap_ms` of sleep (0: none).
//
//   cc -O2 -o /tmp/burst Benchmarks/burst.c
//   /tmp/burst 300 0 5; /tmp/burst 300 30 5    # frames, gap in ms, passes per frame
//
// It prints the CPU seconds (user + system) and the wall time of the loop.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

static unsigned char a[1280 * 720], b[1280 * 720];

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static void work(int passes) {
    for (int k = 0; k < passes; k++) {
        for (int i = 1; i < (int)sizeof a - 1; i++) b[i] = (a[i - 1] + 2 * a[i] + a[i + 1] + k) >> 2;
        memcpy(a, b, sizeof a);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: burst FRAMES GAP_MS PASSES\n");
        return 2;
    }
    int frames = atoi(argv[1]), gap_ms = atoi(argv[2]), passes = atoi(argv[3]);
    srand(1);
    for (size_t i = 0; i < sizeof a; i++) a[i] = (unsigned char)rand();
    struct timespec start, end, gap = {0, gap_ms * 1000000L};
    double cpu = cpu_seconds();
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int f = 0; f < frames; f++) {
        work(passes);
        if (gap_ms) nanosleep(&gap, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("frames %d, gap %d ms: CPU %.3f s, wall %.3f s\n", frames, gap_ms, cpu_seconds() - cpu,
           (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
    return 0;
}
