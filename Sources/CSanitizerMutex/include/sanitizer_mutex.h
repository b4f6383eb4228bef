// CSanitizerMutex has no API: a ThreadSanitizer build of an executable that links it sees the
// hand-overs of Synchronization's Mutex that happen outside instrumented code (mutex_handoff.c).
// Package.swift links it only when ONAIR_SANITIZER is "thread".
