package sys

// devNumber is a device as the darwin readers record it: ATTR_CMN_DEVID's
// 32 bits, unsigned.
func devNumber(dev int32) uint64 { return uint64(uint32(dev)) }
