/* cl_network: DeepCAM's DeepLabv3+ as a network of the training runtime
 * (benchmarks/train/network.h); the model is a cl_plan. */
#ifndef CLIMATE_CL_NETWORK_H
#define CLIMATE_CL_NETWORK_H

#include "benchmarks/train/network.h"

extern const network_t climate_network;

#endif
