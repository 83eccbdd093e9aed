/* mp_args: the modelpar command line (benchmarks/train/tprog.h: --preset,
 * then --config FILE, then single parameters) and its own --ranks N (the
 * rank count --describe states memory and traffic for); the record's
 * config block and title.
 *
 * defines: mp_args, mp_args_parse, mp_rec_fill */
#ifndef MODELPAR_MP_ARGS_H
#define MODELPAR_MP_ARGS_H

#include "benchmarks/modelpar/mp_config.h"
#include "benchmarks/train/tprog.h"

typedef struct {
    mp_cfg cfg;
    tprog_args t;
    int ranks; /* --ranks N for --describe; 0: model-ranks */
} mp_args;

void mp_args_parse(mp_args *a, int argc, char **argv, int rank);
void mp_rec_fill(tprog_run *run, const mp_args *a);

#endif
