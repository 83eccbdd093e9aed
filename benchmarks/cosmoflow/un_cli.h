/* un_cli: `cosmoflow --network unet3d`: the 3D U-Net's command line
 * (its own options, docs/cosmoflow.md "3D U-Net"), --describe and training
 * on one rank.  More than one rank or spatial part is refused in one line:
 * the spatial split of the skip tensors and transposed convolutions is not
 * built.
 *
 * defines: un_cli_wanted, un_cli_main */
#ifndef COSMOFLOW_UN_CLI_H
#define COSMOFLOW_UN_CLI_H

/* 1 when argv names a --network other than cosmoflow (un_cli_main answers). */
int un_cli_wanted(int argc, char **argv);
/* The program's exit status: 0, 1 (a run failed), 2 (bad input). */
int un_cli_main(int argc, char **argv);

#endif
