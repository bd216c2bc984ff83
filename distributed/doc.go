// Package distributed splits one run across N identical objbench
// processes that an existing engine launched (a Kubernetes Indexed Job,
// Slurm's srun, mpirun, an ssh loop): which worker a process is (rank r of
// N, from the engine's environment as the caller hands it over), its exact
// share of every count, how the workers meet through the store under test
// (markers under objbench/RUN-ID/_workers/, no coordinator) and how far
// each one's clock is from the store's.
//
// Shares are exact: the N shares of any total sum to it, and each share
// grows with the total. A worker of 1 (rank 0 of 1) is a local run.
//
// This package must not print, exit, or read flags or the environment.
package distributed
