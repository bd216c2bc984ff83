// Package live serves a running benchmark over HTTP: a page that redraws
// the static report's time charts each second (Server-Sent Events carry
// the new SVG, drawn here by report/htmlreport), the event stream itself,
// and a Prometheus exposition of the run's counters and latency
// histograms.
//
// A View is fed from the hooks a run already has: loadgen.Config's
// OnStep, StepStarted and OnSecond (the per-second records the progress
// line gets) and sysmon.Config's OnSample. Nothing here touches the
// benchmark's hot path: the histograms are the per-second HDR records,
// merged once a second and turned into Prometheus buckets at scrape time.
//
// The package never prints, never reads flags or the environment, and
// never exits; the caller chooses the listener and reports the address.
package live
