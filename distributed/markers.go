package distributed

// MarkerDir is where, under a run's namespace, its workers leave the
// markers they meet by.
const MarkerDir = "_workers/"

// ManifestDir is where, under MarkerDir, each worker keeps its run's
// manifest (package run): Leave never removes it; the run does, once
// nothing of it is left in the store.
const ManifestDir = "manifest/"
