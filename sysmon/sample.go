package sysmon

import "github.com/objbench/objbench/result"

// The sampler's records are the result file's: a sample is written as it
// is taken. These names let the sampler's code speak of them plainly.
type (
	Sample   = result.Sample
	CPU      = result.CPU
	DiskIO   = result.DiskIO
	DeviceIO = result.DeviceIO
	NetIO    = result.NetIO
	IfaceIO  = result.IfaceIO
	Process  = result.Process
	Timeline = result.Timeline
	Machine  = result.Machine
	Finding  = result.Finding
)
