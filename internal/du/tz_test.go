package du

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestZoneAgainstDate: times print in the zone TZ names as the C library
// converts them, GNU date the oracle: unset, empty, ":" (the system's
// default zone), zone files with leap seconds (right/: a time is 27
// seconds earlier since 2017, and %s is still the time itself), POSIX
// rules, and names that are neither.
func TestZoneAgainstDate(t *testing.T) {
	if _, err := exec.LookPath("date"); err != nil {
		t.Skip("no date")
	}
	zones := []string{"", ":", "UTC", "Europe/Paris", ":Europe/Paris", "right/UTC", ":right/Europe/Berlin",
		"right/America/New_York", "posix/Asia/Kolkata", "UTC0", "<+03>-3", "EST5EDT,M3.2.0,M11.1.0", "Nowhere/Bogus", ":/etc/localtime",
		"BBB+25", "ABC-1:99:99", "ABC-1:60", "ABC+0:0:75", "XYZ-99:99:99ABC,M3.2.0/50,M11.1.0/-1:90"}
	stamps := []int64{0, 78796799, 78796800, 915148800, 1483228799, 1483228800, 1483228827, 1700000000, -100000000, 4102444799}
	format := "%F %T %Z %z %s"
	unset := "\x00unset"
	for _, zone := range append(zones, unset) {
		if strings.Contains(zone, "right/") {
			if _, err := os.Stat("/usr/share/zoneinfo/" + strings.TrimPrefix(zone, ":")); err != nil {
				continue // no leap-second zones here
			}
		}
		if zone == unset {
			os.Unsetenv("TZ")
			t.Cleanup(func() { os.Unsetenv("TZ") })
		} else {
			t.Setenv("TZ", zone)
		}
		z := LocalZone()
		for _, sec := range stamps {
			cmd := exec.Command("date", "-d", fmt.Sprintf("@%d", sec), "+"+format)
			cmd.Env = []string{"LC_ALL=C"}
			if zone != unset {
				cmd.Env = append(cmd.Env, "TZ="+zone)
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("date: %v", err)
			}
			want := strings.TrimSuffix(string(out), "\n")
			if got := z.Format(format, time.Unix(sec, 0).UnixNano()); got != want {
				t.Errorf("TZ=%q @%d: got %q, want %q", zone, sec, got, want)
			}
		}
	}
}
