package walk

// On Linux, three workers per CPU keep every CPU busy while they wait on
// the disk; as many as the CPUs work at once while they do not (pace.go,
// and README, "As many workers as CPUs").
const (
	jobsPerCPU     = 3
	minDefaultJobs = 2
	maxDefaultJobs = 32
)
