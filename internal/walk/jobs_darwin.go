package walk

// On APFS, published measurements of getattrlistbulk walks show gains
// stopping between 4 and 8 concurrent readers, whatever the core count:
// godu uses one worker per CPU, at least 4 and at most 8.
const (
	jobsPerCPU     = 1
	minDefaultJobs = 4
	maxDefaultJobs = 8
)
