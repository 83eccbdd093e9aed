# harness/blocks: see docs/architecture.md (one folder per record block)
harness_src += $(wildcard harness/blocks/*.c harness/blocks/*/*.c)
