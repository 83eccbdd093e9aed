/* stemdl_network: the FC-DenseNet as a network of the training runtime
 * (benchmarks/train/network.h).  Its model is a plan_t (plan.h) built from
 * the configuration; its instance a net_t (net.h).
 *
 * defines: stemdl_network */
#ifndef EXADL_FCDENSENET_STEMDL_NETWORK_H
#define EXADL_FCDENSENET_STEMDL_NETWORK_H

#include "benchmarks/train/network.h"

extern const network_t stemdl_network;

#endif
