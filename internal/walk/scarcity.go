package walk

import (
	"fmt"
	"sync/atomic"
)

// scarcity counts the walk's ways around a shortage of descriptors, for
// tests through the command (GODU_SCARCITY_STATS): that a test's tree and
// limit really reach them.
var scarcity struct {
	shed     atomic.Int64 // descriptors closed by shed
	reopened atomic.Int64 // shed directories reopened (useFd)
	beneath  atomic.Int64 // openat2 calls beneath an open ancestor (reopenBeneath)
	walkDown atomic.Int64 // reopens that went down level by level from an ancestor
	byPath   atomic.Int64 // opens by the path from the operand (openBeneath)
	pauses   atomic.Int64 // waits for a descriptor (openScarce)
	near     atomic.Int64 // reopens from a worker's cursor (reopenNear)
	steps    atomic.Int64 // levels the reopens crossed, down or up
}

// ScarcityStats returns the counts of this process's walks so far, one
// "name value" pair each, and fewTries (what one operand may wait).
func ScarcityStats() string {
	return fmt.Sprintf("shed %d\nreopened %d\nbeneath %d\nwalkdown %d\nbypath %d\npauses %d\nnear %d\nsteps %d\nfewtries %d\n",
		scarcity.shed.Load(), scarcity.reopened.Load(), scarcity.beneath.Load(),
		scarcity.walkDown.Load(), scarcity.byPath.Load(), scarcity.pauses.Load(),
		scarcity.near.Load(), scarcity.steps.Load(), fewTries)
}
