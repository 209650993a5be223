package walk

// On Linux, workers spend part of each statx waiting in the kernel; three
// per CPU keep every CPU busy (see README, Benchmarks).
const (
	jobsPerCPU     = 3
	minDefaultJobs = 2
	maxDefaultJobs = 32
)
