package du

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// randomFormat is a strftime format of a few directives, each with random
// flags, width and modifier, among literal text: GNU date, which formats
// with the same gnulib code as du, is the oracle.
func randomFormat(r *rand.Rand) string {
	convs := strings.Split("a A b B c C d D e F g G h H I j k l m M n N p P q r R s S t T u U V w W x X y Y z Z % :z ::z :::z ::::z :x : f J + 1", " ")
	var b strings.Builder
	for n := 1 + r.Intn(5); n > 0; n-- {
		if r.Intn(3) == 0 {
			b.WriteString([]string{"-", " ", "x", "é", "%%"}[r.Intn(5)])
		}
		b.WriteByte('%')
		for f := r.Intn(3); f > 0; f-- {
			b.WriteByte("_-0+^#"[r.Intn(6)])
		}
		if r.Intn(3) == 0 {
			b.WriteString([]string{"0", "1", "3", "5", "9", "10", "12"}[r.Intn(7)])
		}
		if r.Intn(4) == 0 {
			b.WriteByte("EO"[r.Intn(2)])
		}
		b.WriteString(convs[r.Intn(len(convs))])
	}
	if r.Intn(10) == 0 {
		b.WriteByte('%')
	}
	return b.String()
}

func TestStrftimeAgainstDate(t *testing.T) {
	if _, err := exec.LookPath("date"); err != nil {
		t.Skip("no date")
	}
	seed, _ := strconv.ParseInt(os.Getenv("GODU_TEST_SEED"), 10, 64) // to explore by hand; 0 in the suite
	r := rand.New(rand.NewSource(10 + seed))
	zones := []string{"UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "Australia/Lord_Howe"}
	stamps := []int64{0, 1, 86399, 951782400, 1700000000, -1, 4102444799, 253402300799, 1234567890, -2208988800, 1000000000000}
	for i := 0; i < 1500; i++ {
		f := randomFormat(r)
		if dashN.MatchString(f) {
			continue // date prints %-N's trailing zeros; du, as Strftime, does not
		}
		zone := zones[r.Intn(len(zones))]
		sec := stamps[r.Intn(len(stamps))]
		if r.Intn(2) == 0 {
			sec = r.Int63n(1 << 33)
		}
		ns := []int{0, 5, 120000000, 999999999, 100}[r.Intn(5)]
		cmd := exec.Command("date", "-d", "@"+time.Unix(sec, int64(ns)).UTC().Format("2006-01-02T15:04:05.999999999Z"), "+"+f)
		cmd.Args[2] = fmt.Sprintf("@%d.%09d", sec, ns)
		cmd.Env = []string{"TZ=" + zone, "LC_ALL=C"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("date %q: %v", f, err)
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(string(out), "\n")
		tm := time.Unix(sec, int64(ns))
		if sec < 0 { // date's @-1.5 is a second and a half before the epoch
			tm = time.Unix(sec, -int64(ns))
		}
		if got := Strftime(f, tm.In(loc)); got != want {
			t.Errorf("TZ=%s @%d.%09d %q: got %q, want %q", zone, sec, ns, f, got, want)
		}
	}
}

var dashN = regexp.MustCompile(`%[-_0+^#]*-[-_0+^#]*[0-9]*[EO]?N`)
