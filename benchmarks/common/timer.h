/* timer: wall-clock time for benchmarks and the harness. */
#ifndef EXADL_TIMER_H
#define EXADL_TIMER_H

/* Seconds on a monotonic clock (CLOCK_MONOTONIC): differences are meaningful,
 * the origin is not. */
double timer_now_s(void);

/* UTC time as ISO 8601 ("2026-11-22T10:04:05Z") into buf (at least 21 bytes). */
void timer_utc_iso(char *buf, unsigned long len);

#endif
