#ifndef COURIER_ALLOCATION_COUNTER_H
#define COURIER_ALLOCATION_COUNTER_H

/* Counts the allocations of the process it is preloaded into (LD_PRELOAD, glibc only).
   The harness finds these functions with dlsym; nothing links this library. */

/* Starts counting from zero. */
void courier_allocations_start(void);
/* Stops counting. */
void courier_allocations_stop(void);
/* Allocations (malloc, calloc, realloc, aligned allocations) counted since the last start. */
long courier_allocations_count(void);
/* Bytes asked for by those allocations. */
long courier_allocations_bytes(void);

#endif
