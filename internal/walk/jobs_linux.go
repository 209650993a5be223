package walk

const (
	jobsPerCPU     = 3
	maxDefaultJobs = 32
)
