// tape/single_threaded.hpp -- single_threaded(): whether the process runs one thread, so that reference counts and the
// graph's lock can do without locked instructions.
#pragma once

// FUSEGRAD_ALWAYS_ATOMIC keeps every count and lock atomic, for a program whose threads glibc's flag does not see
// (below). Define it for every translation unit (-DFUSEGRAD_ALWAYS_ATOMIC): single_threaded() is inline, and units
// that disagree on it would break the one-definition rule.
#if __has_include(<sys/single_threaded.h>) && !defined(FUSEGRAD_ALWAYS_ATOMIC)
#include <sys/single_threaded.h>
#define FUSEGRAD_KNOWS_SINGLE_THREADED 1
#endif

namespace fusegrad::detail {

// True while the process runs one thread (glibc 2.32 and later; false where unknown). Until a second thread starts,
// no other thread can read what this one writes, and starting one publishes every write before it: a count or a lock
// changed with plain loads and stores then is seen as it is by every thread started later. libstdc++'s shared_ptr
// counts the same way, from the same flag. A locked read-modify-write waits for the cache line where a plain store does
// not, and a small tape node changes dozens of counts and takes the graph's lock more than once. The flag sees the
// threads started through the C library the program links (std::thread, std::async, OpenMP, pthread_create), not those
// of another copy of it: a library loaded with dlmopen into a namespace of its own, one that a static program loads
// with dlopen, a raw clone(). A thread of such a library must not touch fusegrad's objects unless
// FUSEGRAD_ALWAYS_ATOMIC is defined.
inline bool single_threaded() noexcept {
#ifdef FUSEGRAD_KNOWS_SINGLE_THREADED
  return __libc_single_threaded != 0;
#else
  return false;
#endif
}

}  // namespace fusegrad::detail
