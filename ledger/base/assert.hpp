#pragma once
// Invariant checks that stay on in release builds. A failed invariant means the code is wrong, and
// continuing could corrupt the book of record, so the process stops. Never use on external input.
#include <cstdio>
#include <cstdlib>

#define CORRIDOR_ASSERT(condition)                                                          \
    do {                                                                                     \
        if (!(condition)) [[unlikely]] {                                                     \
            std::fprintf(stderr, "assertion failed: %s at %s:%d\n", #condition, __FILE__, \
                         __LINE__);                                                          \
            std::abort();                                                                    \
        }                                                                                    \
    } while (false)
