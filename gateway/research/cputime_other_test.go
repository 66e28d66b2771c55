//go:build !unix

package research

// processCPU is 0 where getrusage is not: the benchmarks report no CPU
// time there.
func processCPU() float64 { return 0 }
