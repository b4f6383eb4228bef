// CAllocator has no API: linking it makes jemalloc the allocator of the executable that
// depends on it, with onair's settings (allocator.c).
