# harness/report: results.yaml, report.md (report.c loops over the sections of section.h); one file per section in sections/ (the figures: harness/plots/)
harness_src += $(wildcard harness/report/*.c harness/report/sections/*.c)
