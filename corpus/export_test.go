package corpus

// FromDirSpilling is FromDir with its sorted names spilled to tmp in runs
// of runBytes: small runs make a small test spill.
var FromDirSpilling = fromDir
