/* mp_network: the locally connected autoencoder as a network of the
 * training runtime (benchmarks/train/network.h), over an mp_model.
 *
 * defines: modelpar_network, mp_describe */
#ifndef MODELPAR_MP_NETWORK_H
#define MODELPAR_MP_NETWORK_H

#include <stdint.h>
#include <stdio.h>

#include "benchmarks/modelpar/mp_net.h"
#include "benchmarks/train/network.h"

extern const network_t modelpar_network;

/* --describe: layers, parameters, FLOPs (the formula and a dry step's
 * count), halo bytes and memory per rank at the model's rank count. */
void mp_describe(const void *model, FILE *f, int64_t executed_per_step, int batch);

#endif
