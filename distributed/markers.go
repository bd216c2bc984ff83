package distributed

// MarkerDir is where, under a run's namespace, its workers leave the
// markers they meet by.
const MarkerDir = "_workers/"
