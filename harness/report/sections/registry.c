/* The section tables, from the lists of section.h. */
#include "harness/report/section.h"

#define REPORT_SECTION_ENTRY(n) &section_##n,
#define BENCH_SECTION_ENTRY(n) &bsection_##n,
const section_t *const report_sections[] = {REPORT_SECTIONS(REPORT_SECTION_ENTRY) NULL};
const bsection_t *const bench_sections[] = {BENCH_SECTIONS(BENCH_SECTION_ENTRY) NULL};
