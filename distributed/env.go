package distributed

import (
	"errors"
	"fmt"
	"strconv"
)

// engines are the launchers whose environment names a process's rank and
// the number of processes, in the order they are looked for.
var engines = []struct {
	name, rank, size string
}{
	{"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"PMI (MPICH, Intel MPI, Slurm's PMI)", "PMI_RANK", "PMI_SIZE"},
	{"Slurm", "SLURM_PROCID", "SLURM_NTASKS"},
	{"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", ""},
}

// ErrNoEngine: no launcher's variables are set.
var ErrNoEngine = errors.New("no launcher's rank is set (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or JOB_COMPLETION_INDEX): " +
	"launch objbench with mpirun, srun or a Kubernetes Indexed Job, or give the rank and size")

// ErrNoTotal: the launcher names ranks but not how many workers there are
// (a Kubernetes Indexed Job): the caller must give the total (the Job's
// completions).
var ErrNoTotal = errors.New("give the total number of workers (the Job's completions)")

// FromEnv finds this process's rank and the number of workers in the
// launching engine's variables (getenv is the environment; the caller
// passes it in). total, when not 0, gives the size where the engine does
// not export it (a Kubernetes Indexed Job: its completions), or must agree
// with it. It returns the worker and the engine's name.
func FromEnv(getenv func(string) string, total int) (Worker, string, error) {
	for _, e := range engines {
		rs := getenv(e.rank)
		if rs == "" {
			continue
		}
		rank, err := strconv.Atoi(rs)
		if err != nil {
			return Worker{}, e.name, fmt.Errorf("%s=%q: not a rank", e.rank, rs)
		}
		size := total
		if e.size != "" {
			ss := getenv(e.size)
			n, err := strconv.Atoi(ss)
			if err != nil {
				return Worker{}, e.name, fmt.Errorf("%s=%q: not a number of processes", e.size, ss)
			}
			if total != 0 && total != n {
				return Worker{}, e.name, fmt.Errorf("a total of %d workers disagrees with %s=%d", total, e.size, n)
			}
			size = n
		}
		if size == 0 {
			return Worker{}, e.name, fmt.Errorf("%s does not say how many workers there are: %w", e.name, ErrNoTotal)
		}
		w := Worker{Rank: rank, Size: size}
		return w, e.name, w.Valid()
	}
	return Worker{}, "", ErrNoEngine
}

// JobID is an id the engine gives the whole job, so that every worker
// derives the same run id without being told: OBJBENCH_RUN_ID (set it in
// a Kubernetes Job's template), SLURM_JOB_ID, or Open MPI's PMIx namespace.
// Characters other than letters, digits, '.', '-' and '_' become '-'; ""
// when the engine names none.
func JobID(getenv func(string) string) string {
	for _, v := range []string{"OBJBENCH_RUN_ID", "SLURM_JOB_ID", "PMIX_NAMESPACE"} {
		if id := getenv(v); id != "" {
			return sanitize(id)
		}
	}
	return ""
}

func sanitize(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}
