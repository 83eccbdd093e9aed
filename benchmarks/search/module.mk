# benchmarks/search: the `search` program, an evolutionary search over
# FC-DenseNet configurations (MENNDL's pattern): a master rank mutating and
# crossing a population, worker groups training each candidate in-process on
# the training runtime, or a planted synthetic fitness (docs/search.md)
LIBRARIES  += search
search_src += $(filter-out benchmarks/search/main.c,$(wildcard benchmarks/search/*.c))

PROGRAMS      += search
search_main   := benchmarks/search/main.c
search_libs   := search fcdensenet train comm common
search_ldlibs  = $(TRAIN_LDLIBS)
