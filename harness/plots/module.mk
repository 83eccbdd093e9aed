# harness/plots: gnuplot figures (plots.h), below model/ and report/ which both draw
harness_src += $(wildcard harness/plots/*.c)
