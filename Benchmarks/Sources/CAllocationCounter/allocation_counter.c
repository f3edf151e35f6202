// An allocation counter for the benchmark harness, loaded with LD_PRELOAD: each allocation
// function below counts the call, then hands it to glibc's own implementation (the __libc_
// entry points), so no symbol lookup is needed while the process starts. Counting is off until
// courier_allocations_start() and costs one relaxed atomic load per call when off.
#include <stdatomic.h>
#include <stddef.h>
#include <errno.h>
#include "allocation_counter.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_int counting;
static atomic_long allocations;
static atomic_long bytes;

static inline void count(size_t size) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&bytes, (long)size, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count(size);
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count(count_ * size);
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count(size);
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void courier_allocations_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&bytes, 0);
    atomic_store(&counting, 1);
}

void courier_allocations_stop(void) { atomic_store(&counting, 0); }

long courier_allocations_count(void) { return atomic_load(&allocations); }

long courier_allocations_bytes(void) { return atomic_load(&bytes); }
