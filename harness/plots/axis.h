/* axis: the axis lines of a gnuplot script (plots.h), chosen from the data so
 * that every figure reads the same way (issue 27): ranks as integer ticks at
 * the scales run, message sizes in binary units at powers of two (1 KiB,
 * 64 KiB, 16 MiB), rates with one SI prefix for the whole axis (GFLOP/s,
 * not 2e+10), times on a log axis as 100 us / 10 ms (never 0.100000), a
 * y range that holds every value and CI bound drawn, and the key outside
 * the plot area so it never covers a point.
 * Every function returns gnuplot lines (each ending in a newline) or fills a
 * buffer; none reads or writes a file.
 * defines: axis_ranks, axis_yfit, axis_bytes, axis_bytes_label, axis_si,
 * AXIS_LOG_TIME_Y, AXIS_KEY */
#ifndef EXADL_HARNESS_AXIS_H
#define EXADL_HARNESS_AXIS_H

#include "harness/util/util.h"

/* the key's place in every plot: outside, under the plot area */
#define AXIS_KEY "set key outside below center horizontal\n"

/* x axis of rank counts: the distinct values of r[0..n) (in any order,
 * zeros and negatives ignored) as the only ticks, integers; padded so no
 * point sits on the border; logarithmic (base 2) when the largest is more
 * than 8 times the smallest.  "" when no value is positive. */
const char *axis_ranks(arena_t *a, const int *r, size_t n);

/* "set yrange [LO:HI]\n" holding [lo, hi] and every finite v[0..n) (values and
 * CI bounds), padded by 4% of the span where a value sets the edge and
 * rounded outward to two significant digits of the span. */
const char *axis_yfit(arena_t *a, const double *v, size_t n, double lo, double hi);

/* x axis of message sizes in bytes from lo to hi (> 0): log base 2, ticks at
 * powers of two only (at most 12, evenly spaced exponents), labelled by
 * axis_bytes_label; no minor ticks. */
const char *axis_bytes(arena_t *a, double lo, double hi);
/* a power of two of bytes in binary units: "8 B", "64 KiB", "16 MiB", "1 GiB"
 * (any other count: "%.0f B"). */
void axis_bytes_label(double bytes, char *buf, size_t len);

/* the SI prefix ("", "k", "M", "G", "T", "P", "E") that keeps top below 1000
 * and the divisor that goes with it (1, 1e3, ...); top <= 0 or not finite:
 * "" and 1. */
const char *axis_si(double top, double *div);

/* a log y axis of seconds, ticks labelled "10 us", "1 ms", "100 ms" (holds %:
 * an argument of a printf format, never a part of one) */
#define AXIS_LOG_TIME_Y "set logscale y 10\nset format y '%.0s %cs'\n"

#endif
