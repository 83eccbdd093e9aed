# harness/report: results.yaml, report.md (report.c loops over the sections of section.h), plots; one file per section in sections/
harness_src += $(wildcard harness/report/*.c harness/report/sections/*.c)
