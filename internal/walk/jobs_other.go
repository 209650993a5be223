//go:build !linux && !darwin

package walk

// Elsewhere each entry costs one fstatat (or, on Windows, one listing call
// covers a batch of entries): as on Linux, workers wait in the kernel part
// of each call, so two per CPU keep the CPUs busy.
const (
	jobsPerCPU     = 2
	minDefaultJobs = 2
	maxDefaultJobs = 16
)
