package cli

// fdReserve is what a run needs of the open-file limit besides its
// workers' connections: the result file, /proc for the sampler, the live
// view, the embedded server's listener.
const fdReserve = 128
