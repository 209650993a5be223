package xnu

// The emulation's faults and features, set by tests (Set) or by the
// environment (EnvVar).

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Knobs are the faults and file-system features the emulation plays.
// Directory and entry names are base names.
type Knobs struct {
	// MaxRecords caps the records one call returns (0: as many as fit).
	MaxRecords int
	// BufSize caps the bytes of the caller's buffer one call fills (0: all
	// of it), so that records are cut at any boundary.
	BufSize int
	// EINTREvery fails every Nth call with EINTR (0: never).
	EINTREvery int
	// Unpadded packs the last record of a full buffer without its
	// padding when only that way it fits.
	Unpadded bool
	// ENOTSUP and EINVAL fail every call on these directories so.
	ENOTSUP, EINVAL []string
	// Vanish removes these entries between listing and examining them.
	Vanish []string
	// Dataless and Firmlink set SF_DATALESS and SF_FIRMLINK on these
	// entries (in ATTR_CMN_FLAGS and st_flags).
	Dataless, Firmlink []string
}

// EnvVar holds the knobs of a process, read once at start, as
// "max=K,buf=N,eintr=N,unpadded,enotsup=a:b,einval=a,vanish=a,dataless=a:b,firmlink=a".
const EnvVar = "GODU_XNU"

// ParseKnobs reads knobs in EnvVar's syntax.
func ParseKnobs(s string) (Knobs, error) {
	var k Knobs
	for _, f := range strings.Split(s, ",") {
		if f == "" {
			continue
		}
		key, val, _ := strings.Cut(f, "=")
		num := func(p *int) (err error) { *p, err = strconv.Atoi(val); return err }
		names := func(p *[]string) error { *p = strings.Split(val, ":"); return nil }
		var err error
		switch key {
		case "max":
			err = num(&k.MaxRecords)
		case "buf":
			err = num(&k.BufSize)
		case "eintr":
			err = num(&k.EINTREvery)
		case "unpadded":
			k.Unpadded = true
		case "enotsup":
			err = names(&k.ENOTSUP)
		case "einval":
			err = names(&k.EINVAL)
		case "vanish":
			err = names(&k.Vanish)
		case "dataless":
			err = names(&k.Dataless)
		case "firmlink":
			err = names(&k.Firmlink)
		default:
			err = syscall.EINVAL
		}
		if err != nil {
			return k, &os.PathError{Op: "parse " + EnvVar, Path: f, Err: err}
		}
	}
	return k, nil
}

func (k *Knobs) String() string {
	var f []string
	add := func(key string, n int) {
		if n != 0 {
			f = append(f, key+"="+strconv.Itoa(n))
		}
	}
	list := func(key string, l []string) {
		if len(l) > 0 {
			f = append(f, key+"="+strings.Join(l, ":"))
		}
	}
	add("max", k.MaxRecords)
	add("buf", k.BufSize)
	add("eintr", k.EINTREvery)
	if k.Unpadded {
		f = append(f, "unpadded")
	}
	list("enotsup", k.ENOTSUP)
	list("einval", k.EINVAL)
	list("vanish", k.Vanish)
	list("dataless", k.Dataless)
	list("firmlink", k.Firmlink)
	return strings.Join(f, ",")
}

var state struct {
	sync.Mutex
	knobs  Knobs
	calls  uint64 // getattrlistbulk calls
	policy [3]int // the last setiopolicy_np
	npol   int
}

func init() {
	if s := os.Getenv(EnvVar); s != "" {
		k, err := ParseKnobs(s)
		if err != nil {
			panic(err)
		}
		state.knobs = k
	}
}

// Set replaces the knobs; restore puts the previous ones back.
func Set(k Knobs) (restore func()) {
	state.Lock()
	old := state.knobs
	state.knobs = k
	state.calls = 0
	state.Unlock()
	return func() {
		state.Lock()
		state.knobs = old
		state.Unlock()
	}
}

// Calls is the number of getattrlistbulk calls made so far.
func Calls() uint64 {
	state.Lock()
	defer state.Unlock()
	return state.calls
}

func knobs() Knobs {
	state.Lock()
	defer state.Unlock()
	return state.knobs
}

func has(l []string, name []byte) bool {
	for _, s := range l {
		if s == string(name) {
			return true
		}
	}
	return false
}
