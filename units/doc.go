// Package units reads and writes byte sizes ("4KiB", "1.5 GB", "100"),
// the one way objbench spells them in flags, workload files and plans: KB,
// MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB of 1024, in any case;
// a bare K, M, G or T, which tools read either way, is refused.
//
// It is a leaf: it must not import other objbench packages, so a package
// that only needs sizes (transfer, shootout) does not pull in a workload
// decoder. It does not print, and it does not round: a size that is not a
// whole number of bytes is an error, and FormatSize writes counts exactly.
package units
