//go:build unix

package research

import "golang.org/x/sys/unix"

// processCPU is the CPU time (user and system) the process has used, in
// seconds: a benchmark's CPU per search reads less of the machine's other
// load than its wall time does.
func processCPU() float64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
